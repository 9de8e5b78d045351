import AuthHub

/// The body of `get_activity {organizationId, activityId}`.
struct TurnkeyGetActivityQuery: Codable, Sendable {
    var organizationId: String
    var activityId: String
}
