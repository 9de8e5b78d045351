import AuthHub

/// The body of `list_suborgs {organizationId, filterType, filterValue}`.
struct TurnkeyListSubOrganizationsQuery: Codable, Sendable {
    var organizationId: String
    var filterType: String
    var filterValue: String
}
