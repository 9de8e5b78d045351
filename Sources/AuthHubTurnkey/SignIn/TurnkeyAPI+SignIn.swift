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

    /// `stamp_login` for a body serialised before (``stampLoginBody(organizationId:publicKey:expirationSeconds:)``)
    /// and stamped elsewhere (a browser's passkey): `stamper` must stamp exactly those bytes.
    package func stampLogin(organizationId: String, bodyBytes: [UInt8], stamper: any TurnkeyStamper) async throws -> Secret<String> {
        let (_, client, response) = try await submitted("stamp_login", type: "ACTIVITY_TYPE_STAMP_LOGIN", organizationId: organizationId,
                                                        bodyBytes: bodyBytes, stamper: stamper, errorContext: .passkeyLogin, operation: .signIn)
        return Secret(try client.decode(TurnkeyActivityResultReply<TurnkeyStampLoginResult>.self, from: response, operation: .signIn).result.session)
    }

    /// The exact bytes of a `stamp_login` request registering `publicKey` (what a passkey stamps).
    package func stampLoginBody(organizationId: String, publicKey: String, expirationSeconds: Int) throws -> [UInt8] {
        try TurnkeySignedRequest.serialise(activityRequest(type: "ACTIVITY_TYPE_STAMP_LOGIN", organizationId: organizationId,
                                                           parameters: TurnkeyStampLoginParameters(publicKey: publicKey,
                                                                                                   expirationSeconds: String(expirationSeconds),
                                                                                                   invalidateExisting: nil)))
    }
}
