import AuthHub

/// The body of a query about one organization: `whoami {organizationId}`.
struct TurnkeyOrganizationQuery: Codable, Sendable {
    var organizationId: String
}
