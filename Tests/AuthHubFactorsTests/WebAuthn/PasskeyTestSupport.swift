import AuthHub
@testable import AuthHubFactors
import AuthHubTesting
import Crypto
import Foundation

/// A relying party, an authenticator and a store wired together, plus helpers to re-sign altered
/// authenticator data so a negative test changes exactly one property of a valid response.
struct PasskeyLab {
    static let rpID = "example.com"
    static let origin = "https://example.com"
    static let user = PasskeyUser(id: Array("user-0001".utf8), name: "ada@example.com", displayName: "Ada")

    let store = InMemoryPasskeyCredentialStore()
    let clock = FakeClock()
    let authenticator: SoftwarePasskeyAuthenticator
    var relyingParty = WebAuthnRelyingParty(id: PasskeyLab.rpID)

    init(_ configuration: SoftwarePasskeyAuthenticator.Configuration = .init()) throws {
        authenticator = try SoftwarePasskeyAuthenticator(store: store, configuration: configuration, clock: clock)
    }

    static func challenge() -> [UInt8] { SystemRandom().bytes(32) }

    static func registrationOptions(_ challenge: [UInt8], userVerification: PasskeyUserVerification = .preferred,
                                    residentKey: PasskeyResidentKey = .required) -> PasskeyRegistrationOptions {
        PasskeyRegistrationOptions(relyingParty: PasskeyRelyingParty(id: rpID, name: "Example"), user: user,
                                   challenge: challenge, userVerification: userVerification, residentKey: residentKey)
    }

    /// Registers a passkey and verifies it; returns the stored record.
    func register() async throws -> WebAuthnCredentialRecord {
        let challenge = Self.challenge()
        let registration = try await authenticator.makeCredential(Self.registrationOptions(challenge))
        return try relyingParty.verifyRegistration(registration, challenge: challenge)
    }

    /// An assertion over `challenge` for the RP.
    func assert(_ challenge: [UInt8], userVerification: PasskeyUserVerification = .preferred) async throws -> PasskeyAssertion {
        try await authenticator.getAssertion(PasskeyAssertionOptions(relyingPartyID: Self.rpID, challenge: challenge,
                                                                     userVerification: userVerification))
    }

    /// The stored private key of the credential that made `assertion`.
    func signingKey(for id: [UInt8]) async throws -> P256.Signing.PrivateKey {
        let credential = await store.credential(id: id)
        return try P256.Signing.PrivateKey(rawRepresentation: credential!.privateKey.revealed())
    }

    /// `assertion` with its authenticator data and/or client data replaced and signed again with the
    /// credential's real key, so only the replaced property is wrong.
    func resigned(_ assertion: PasskeyAssertion, authenticatorData: [UInt8]? = nil,
                  clientData: CollectedClientData? = nil) async throws -> PasskeyAssertion {
        var copy = assertion
        if let authenticatorData { copy.authenticatorData = authenticatorData }
        if let clientData { copy.clientDataJSON = clientData.jsonBytes }
        let key = try await signingKey(for: assertion.credentialID)
        let signature = try key.signature(for: copy.authenticatorData + Array(SHA256.hash(data: copy.clientDataJSON)))
        copy.signature = Array(signature.derRepresentation)
        return copy
    }

    /// `registration` with its attestation object rebuilt around altered authenticator data or a
    /// different format and statement.
    static func rebuilt(_ registration: PasskeyRegistration, authData: [UInt8]? = nil, format: String = "none",
                        statement: CBORValue = .map([])) -> PasskeyRegistration {
        var copy = registration
        let data = authData ?? registration.attestedAuthData
        copy.authenticatorData = data
        copy.attestationObject = CBOREncoder.encode(.map([
            CBORMapEntry(.text("fmt"), .text(format)), CBORMapEntry(.text("attStmt"), statement),
            CBORMapEntry(.text("authData"), .bytes(data)),
        ]))
        return copy
    }
}

extension PasskeyRegistration {
    /// The authenticator data inside the attestation object.
    var attestedAuthData: [UInt8] {
        (try? CBORDecoder.decode(attestationObject))?[text: "authData"]?.bytesValue ?? []
    }
}
