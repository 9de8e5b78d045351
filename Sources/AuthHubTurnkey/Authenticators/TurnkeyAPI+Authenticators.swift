import AuthHub
import Foundation

extension TurnkeyAPI {
    /// `ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2`.
    static let createAuthenticatorsType = "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2"
    /// `ACTIVITY_TYPE_DELETE_AUTHENTICATORS`.
    static let deleteAuthenticatorsType = "ACTIVITY_TYPE_DELETE_AUTHENTICATORS"

    /// The WebAuthn name of one of Turnkey's transports (`AUTHENTICATOR_TRANSPORT_HYBRID` →
    /// `hybrid`); nil for a name outside Turnkey's enum (``authenticatorTransports``).
    static func webAuthnTransportName(_ name: String) -> String? {
        let prefix = "AUTHENTICATOR_TRANSPORT_"
        return authenticatorTransports.contains(name) ? String(name.dropFirst(prefix.count)).lowercased() : nil
    }

    /// `POST /public/v1/query/get_authenticators {organizationId, userId}` → the user's passkey
    /// authenticators (<doc:TurnkeyProtocol>: “Authenticators”).
    package func authenticators(organizationId: String, userId: String, stamper: any TurnkeyStamper,
                                errorContext: TurnkeyErrorMapper.Context = .session) async throws -> [TurnkeyAuthenticator] {
        try await query("get_authenticators", body: TurnkeyUserQuery(organizationId: organizationId, userId: userId),
                        as: TurnkeyAuthenticatorsReply.self, stamper: stamper, errorContext: errorContext, operation: .mfa).authenticators
    }

    /// `POST /public/v1/submit/create_authenticators` (`ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2`,
    /// <doc:TurnkeyProtocol>: “Authenticators”): registers `registration` as a passkey of the user.
    /// - Parameters:
    ///   - name: the `authenticatorName`.
    ///   - challenge: the registration's challenge (sent base64url).
    /// - Returns: the new authenticator's id, when the result names one.
    package func createAuthenticator(organizationId: String, userId: String, name: String, challenge: [UInt8],
                                     registration: PasskeyRegistration, stamper: any TurnkeyStamper,
                                     errorContext: TurnkeyErrorMapper.Context = .session) async throws -> String? {
        let parameters = TurnkeyCreateAuthenticatorsParameters(
            authenticators: [.init(authenticatorName: name, challenge: Base64URL.encode(challenge), attestation: TurnkeyAttestation(registration))],
            userId: userId)
        return try await submit("create_authenticators", type: Self.createAuthenticatorsType, organizationId: organizationId,
                                parameters: parameters, result: TurnkeyCreateAuthenticatorsResult.self, stamper: stamper,
                                errorContext: errorContext, operation: .mfa).result.authenticatorIds.first
    }

    /// `POST /public/v1/submit/delete_authenticators` (`ACTIVITY_TYPE_DELETE_AUTHENTICATORS`,
    /// <doc:TurnkeyProtocol>: “Authenticators”) `{userId, authenticatorIds}`. Completion is what
    /// counts: the result (`deleteAuthenticatorsResult`, the ids again) is not read.
    package func deleteAuthenticators(organizationId: String, userId: String, authenticatorIds: [String], stamper: any TurnkeyStamper,
                                      errorContext: TurnkeyErrorMapper.Context = .session) async throws {
        _ = try await submitted("delete_authenticators", type: Self.deleteAuthenticatorsType, organizationId: organizationId,
                                parameters: TurnkeyDeleteAuthenticatorsParameters(userId: userId, authenticatorIds: authenticatorIds),
                                stamper: stamper, errorContext: errorContext, operation: .mfa)
    }
}
