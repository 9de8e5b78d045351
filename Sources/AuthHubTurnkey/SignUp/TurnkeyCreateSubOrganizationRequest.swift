import AuthHub

/// The body of the proxy's `POST /auth/createSubOrg` (tkhq/swift-sdk example backend
/// `CreateSubOrgParams`): `{email, passkey: {name, challenge, attestation: {credentialId,
/// clientDataJson, attestationObject, transports}}}`, every value base64url without padding.
struct TurnkeyCreateSubOrganizationRequest: Codable, Sendable {
    struct Passkey: Codable, Sendable {
        var name: String
        var challenge: String
        var attestation: Attestation
    }

    struct Attestation: Codable, Sendable {
        var credentialId: String
        var clientDataJson: String
        var attestationObject: String
        var transports: [String]
    }

    var email: String
    var passkey: Passkey
}
