import enum AuthHub.JSONValue
import Foundation
import HTTPTypes
import Hummingbird

/// The user endpoints of the Management API (AuthHubAuth0 docs, Auth0Endpoints: “Management API users”) under `/auth0/api/v2/`, for
/// user-scoped tokens.
///
/// Authentication: `Authorization: Bearer <access token>` issued for the audience
/// `<issuer>api/v2/` and not expired, else `401`. The emulator issues only user-scoped tokens, so
/// a token reaches only its own user (another user id is `403`); the scopes are
/// `read:current_user` (GET), `update:current_user_metadata` (PATCH) and
/// `update:current_user_identities` (link and unlink; the emulator also accepts the server-side
/// link body `{provider, user_id, connection_id?}` with it, since it has no machine tokens).
/// Errors are `{statusCode, error, message, errorCode}` (``Auth0Failure/management(_:_:errorCode:)``):
/// - `401` `Missing authentication` / `missing_authentication` without a bearer token;
///   `Invalid token` / `invalid_token` for an unknown, expired or other-audience token;
/// - `403` `Insufficient scope, expected any of: <scope>` / `insufficient_scope`, and
///   `A user-scoped token can only access its own user.` / `insufficient_scope`;
/// - `404` `The user does not exist.` / `inexistent_user`;
/// - `400` `Payload validation error: …` / `invalid_body` (also for a `link_with` token that is
///   not a valid ID token of this tenant for the caller's application).
///
/// Linking moves the secondary user, whole, into the primary's ``Auth0User/linked`` list (its
/// identity appears in `identities`, and it is no longer a user of its own); unlinking makes it a
/// user again. Signing in with a linked secondary account's own credentials is not emulated.
extension Auth0Service {
    /// Management API scopes of user-scoped tokens (AuthHubAuth0 docs, Auth0Endpoints: “Management API users”).
    enum ManagementScope {
        static let read = "read:current_user"
        static let updateMetadata = "update:current_user_metadata"
        static let identities = "update:current_user_identities"
    }

    /// Connections whose users are not social (`isSocial: false`) by provider.
    static let nonSocialProviders: Set<String> = ["auth0", "email", "sms"]

    /// The grant of the request's bearer token, checked for the Management audience, `scope`
    /// and access to `userId`. A DPoP-bound token must come as `Authorization: DPoP` with a proof
    /// (``checkPresentation(_:of:request:)``); a DPoP refusal is a 401 `{statusCode, error, message,
    /// errorCode}` (`errorCode` the DPoP error) with the `DPoP` challenge in `WWW-Authenticate`.
    func managementGrant(_ request: Request, scope: String, userId: String) async throws -> Auth0Grant {
        guard let presented = request.presentedAccessToken else {
            throw Auth0Failure.management(.unauthorized, "Missing authentication", errorCode: "missing_authentication")
        }
        let issuer = await issuer(for: request)
        let tenant = await state.get(Auth0Tenant.key)
        guard let access = tenant.accessTokens[Auth0Tenant.digest(presented.token)], access.expiresAt > now,
              let audience = access.grant.audience, Auth0API.management.matches(audience, issuer: issuer)
        else { throw Auth0Failure.management(.unauthorized, "Invalid token", errorCode: "invalid_token") }
        do {
            try await checkPresentation(presented, of: access, request: request)
        } catch {
            throw error.resourceFailure { code, description in .management(.unauthorized, description, errorCode: code) }
        }
        guard access.grant.scopeSet.contains(scope) else {
            throw Auth0Failure.management(.forbidden, "Insufficient scope, expected any of: \(scope)", errorCode: "insufficient_scope")
        }
        guard access.grant.userId == userId else {
            throw Auth0Failure.management(.forbidden, "A user-scoped token can only access its own user.", errorCode: "insufficient_scope")
        }
        return access.grant
    }

    /// A path parameter, percent-decoded (`auth0%7C…` → `auth0|…`).
    static func pathParameter(_ name: String, _ context: EmulatorRequestContext) -> String {
        let raw = context.parameters.get(name) ?? ""
        return raw.removingPercentEncoding ?? raw
    }

    static let inexistentUser = Auth0Failure.management(.notFound, "The user does not exist.", errorCode: "inexistent_user")

    static func invalidBody(_ message: String) -> Auth0Failure {
        Auth0Failure.management(.badRequest, message, errorCode: "invalid_body")
    }

    // MARK: - User JSON

