import AuthHub
import Crypto
import Foundation

extension TurnkeyAPI {
    /// `create_read_write_session` V2 (<doc:TurnkeyProtocol>: “create_read_write_session”): a new API key for the user, encrypted to
    /// `targetPrivateKey`'s package key (sent uncompressed), decrypted here.
    package func createReadWriteSession(organizationId: String, targetPrivateKey: P256.KeyAgreement.PrivateKey, userId: String? = nil,
                                       apiKeyName: String? = nil, expirationSeconds: Int? = nil, stamper: any TurnkeyStamper,
                                       errorContext: TurnkeyErrorMapper.Context = .request) async throws -> TurnkeyReadWriteSession {
        let parameters = TurnkeyCreateReadWriteSessionParameters(
            targetPublicKey: TurnkeyKeys.uncompressedHex(targetPrivateKey.publicKey), userId: userId, apiKeyName: apiKeyName,
            expirationSeconds: expirationSeconds.map { String($0) })
        let result = try await submit("create_read_write_session", type: "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2",
                                      organizationId: organizationId, parameters: parameters, result: TurnkeyReadWriteSessionResult.self,
                                      stamper: stamper, errorContext: errorContext, operation: .tokenExchange).result
        let bundle = result.credentialBundle
        let apiKeyId = result.apiKeyId
        let key: P256.Signing.PrivateKey
        do { key = try TurnkeyCredentialBundle.decrypt(bundle, receiverPrivateKey: targetPrivateKey) } catch let error as AuthError {
            throw error.with(provider: providerID)
        }
        return TurnkeyReadWriteSession(organizationId: result.organizationId ?? organizationId,
                                       organizationName: result.organizationName,
                                       userId: result.userId ?? userId ?? "",
                                       username: result.username, apiKeyId: apiKeyId,
                                       stamper: TurnkeyAPIKeyStamper(privateKey: key))
    }
}
