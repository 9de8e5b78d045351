import enum AuthHub.JSONValue
import enum AuthHub.Base64URL
import Foundation
import Hummingbird

/// The queries (`/turnkey/public/v1/query/…`, AuthHubTurnkey docs, TurnkeyProtocol: “Email lookup” and “whoami”) and the app-backend proxy (AuthHubTurnkey docs, TurnkeyProtocol: “Email lookup”).
extension TurnkeyService {
    /// The `filterType`s of AuthHubTurnkey docs, TurnkeyProtocol: “Email lookup”. The emulator keeps no phone numbers, OIDC tokens or wallets,
    /// so those filters match nothing.
    static let filterTypes: Set<String> = [
        "CREDENTIAL_ID", "NAME", "USERNAME", "EMAIL", "PHONE_NUMBER", "OIDC_TOKEN", "WALLET_ACCOUNT_ADDRESS", "PUBLIC_KEY",
    ]

    /// Whether the sub-organization matches a filter (`EMAIL`, `USERNAME` and `NAME` ignore case).
    static func matches(_ organization: TurnkeyOrganization, filterType: String, value: String) -> Bool {
        let lowered = value.lowercased()
        switch filterType {
        case "EMAIL": return organization.users.contains { $0.email == lowered }
        case "USERNAME": return organization.users.contains { $0.userName.lowercased() == lowered }
        case "NAME": return organization.name.lowercased() == lowered
        case "PUBLIC_KEY": return organization.users.contains { $0.apiKeys.contains { $0.publicKey == lowered } }
        case "CREDENTIAL_ID":
            let id = Base64URL.decode(value).map(Array.init)
            return organization.users.contains { user in
                user.authenticators.contains { $0.credential.id == id || Base64URL.encode($0.credential.id) == value }
            }
        default: return false
        }
    }

    /// Checks a filter pair: both absent (no filter) or a known type with a non-empty value.
    static func filter(type: String?, value: String?) throws -> (type: String, value: String)? {
        if type == nil, value == nil { return nil }
        guard let type, !type.isEmpty else { throw TurnkeyFailure.invalid("filterType", "required with filterValue") }
        guard filterTypes.contains(type) else {
            throw TurnkeyFailure.invalid("filterType", "must be one of \(filterTypes.sorted().joined(separator: ", "))")
        }
        guard let value, !value.isEmpty else { throw TurnkeyFailure.invalid("filterValue", "required with filterType") }
        return (type, value)
    }

    /// The ids of the sub-organizations of `parents` (all parents when nil) matching `filter`.
    func subOrganizationIds(parents: [String]?, filter: (type: String, value: String)?) async -> [String] {
        let directory = await state.get(TurnkeyDirectory.key)
        let parentIds = parents ?? directory.organizations.values.filter { $0.parentId == nil }.map(\.id).sorted()
        return parentIds.flatMap { directory.subOrganizations(of: $0) }
            .filter { organization in filter.map { Self.matches(organization, filterType: $0.type, value: $0.value) } ?? true }
            .map(\.id)
    }

    /// Whether the proxy serves the lookup route (``TurnkeyConfig/proxyLookup``).
    func servesProxyLookup() async -> Bool {
        await state.get(TurnkeyDirectory.key).config.proxyLookup
    }

    /// `GET /turnkey-proxy/proxy/sub-org-ids?filterType=…&filterValue=…[&organizationId=<parent>]`
    /// → `{"organizationIds": […]}` (no stamp: the proxy holds the parent key).
    func proxySubOrgIds(_ request: Request) async throws -> JSONValue {
        let query = request.queryValues
        guard let type = query["filterType"], !type.isEmpty else {
            throw TurnkeyFailure.invalid("filterType", "required query parameter")
        }
        let filter = try Self.filter(type: type, value: query["filterValue"])
        let parent = query["organizationId"].flatMap { $0.isEmpty ? nil : [$0] }
        return ["organizationIds": .array(await subOrganizationIds(parents: parent, filter: filter).map(JSONValue.string))]
    }

    /// `POST /turnkey/public/v1/query/list_suborgs` `{organizationId, filterType?, filterValue?,
    /// paginationOptions?}` → `{"organizationIds": […]}`, stamped with a key of that (parent) organization.
    func listSubOrgs(_ request: Request) async throws -> JSONValue {
        let stamp = try Self.stamp(of: request)
        let body = try await Self.rawBody(request)
        let object = try Self.object(body)
        let organizationId = try Self.string(object, "organizationId")
        let filter = try Self.filter(
            type: try Self.optionalString(object, "filterType"), value: try Self.optionalString(object, "filterValue")
        )
        if let pagination = object["paginationOptions"], pagination != .null, pagination.objectValue == nil {
            throw TurnkeyFailure.invalid("paginationOptions", "must be an object")
        }
        let owner = try await authenticate(stamp, body: body, organizationId: organizationId)
        guard owner.organizationId == organizationId else { throw TurnkeyFailure.publicKeyNotFound }
        return ["organizationIds": .array(await subOrganizationIds(parents: [organizationId], filter: filter).map(JSONValue.string))]
    }

    /// `POST /turnkey/public/v1/query/whoami` `{organizationId}` → `{organizationId, organizationName,
    /// userId, username}` of the stamp's owner (a passkey or key presented with a parent
    /// organization id answers with its sub-organization).
    func whoami(_ request: Request) async throws -> JSONValue {
        let stamp = try Self.stamp(of: request)
        let body = try await Self.rawBody(request)
        let object = try Self.object(body)
        let organizationId = try Self.string(object, "organizationId")
        let owner = try await authenticate(stamp, body: body, organizationId: organizationId)
        let directory = await state.get(TurnkeyDirectory.key)
        guard let organization = directory.organizations[owner.organizationId], let user = directory.user(owner) else {
            throw TurnkeyFailure.publicKeyNotFound
        }
        return [
            "organizationId": .string(organization.id), "organizationName": .string(organization.name),
            "userId": .string(user.id), "username": .string(user.userName),
        ]
    }
}