    /// The user as the Management API shows it: `user_id, email, email_verified, name, nickname,
    /// picture, identities, user_metadata, app_metadata, created_at, updated_at`, plus the
    /// profile attributes and `username` when set.
    func managementUserJSON(_ user: Auth0User) -> [String: JSONValue] {
        var body = user.attributes
        let label = Self.accountLabel(user)
        body["user_id"] = .string(user.userId)
        if !user.email.isEmpty {
            body["email"] = .string(user.email)
            body["email_verified"] = .bool(user.emailVerified)
        }
        if let username = user.username { body["username"] = .string(username) }
        body["name"] = user.attributes["name"] ?? .string(label)
        let nickname = String(label.split(separator: "@").first ?? Substring(label))
        body["nickname"] = user.attributes["nickname"] ?? .string(nickname)
        let initials = String(nickname.lowercased().filter { $0.isLetter && $0.isASCII }.prefix(2))
        body["picture"] = user.attributes["picture"] ?? .string("https://cdn.auth0.com/avatars/\(initials.isEmpty ? "xx" : initials).png")
        body["identities"] = .array(identitiesJSON(user))
        body["user_metadata"] = .object(user.userMetadata)
        body["app_metadata"] = .object(user.appMetadata)
        body["created_at"] = .string(Auth0Tenant.timestamp(user.createdAt))
        body["updated_at"] = .string(Auth0Tenant.timestamp(user.updatedAt))
        return body
    }

    /// The user's identities: its own first, then the linked ones (with `profileData`).
    func identitiesJSON(_ user: Auth0User) -> [JSONValue] {
        [identityJSON(user, linked: false)] + user.linked.map { identityJSON($0, linked: true) }
    }

    /// `{provider, user_id (without the provider), connection, isSocial}`.
    func identityJSON(_ user: Auth0User, linked: Bool) -> JSONValue {
        var body: [String: JSONValue] = [
            "provider": .string(user.provider), "user_id": .string(user.shortId), "connection": .string(user.connection),
            "isSocial": .bool(!Self.nonSocialProviders.contains(user.provider)),
        ]
        if linked {
            var profile: [String: JSONValue] = [:]
            if !user.email.isEmpty {
                profile["email"] = .string(user.email)
                profile["email_verified"] = .bool(user.emailVerified)
            }
            for key in ["name", "given_name", "family_name", "phone_number"] {
                if let value = user.attributes[key] { profile[key] = value }
            }
            body["profileData"] = .object(profile)
        }
        return .object(body)
    }

    // MARK: - GET and PATCH

    /// `GET /api/v2/users/{id}[?fields=a,b&include_fields=true|false]`: the user, reduced to the
    /// listed top-level fields (or without them when `include_fields=false`); `include_fields`
    /// alone changes nothing.
    func getUser(_ request: Request, context: EmulatorRequestContext) async throws -> Response {
        let userId = Self.pathParameter("id", context)
        _ = try await managementGrant(request, scope: ManagementScope.read, userId: userId)
        guard let user = await state.get(Auth0Tenant.key).users[userId] else { throw Self.inexistentUser }
        var body = managementUserJSON(user)
        let query = Auth0Parameters.query(of: request)
        let fields = Set((query.string("fields") ?? "").split(separator: ",").map {
            $0.trimmingCharacters(in: .whitespaces)
        }.filter { !$0.isEmpty })
        if !fields.isEmpty {
            let include = query.string("include_fields")?.lowercased() != "false"
            body = body.filter { fields.contains($0.key) == include }
        }
        return EmulatorResponse.json(.object(body))
    }

    /// `PATCH /api/v2/users/{id}` `{"user_metadata":{…}}`: merges `user_metadata` at the top level
    /// (a key set to `null` is removed) and answers the user. Any other attribute is `400
    /// invalid_body`: user-scoped tokens may change only their metadata.
    func patchUser(_ request: Request, context: EmulatorRequestContext) async throws -> Response {
        let userId = Self.pathParameter("id", context)
        _ = try await managementGrant(request, scope: ManagementScope.updateMetadata, userId: userId)
        let body: Auth0Parameters
        do {
            body = try await Auth0Parameters.body(of: request)
        } catch {
            throw Self.invalidBody("Payload validation error: 'Expected type object but found type string'.")
        }
        let extra = body.values.keys.filter { $0 != "user_metadata" }.sorted()
        if !extra.isEmpty {
            throw Self.invalidBody("Payload validation error: 'Additional properties not allowed: \(extra.joined(separator: ","))'.")
        }
        guard let metadata = body["user_metadata"]?.objectValue else {
            throw Self.invalidBody("Payload validation error: 'Expected type object' on property user_metadata.")
        }
        let at = now
        let updated: Auth0User? = await state.update(Auth0Tenant.key) { tenant in
            guard var user = tenant.users[userId] else { return nil }
            for (key, value) in metadata {
                if value == .null { user.userMetadata[key] = nil } else { user.userMetadata[key] = value }
            }
            user.updatedAt = at
            tenant.users[userId] = user
            return user
        }
        guard let updated else { throw Self.inexistentUser }
        return EmulatorResponse.json(.object(managementUserJSON(updated)))
    }

    // MARK: - Account linking

