import enum AuthHub.JSONValue
import struct AuthHubFactors.WebAuthnCredentialRecord
import Foundation

/// An API key (or session key) of a Turnkey user: a compressed P-256 public key, optionally expiring.
struct TurnkeyAPIKey: Sendable, Equatable {
    var id: String
    var name: String
    /// Compressed P-256 public key, lower-case hex (66 characters).
    var publicKey: String
    var createdAt: Date
    /// When the key stops authenticating; nil = never.
    var expiresAt: Date?
    /// Created by `stamp_login` / `create_read_write_session` (removed by `invalidateExisting`).
    var isSession: Bool

    func isExpired(at now: Date) -> Bool { expiresAt.map { $0 <= now } ?? false }
}

/// A passkey of a Turnkey user.
struct TurnkeyAuthenticator: Sendable, Equatable {
    var id: String
    var name: String
    var credential: WebAuthnCredentialRecord
    var createdAt: Date
}

/// A user of an organization.
struct TurnkeyUser: Sendable, Equatable {
    var id: String
    var userName: String
    /// Lower-cased.
    var email: String?
    var authenticators: [TurnkeyAuthenticator] = []
    var apiKeys: [TurnkeyAPIKey] = []
}

/// A parent organization (the app's) or a sub-organization (one per end user).
struct TurnkeyOrganization: Sendable, Equatable {
    var id: String
    var name: String
    /// The parent of a sub-organization; nil for a parent organization.
    var parentId: String?
    var users: [TurnkeyUser] = []
    var createdAt: Date
}

/// One activity (AuthHubTurnkey docs, TurnkeyProtocol: “Activities”) as the emulator keeps it.
struct TurnkeyActivity: Sendable {
    /// What completing the activity changes.
    enum Effect: Sendable {
        /// An API or session key added to a user (`invalidateExisting`: the user's other session keys removed).
        case apiKey(organizationId: String, userId: String, key: TurnkeyAPIKey, invalidateExisting: Bool)
        /// Passkeys added to a user.
        case addAuthenticators(TurnkeyDirectory.Owner, [TurnkeyAuthenticator])
        /// Passkeys removed from a user, by id.
        case deleteAuthenticators(TurnkeyDirectory.Owner, [String])
    }

    var id: String
    var organizationId: String
    var type: String
    var intentKey: String
    var intent: JSONValue
    var resultKey: String
    /// The result once completed (when the final status is `COMPLETED`).
    var result: JSONValue
    var fingerprint: String
    var createdAt: Date
    var updatedAt: Date
    /// The status the activity ends in.
    var finalStatus: String
    /// `get_activity` polls left before it reaches ``finalStatus`` (0 = terminal).
    var pollsLeft: Int
    /// Applied when the activity completes with `COMPLETED`.
    var effect: Effect?
    var failure: JSONValue?

    var status: String { pollsLeft > 0 ? "ACTIVITY_STATUS_PENDING" : finalStatus }

    /// The activity envelope of AuthHubTurnkey docs, TurnkeyProtocol: “Activities” (`{"activity": …}` is added by the caller).
    var json: JSONValue {
        var activity: [String: JSONValue] = [
            "id": .string(id), "organizationId": .string(organizationId), "status": .string(status),
            "type": .string(type), "intent": [intentKey: intent], "result": [:], "votes": [],
            "fingerprint": .string(fingerprint), "canApprove": false, "canReject": false,
            "createdAt": Self.timestamp(createdAt), "updatedAt": Self.timestamp(updatedAt),
        ]
        if status == "ACTIVITY_STATUS_COMPLETED" { activity["result"] = [resultKey: result] }
        if status == "ACTIVITY_STATUS_FAILED", let failure { activity["failure"] = failure }
        return .object(activity)
    }

    /// `{"seconds": "…", "nanos": "…"}` (strings).
    static func timestamp(_ date: Date) -> JSONValue {
        let interval = date.timeIntervalSince1970
        let seconds = interval.rounded(.down)
        let nanos = Int(((interval - seconds) * 1_000_000_000).rounded(.down))
        return ["seconds": .string(String(Int64(seconds))), "nanos": .string(String(max(0, nanos)))]
    }
}

/// The emulator-only settings (`/turnkey/__emulator/config`).
struct TurnkeyConfig: Sendable, Equatable {
    /// The RP ID passkeys are registered and asserted for.
    var rpId = "localhost"
    /// 0: activities complete synchronously; N > 0: they are `PENDING` until the N-th `get_activity`.
    var activityPendingPolls = 0
    /// One-shot final status of the next activity (`ACTIVITY_STATUS_FAILED`, `_REJECTED`,
    /// `_CONSENSUS_NEEDED`); nil = `COMPLETED`.
    var nextActivityOutcome: String?
    /// Whether the proxy serves `GET /turnkey-proxy/proxy/sub-org-ids`. Off, it plays a backend that
    /// serves only `POST /auth/createSubOrg` — Turnkey's own example backend — and the lookup is a
    /// plain `404 Cannot GET /proxy/sub-org-ids`, as a web framework answers an unrouted path.
    var proxyLookup = true

