import AuthHub
import Crypto
import Foundation

extension TurnkeyAPI {
    /// `whoami {organizationId}` (<doc:TurnkeyProtocol>: “whoami”).
    public func whoami(organizationId: String, stamper: any TurnkeyStamper,
                       errorContext: TurnkeyErrorMapper.Context = .request) async throws -> TurnkeyWhoami {
        try await query("whoami", body: TurnkeyOrganizationQuery(organizationId: organizationId), as: TurnkeyWhoami.self, stamper: stamper,
                        errorContext: errorContext, operation: errorContext == .refresh ? .refresh : .userInfo)
    }

    /// `stamp_login` (<doc:TurnkeyProtocol>: “stamp_login”): registers `publicKey` as a session key and returns the session JWT.
    /// - Parameters:
    ///   - publicKey: the compressed hex public key of the new session key.
    ///   - expirationSeconds: the session lifetime (sent as a string).
    package func stampLogin(organizationId: String, publicKey: String, expirationSeconds: Int, invalidateExisting: Bool? = nil,
                           stamper: any TurnkeyStamper, errorContext: TurnkeyErrorMapper.Context = .passkeyLogin) async throws -> Secret<String> {
        let parameters = TurnkeyStampLoginParameters(publicKey: publicKey, expirationSeconds: String(expirationSeconds),
                                                     invalidateExisting: invalidateExisting)
        let reply = try await submit("stamp_login", type: "ACTIVITY_TYPE_STAMP_LOGIN", organizationId: organizationId,
                                     parameters: parameters, result: TurnkeyStampLoginResult.self, stamper: stamper,
                                     errorContext: errorContext, operation: errorContext == .refresh ? .refresh : .signIn)
        return Secret(reply.result.session)
    }
}
