import AuthHub

/// The parameters of `ACTIVITY_TYPE_STAMP_LOGIN`: the new session key, the lifetime as a string,
/// and `invalidateExisting` when set.
struct TurnkeyStampLoginParameters: Codable, Sendable {
    var publicKey: String
    var expirationSeconds: String
    var invalidateExisting: Bool?
}