    static let outcomes: Set<String> = ["ACTIVITY_STATUS_COMPLETED", "ACTIVITY_STATUS_FAILED", "ACTIVITY_STATUS_REJECTED",
                                        "ACTIVITY_STATUS_CONSENSUS_NEEDED"]

    var json: JSONValue {
        [
            "rpId": .string(rpId), "activityPendingPolls": .number(Double(activityPendingPolls)),
            "nextActivityOutcome": nextActivityOutcome.map(JSONValue.string) ?? .null,
            "proxyLookup": .bool(proxyLookup),
        ]
    }
}

/// Everything the Turnkey module keeps: organizations (with users, passkeys and keys), activities
/// and settings. Stored in ``EmulatorState`` under ``key``; every check-then-write happens inside
/// one ``EmulatorState/update(_:_:)`` call.
struct TurnkeyDirectory: Sendable {
    static let key = EmulatorStateKey(module: "turnkey", name: "directory", initial: TurnkeyDirectory())

    /// By id.
    var organizations: [String: TurnkeyOrganization] = [:]
    /// By id.
    var activities: [String: TurnkeyActivity] = [:]
    var config = TurnkeyConfig()

    /// Where a credential was found: the ids of its organization and user.
    struct Owner: Sendable, Equatable {
        var organizationId: String
        var userId: String
    }

    /// The sub-organizations of `parentId`.
    func subOrganizations(of parentId: String) -> [TurnkeyOrganization] {
        organizations.values.filter { $0.parentId == parentId }.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    /// The organizations to search for a credential presented for `organizationId`: that
    /// organization, then its parent, then (for a parent) its sub-organizations.
    func searchOrder(for organizationId: String) -> [TurnkeyOrganization] {
        guard let organization = organizations[organizationId] else { return [] }
        var order = [organization]
        if let parentId = organization.parentId, let parent = organizations[parentId] { order.append(parent) }
        order += subOrganizations(of: organizationId)
        return order
    }

    /// The owner of the API key `publicKey` as seen from `organizationId`.
    func owner(ofKey publicKey: String, from organizationId: String) -> (Owner, TurnkeyAPIKey)? {
        for organization in searchOrder(for: organizationId) {
            for user in organization.users {
                if let key = user.apiKeys.first(where: { $0.publicKey == publicKey }) {
                    return (Owner(organizationId: organization.id, userId: user.id), key)
                }
            }
        }
        return nil
    }

    /// The owner of the passkey `credentialId` as seen from `organizationId`.
    func owner(ofCredential credentialId: [UInt8], from organizationId: String) -> (Owner, TurnkeyAuthenticator)? {
        for organization in searchOrder(for: organizationId) {
            for user in organization.users {
                if let authenticator = user.authenticators.first(where: { $0.credential.id == credentialId }) {
                    return (Owner(organizationId: organization.id, userId: user.id), authenticator)
                }
            }
        }
        return nil
    }

    /// The user at `owner`.
    func user(_ owner: Owner) -> TurnkeyUser? {
        organizations[owner.organizationId]?.users.first { $0.id == owner.userId }
    }

    /// Changes the user at `owner` in place.
    mutating func updateUser(_ owner: Owner, _ body: (inout TurnkeyUser) -> Void) {
        guard var organization = organizations[owner.organizationId],
              let index = organization.users.firstIndex(where: { $0.id == owner.userId }) else { return }
        body(&organization.users[index])
        organizations[owner.organizationId] = organization
    }

    /// Applies a completed activity's effect. Passkeys are checked again here (an activity may
    /// complete polls after it was submitted): one whose credential is registered by then is not
    /// added twice, and a removal that would leave the user without a passkey is dropped.
    mutating func apply(_ effect: TurnkeyActivity.Effect) {
        switch effect {
        case .apiKey(let organizationId, let userId, let key, let invalidateExisting):
            updateUser(Owner(organizationId: organizationId, userId: userId)) { user in
                if invalidateExisting { user.apiKeys.removeAll { $0.isSession } }
                user.apiKeys.removeAll { $0.publicKey == key.publicKey }
                user.apiKeys.append(key)
            }
        case .addAuthenticators(let owner, let authenticators):
            let fresh = authenticators.filter { !isRegistered(credential: $0.credential.id) }
            updateUser(owner) { user in user.authenticators += fresh }
        case .deleteAuthenticators(let owner, let ids):
            updateUser(owner) { user in
                let remaining = user.authenticators.filter { !ids.contains($0.id) }
                if !remaining.isEmpty { user.authenticators = remaining }
            }
        }
    }

    /// Whether any user of any organization holds the passkey `credential`.
    func isRegistered(credential: [UInt8]) -> Bool {
        organizations.values.contains { organization in
            organization.users.contains { $0.authenticators.contains { $0.credential.id == credential } }
        }
    }
}
