import AuthHub

/// The body of a query about one user of an organization: `get_authenticators {organizationId, userId}`.
struct TurnkeyUserQuery: Codable, Sendable {
    var organizationId: String
    var userId: String
}