    private enum LinkOutcome: Sendable {
        case identities([JSONValue])
        case refused(Auth0Failure)
    }

    /// `POST /api/v2/users/{primaryId}/identities` with `{link_with:<ID token>}` (an ID token
    /// this emulator issued, signed with its key (RS256 unless the module says ES256), not expired, whose `aud` is the calling token's client) or
    /// `{provider, user_id, connection_id?}` → `201` with the primary's identities.
    func linkIdentity(_ request: Request, context: EmulatorRequestContext) async throws -> Response {
        let primaryId = Self.pathParameter("id", context)
        let grant = try await managementGrant(request, scope: ManagementScope.identities, userId: primaryId)
        let body: Auth0Parameters
        do {
            body = try await Auth0Parameters.body(of: request)
        } catch {
            throw Self.invalidBody("Payload validation error: 'Expected type object but found type string'.")
        }
        let secondaryId: String
        if let token = body.string("link_with") {
            secondaryId = try await linkedSubject(token, clientId: grant.clientId, request: request)
        } else if let provider = body.string("provider"), let userId = body.string("user_id") {
            secondaryId = userId.hasPrefix(provider + "|") ? userId : provider + "|" + userId
        } else {
            throw Self.invalidBody("Payload validation error: 'Missing required property: link_with' (or provider and user_id).")
        }
        guard secondaryId != primaryId else { throw Self.invalidBody("Main identity and the new one are the same.") }
        let at = now
        let outcome: LinkOutcome = await state.update(Auth0Tenant.key) { tenant in
            guard var primary = tenant.users[primaryId], var secondary = tenant.users.removeValue(forKey: secondaryId) else {
                return .refused(Self.inexistentUser)
            }
            let nested = secondary.linked
            secondary.linked = []
            primary.linked.append(secondary)
            primary.linked.append(contentsOf: nested)
            primary.updatedAt = at
            tenant.users[primaryId] = primary
            return .identities(identitiesJSON(primary))
        }
        switch outcome {
        case .refused(let failure): throw failure
        case .identities(let list): return EmulatorResponse.json(.array(list), status: .created)
        }
    }

    /// The `sub` of a `link_with` token: an ID token signed with this emulator's key, issued by
    /// this tenant, not expired, with `aud` (or one of its audiences) equal to `clientId`.
    func linkedSubject(_ token: String, clientId: String, request: Request) async throws -> String {
        guard let claims = await signingKey.verifiedClaims(token) else {
            throw Self.invalidBody("link_with must be an ID token signed by this tenant (the signature does not verify).")
        }
        guard claims["iss"]?.stringValue == (await issuer(for: request)) else {
            throw Self.invalidBody("link_with was issued by another tenant.")
        }
        guard let expiry = claims["exp"]?.intValue, Double(expiry) > now.timeIntervalSince1970 else {
            throw Self.invalidBody("link_with has expired.")
        }
        let audiences = claims["aud"]?.stringValue.map { [$0] } ?? claims["aud"]?.arrayValue?.compactMap(\.stringValue) ?? []
        guard audiences.contains(clientId) else {
            throw Self.invalidBody("The audience of link_with must be the client of the calling token (its azp).")
        }
        guard let subject = claims["sub"]?.stringValue else { throw Self.invalidBody("link_with has no sub claim.") }
        return subject
    }

    /// `DELETE /api/v2/users/{primaryId}/identities/{provider}/{secondaryUserId}` → `200` with the
    /// remaining identities; the unlinked identity becomes a user of its own again. The primary
    /// identity cannot be unlinked (`400`); an identity not linked is `404 inexistent_identity`.
    func unlinkIdentity(_ request: Request, context: EmulatorRequestContext) async throws -> Response {
        let primaryId = Self.pathParameter("id", context)
        let provider = Self.pathParameter("provider", context)
        let secondaryShortId = Self.pathParameter("secondary", context)
        _ = try await managementGrant(request, scope: ManagementScope.identities, userId: primaryId)
        let outcome: LinkOutcome = await state.update(Auth0Tenant.key) { tenant in
            guard var primary = tenant.users[primaryId] else { return .refused(Self.inexistentUser) }
            if primary.provider == provider, primary.shortId == secondaryShortId {
                return .refused(Self.invalidBody("Main identity cannot be removed."))
            }
            guard let index = primary.linked.firstIndex(where: { $0.provider == provider && $0.shortId == secondaryShortId }) else {
                return .refused(.management(.notFound, "The identity is not linked to the user.", errorCode: "inexistent_identity"))
            }
            let secondary = primary.linked.remove(at: index)
            tenant.users[secondary.userId] = secondary
            tenant.users[primaryId] = primary
            return .identities(identitiesJSON(primary))
        }
        switch outcome {
        case .refused(let failure): throw failure
        case .identities(let list): return EmulatorResponse.json(.array(list))
        }
    }
}
