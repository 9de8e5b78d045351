import AuthHub

/// `createReadWriteSessionResultV2` (or the V1 `createReadWriteSessionResult`) of a completed
/// `create_read_write_session`: `credentialBundle` and `apiKeyId` are required.
struct TurnkeyReadWriteSessionResult: TurnkeyActivityResult {
    static let resultKeys = ["createReadWriteSessionResultV2", "createReadWriteSessionResult"]

    var organizationId: String?
    var organizationName: String?
    var userId: String?
    var username: String?
    var apiKeyId: String
    var credentialBundle: String
}
