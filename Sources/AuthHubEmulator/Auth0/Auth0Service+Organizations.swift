import enum AuthHub.JSONValue
import Foundation
import HTTPTypes
import Hummingbird

extension Auth0Service {
    /// The longest email address the hooks accept.
    static let maximumEmailLength = 320

    /// `POST /auth0/__emulator/organizations` (emulator only): creates an Auth0 Organization.
    ///
    /// Body `{name, display_name?, members?: [email]}`: `name` is 1…50 lower-case letters,
    /// digits, `-` or `_`, starting with a letter or digit (unique in the tenant, else 409
    /// `conflict`); `display_name` 1…255 characters; `members` at most 1,000 email addresses (kept
    /// lower-cased; membership is by email, see ``Auth0Organization``). Other input is
    /// `400 invalid_request`. → 201 `{id: "org_…", name, display_name?, members: [email]}`.
    ///
    /// `GET /auth0/authorize?organization=<id or name>` then logs in only members (or the invitee
    /// of an `invitation`), and the ID token of the code exchange carries `org_id` and `org_name`.
    func createOrganization(_ request: Request) async throws -> Response {
        let parameters = try await Auth0Parameters.body(of: request)
        let name = try parameters.required("name")
        guard Auth0Organization.isValidName(name) else {
            throw Auth0Failure.invalidRequest(
                "name must be 1 to 50 lower-case letters, digits, '-' or '_', starting with a letter or digit."
            )
        }
        var displayName: String?
        if let value = parameters["display_name"], value != .null {
            guard let text = value.stringValue, (1...255).contains(text.count) else {
                throw Auth0Failure.invalidRequest("display_name must be a string of 1 to 255 characters.")
            }
            displayName = text
        }
        var members = Set<String>()
        if let value = parameters["members"], value != .null {
            guard let list = value.arrayValue, list.count <= Auth0Organization.maximumMembers else {
                throw Auth0Failure.invalidRequest("members must be an array of at most \(Auth0Organization.maximumMembers) email addresses.")
            }
            for item in list {
                guard let email = item.stringValue, Self.looksLikeEmail(email) else {
                    throw Auth0Failure.invalidRequest("members must be an array of email addresses.")
                }
                members.insert(email.lowercased())
            }
        }
        let organization = Auth0Organization(id: "org_" + alphanumericId(16), name: name, displayName: displayName, members: members)
        let created = await state.update(Auth0Tenant.key) { tenant -> Bool in
            guard !tenant.organizations.values.contains(where: { $0.name == organization.name }) else { return false }
            tenant.organizations[organization.id] = organization
            return true
        }
        guard created else {
            throw Auth0Failure.oauth("conflict", "An organization with this name already exists.", status: .conflict)
        }
        var body: [String: JSONValue] = [
            "id": .string(organization.id), "name": .string(organization.name),
            "members": .array(organization.members.sorted().map(JSONValue.string)),
        ]
        if let displayName { body["display_name"] = .string(displayName) }
        return EmulatorResponse.json(.object(body), status: .created)
    }

    /// `POST /auth0/__emulator/organizations/{id}/invitations` (emulator only): invites `email`
    /// to the organization `id`. Body `{email}` → 201 `{invitation_url, ticket_id, organization_id,
    /// email, expires_at}`, where `invitation_url` has Auth0's form
    /// `<issuer>login?invitation=<ticket_id>&organization=<org_id>&organization_name=<name>`
    /// (the emulator serves no page there: clients read the query, AuthHubAuth0 docs, Auth0Endpoints: “Authorize URL” step 3, and send
    /// `organization` and `invitation` to `/authorize`). The ticket lasts 7 days and is spent by
    /// the login or sign-up of that email, which makes the user a member. Unknown organization:
    /// 404 `not_found`; a bad email: 400 `invalid_request`.
    func createInvitation(_ request: Request, context: EmulatorRequestContext) async throws -> Response {
        let raw = context.parameters.get("id") ?? ""
        let id = raw.removingPercentEncoding ?? raw
        let parameters = try await Auth0Parameters.body(of: request)
        let email = try parameters.required("email")
        guard Self.looksLikeEmail(email) else { throw Auth0Failure.invalidRequest("email must be an email address.") }
        let ticket = randomToken(bytes: 24)
        let expiresAt = now.addingTimeInterval(Auth0Invitation.lifetime)
        let invitation = Auth0Invitation(organizationId: id, email: email.lowercased(), expiresAt: expiresAt)
        let organization: Auth0Organization? = await state.update(Auth0Tenant.key) { tenant in
            guard id.count <= 100, let organization = tenant.organizations[id] else { return nil }
            tenant.invitations[Auth0Tenant.digest(ticket)] = invitation
            return organization
        }
        guard let organization else {
            throw Auth0Failure.oauth("not_found", "The organization does not exist.", status: .notFound)
        }
        let url = await issuer(for: request) + "login?" + [
            ("invitation", ticket), ("organization", organization.id), ("organization_name", organization.name),
        ].map { "\($0)=\(Self.formEncode($1))" }.joined(separator: "&")
        return EmulatorResponse.json([
            "invitation_url": .string(url), "ticket_id": .string(ticket), "organization_id": .string(organization.id),
            "email": .string(invitation.email), "expires_at": .string(Auth0Tenant.timestamp(expiresAt)),
        ], status: .created, headers: [.cacheControl: "no-store"])
    }

    /// `POST /auth0/__emulator/attack-protection` (emulator only): `{"bot_detection": Bool}` turns
    /// Auth0's Bot Detection on or off for the tenant (default off) → 200 `{bot_detection}`. When on,
    /// the `password` and `password-realm` grants answer `401 requires_verification` ("Suspicious
    /// request requires verification", AuthHubAuth0 docs, Auth0Errors: “Helpers and canonical codes” `isVerificationRequired`), and the login and
    /// sign-up pages show a CAPTCHA step (the `captcha` checkbox, "I am not a robot") that must be
    /// ticked. A missing or non-Boolean value is `400 invalid_request`.
    func setAttackProtection(_ request: Request) async throws -> Response {
        let parameters = try await Auth0Parameters.body(of: request)
        guard let on = parameters["bot_detection"]?.boolValue else {
            throw Auth0Failure.invalidRequest("bot_detection must be a boolean.")
        }
        await state.update(Auth0Tenant.key) { tenant in tenant.botDetection = on }
        return EmulatorResponse.json(["bot_detection": .bool(on)])
    }

    /// Whether `text` is a plausible email address of at most ``maximumEmailLength`` characters.
    static func looksLikeEmail(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        return text.count <= maximumEmailLength && parts.count == 2 && !parts[0].isEmpty && parts[1].contains(".")
            && !text.contains(where: \.isWhitespace)
    }

    /// `count` random letters and digits (Auth0's id alphabet; the slight modulo bias does not
    /// matter for identifiers).
    func alphanumericId(_ count: Int) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        return String(environment.random.bytes(count).map { alphabet[Int($0) % alphabet.count] })
    }
}
