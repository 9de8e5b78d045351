import AuthHub
import Foundation

/// A Turnkey activity as returned by `/public/v1/submit/*` and `get_activity` (<doc:TurnkeyProtocol>: “Activities”):
/// the members AuthHub reads.
public struct TurnkeyActivity: Sendable, Hashable {
    /// `ACTIVITY_STATUS_COMPLETED`.
    public static let completed = "ACTIVITY_STATUS_COMPLETED"
    /// `ACTIVITY_STATUS_FAILED`.
    public static let failed = "ACTIVITY_STATUS_FAILED"
    /// `ACTIVITY_STATUS_REJECTED`.
    public static let rejected = "ACTIVITY_STATUS_REJECTED"
    /// `ACTIVITY_STATUS_CONSENSUS_NEEDED`.
    public static let consensusNeeded = "ACTIVITY_STATUS_CONSENSUS_NEEDED"
    /// The terminal statuses; any other status (CREATED, PENDING) is polled.
    public static let terminalStatuses: Set<String> = [completed, failed, rejected, consensusNeeded]

    /// The activity id.
    public var id: String
    /// The organization the activity ran in.
    public var organizationId: String?
    /// `ACTIVITY_STATUS_…`.
    public var status: String
    /// `ACTIVITY_TYPE_…`.
    public var type: String?
    /// `result`, keyed by result name (e.g. `stampLoginResult`).
    public var result: [String: JSONValue]
    /// `failure` `{code, message, details}` of a failed activity.
    public var failure: JSONValue?

    /// Whether the status is terminal.
    public var isTerminal: Bool { Self.terminalStatuses.contains(status) }

    /// Creates an activity from values.
    public init(id: String, organizationId: String? = nil, status: String, type: String? = nil,
                result: [String: JSONValue] = [:], failure: JSONValue? = nil) {
        self.id = id
        self.organizationId = organizationId
        self.status = status
        self.type = type
        self.result = result
        self.failure = failure
    }

    /// Reads the `activity` member of a reply.
    /// - Throws: ``AuthErrorCode/invalidRequest`` when the reply has no activity with an id and status.
    public init(reply: JSONValue, provider: String) throws {
        guard let activity = reply["activity"]?.objectValue,
              let id = activity["id"]?.stringValue, let status = activity["status"]?.stringValue else {
            throw AuthError(.invalidRequest, message: "The reply from '\(provider)' has no activity with an id and a status.", provider: provider)
        }
        self.init(id: id, organizationId: activity["organizationId"]?.stringValue, status: status, type: activity["type"]?.stringValue,
                  result: activity["result"]?.objectValue ?? [:], failure: activity["failure"])
    }

    /// The first of `keys` present in ``result``.
    /// - Throws: ``AuthErrorCode/invalidRequest`` naming the missing result.
    public func result(_ keys: String..., provider: String) throws -> JSONValue {
        for key in keys { if let value = result[key], value != .null { return value } }
        throw AuthError(.invalidRequest, message: "The completed Turnkey activity \(id) has no \(keys.joined(separator: " or ")).",
                        provider: provider)
    }
}
