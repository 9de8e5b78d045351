import AuthHub

/// The parameters of `ACTIVITY_TYPE_DELETE_AUTHENTICATORS`: `{userId, authenticatorIds}`.
struct TurnkeyDeleteAuthenticatorsParameters: Codable, Sendable {
    var userId: String
    var authenticatorIds: [String]
}
