import AuthHub
import Crypto
import Foundation

extension TurnkeyAPI {
    /// Creates the user's sub-organization through the app backend, with a passkey as its root
    /// user's credential: `POST <proxyURL>/auth/createSubOrg` `{email, passkey: {name, challenge,
    /// attestation: {credentialId, clientDataJson, attestationObject, transports}}}` →
    /// `{subOrganizationId}` (no stamp: the proxy holds the parent organization's key and calls
    /// `create_sub_organization`). This is the shape of Turnkey's own example backend (tkhq/swift-sdk
    /// `Examples/with-backend/example-server`: `POST /auth/createSubOrg`, `CreateSubOrgParams`);
    /// every value is base64url without padding; transports are Turnkey's enum names
    /// (`AUTHENTICATOR_TRANSPORT_INTERNAL`, …), unknown ones dropped (see ``authenticatorTransports``).
    /// - Returns: the new sub-organization's id.
    /// - Throws: errors mapped in the ``TurnkeyErrorMapper/Context/signUp`` context: a reply saying
    ///   the email already exists → ``AuthErrorCode/emailAlreadyInUse``; another `ALREADY_EXISTS`
    ///   (code 6) or HTTP 409 → ``AuthErrorCode/conflict``.
    package func createSubOrganization(email: String, passkeyName: String, challenge: [UInt8],
                                      registration: PasskeyRegistration) async throws -> String {
        var base = configuration.proxyURL.absoluteString
        if !base.hasSuffix("/") { base += "/" }
        let body = TurnkeyCreateSubOrganizationRequest(
            email: email,
            passkey: .init(name: passkeyName, challenge: Base64URL.encode(challenge), attestation: TurnkeyAttestation(registration)))
        let request = try APIRequest.json(.post, base + Self.createSubOrganizationPath, body, retry: .never, operation: .signUp)
        return try await client(.signUp, baseURL: configuration.proxyURL)
            .send(request, as: TurnkeyCreateSubOrganizationReply.self).subOrganizationId
    }
}
