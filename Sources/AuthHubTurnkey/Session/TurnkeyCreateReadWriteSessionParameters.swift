import AuthHub

/// The parameters of `ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2`.
struct TurnkeyCreateReadWriteSessionParameters: Codable, Sendable {
    var targetPublicKey: String
    var userId: String?
    var apiKeyName: String?
    var expirationSeconds: String?
}
