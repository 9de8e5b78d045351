import AuthHub

/// A passkey's registration as Turnkey takes it (`attestation` of `create_sub_organization`'s root
/// users and of `ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2`, <doc:TurnkeyProtocol>: “Authenticators”):
/// `{credentialId, clientDataJson, attestationObject, transports}`, the binary values base64url
/// without padding, the transports Turnkey's enum names (unknown ones dropped, see
/// `TurnkeyAPI.transportNames(_:)`). Shared by sign-up and passkey enrollment.
struct TurnkeyAttestation: Codable, Sendable, Equatable {
    var credentialId: String
    var clientDataJson: String
    var attestationObject: String
    var transports: [String]

    init(credentialId: String, clientDataJson: String, attestationObject: String, transports: [String]) {
        self.credentialId = credentialId
        self.clientDataJson = clientDataJson
        self.attestationObject = attestationObject
        self.transports = transports
    }

    /// The attestation of `registration`.
    init(_ registration: PasskeyRegistration) {
        self.init(credentialId: Base64URL.encode(registration.credentialID),
                  clientDataJson: Base64URL.encode(registration.clientDataJSON),
                  attestationObject: Base64URL.encode(registration.attestationObject),
                  transports: TurnkeyAPI.transportNames(registration.transports))
    }
}
