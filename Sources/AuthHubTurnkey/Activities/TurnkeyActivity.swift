import AuthHub
import Foundation

/// A Turnkey activity as returned by `/public/v1/submit/*` and `get_activity` (<doc:TurnkeyProtocol>: “Activities”):
/// the members AuthHub reads.
public struct TurnkeyActivity: Sendable, Hashable, Codable {
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
    /// `result`, keyed by result name (e.g. `stampLoginResult`). Open: each activity type has its
    /// own result, read by name (AuthHub decodes the ones it uses into typed results).
    public var result: [String: JSONValue]
    /// `failure` `{code, message, details}` of a failed activity: an error body, open as the
    /// error mapper reads it.
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

    enum CodingKeys: String, CodingKey { case id, organizationId, status, type, result, failure }

    /// Reads an activity: `id` and `status` are required strings; a `result` that is not an object reads as empty.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(id: try c.decode(String.self, forKey: .id),
                  organizationId: (try? c.decodeIfPresent(String.self, forKey: .organizationId)) ?? nil,
                  status: try c.decode(String.self, forKey: .status),
                  type: (try? c.decodeIfPresent(String.self, forKey: .type)) ?? nil,
                  result: ((try? c.decodeIfPresent([String: JSONValue].self, forKey: .result)) ?? nil) ?? [:],
                  failure: try c.decodeIfPresent(JSONValue.self, forKey: .failure))
    }

    /// The first of `keys` present in ``result``.
    /// - Throws: ``AuthErrorCode/invalidRequest`` naming the missing result.
    public func result(_ keys: String..., provider: String) throws -> JSONValue {
        for key in keys { if let value = result[key], value != .null { return value } }
        throw AuthError(.invalidRequest, message: "The completed Turnkey activity \(id) has no \(keys.joined(separator: " or ")).",
                        provider: provider)
    }
}
