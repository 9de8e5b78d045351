import AuthHub
@testable import AuthHubFactors
import Crypto
import Foundation
import Testing

@Suite struct SoftwarePasskeyAuthenticatorTests {
    @Test func registrationHasTheWebAuthnShape() async throws {
        let lab = try PasskeyLab(.init(aaguid: Array(1...16), backupEligible: true, backedUp: false))
        let challenge: [UInt8] = Array(0..<32)
        let registration = try await lab.authenticator.makeCredential(PasskeyLab.registrationOptions(challenge))

        // clientDataJSON exactly as a browser serialises it.
        #expect(String(decoding: registration.clientDataJSON, as: UTF8.self)
            == #"{"type":"webauthn.create","challenge":"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8","origin":"https://example.com","crossOrigin":false}"#)

        // attestationObject: {fmt: "none", attStmt: {}, authData} in canonical order.
        let attestation = try CBORDecoder.decode(registration.attestationObject)
        #expect(attestation.mapValue?.map(\.key) == [.text("fmt"), .text("attStmt"), .text("authData")])
        #expect(attestation[text: "fmt"] == .text("none"))
        #expect(attestation[text: "attStmt"] == .map([]))
        #expect(attestation[text: "authData"]?.bytesValue == registration.authenticatorData)

        let authData = try AuthenticatorData(bytes: registration.attestedAuthData)
        #expect(authData.rpIDHash == Array(SHA256.hash(data: Data("example.com".utf8))))
        #expect(authData.flags == [.userPresent, .userVerified, .backupEligible, .attestedCredentialData])
        #expect(registration.attestedAuthData[32] == 0x4d)
        #expect(authData.signCount == 0)
        let attested = try #require(authData.attestedCredential)
        #expect(attested.aaguid == Array(1...16))
        #expect(attested.credentialID == registration.credentialID)
        #expect(attested.credentialID.count == 16)

        // The COSE key: kty 2, alg -7, crv 1, 32-byte x and y, matching the SPKI public key.
        let key = CBORValue.map(try #require(try CBORDecoder.decode(attested.publicKeyBytes).mapValue))
        #expect(key[int: 1] == .int(2))
        #expect(key[int: 3] == .int(-7))
        #expect(key[int: -1] == .int(1))
        #expect(key[int: -2]?.bytesValue?.count == 32 && key[int: -3]?.bytesValue?.count == 32)
        let spki = try P256.Signing.PublicKey(derRepresentation: try #require(registration.publicKeyDER))
        #expect(COSEKey(p256: spki) == attested.publicKey)
        #expect(registration.publicKeyAlgorithm == .es256)
        #expect(registration.transports == ["internal"])
        #expect(registration.authenticatorAttachment == "platform")
    }

    @Test func assertionSignsAuthenticatorDataAndClientDataHash() async throws {
        let lab = try PasskeyLab()
        let registration = try await lab.authenticator.makeCredential(PasskeyLab.registrationOptions(PasskeyLab.challenge()))
        let challenge = Array("turnkey-style ascii challenge".utf8)
        let assertion = try await lab.assert(challenge)
        #expect(assertion.credentialID == registration.credentialID)
        #expect(String(decoding: assertion.clientDataJSON, as: UTF8.self)
            == "{\"type\":\"webauthn.get\",\"challenge\":\"\(Base64URL.encode(challenge))\",\"origin\":\"https://example.com\",\"crossOrigin\":false}")
        let data = try AuthenticatorData(bytes: assertion.authenticatorData)
        #expect(assertion.authenticatorData.count == 37)
        #expect(data.flags == [.userPresent, .userVerified])
        #expect(data.signCount == 1)
        let key = try P256.Signing.PublicKey(derRepresentation: try #require(registration.publicKeyDER))
        let signature = try P256.Signing.ECDSASignature(derRepresentation: assertion.signature)
        #expect(key.isValidSignature(signature, for: assertion.authenticatorData + Array(SHA256.hash(data: assertion.clientDataJSON))))
    }

    @Test func signCountersIncreasePerCredential() async throws {
        let lab = try PasskeyLab()
        _ = try await lab.authenticator.makeCredential(PasskeyLab.registrationOptions(PasskeyLab.challenge()))
        var counters: [UInt32] = []
        for _ in 0..<4 {
            counters.append(try AuthenticatorData(bytes: try await lab.assert(PasskeyLab.challenge()).authenticatorData).signCount)
        }
        #expect(counters == [1, 2, 3, 4])
        #expect(try await lab.store.all().first?.signCount == 4)
    }

    @Test func residentKeysAreFoundByRPIDAndAllowListsSelect() async throws {
        let lab = try PasskeyLab()
        let first = try await lab.authenticator.makeCredential(PasskeyLab.registrationOptions(PasskeyLab.challenge()))
        lab.clock.advance(by: 60)
        let second = try await lab.authenticator.makeCredential(PasskeyLab.registrationOptions(PasskeyLab.challenge()))
        lab.clock.advance(by: 60)
        var serverSide = PasskeyLab.registrationOptions(PasskeyLab.challenge(), residentKey: .discouraged)
        serverSide.user = PasskeyUser(id: [42], name: "bob@example.com", displayName: "Bob")
        let nonDiscoverable = try await lab.authenticator.makeCredential(serverSide)
        var elsewhere = PasskeyLab.registrationOptions(PasskeyLab.challenge())
        elsewhere.relyingParty = PasskeyRelyingParty(id: "example.org", name: "Org")
        elsewhere.origin = "https://example.org"
        _ = try await lab.authenticator.makeCredential(elsewhere)

        // No allow list: the newest discoverable credential of the RP ID, never a non-discoverable one.
        #expect(try await lab.assert(PasskeyLab.challenge()).credentialID == second.credentialID)
        for wanted in [first, nonDiscoverable] {
            let assertion = try await lab.authenticator.getAssertion(PasskeyAssertionOptions(
                relyingPartyID: PasskeyLab.rpID, challenge: PasskeyLab.challenge(), allowCredentials: [wanted.credentialID]))
            #expect(assertion.credentialID == wanted.credentialID)
        }
        let missing = await #expect(throws: AuthError.self) {
            try await lab.authenticator.getAssertion(PasskeyAssertionOptions(
                relyingPartyID: PasskeyLab.rpID, challenge: [1], allowCredentials: [[0xde, 0xad]]))
        }
        #expect(missing?.code == .passkeyNotFound)
        let otherRP = await #expect(throws: AuthError.self) {
            try await lab.authenticator.getAssertion(PasskeyAssertionOptions(relyingPartyID: "example.net", challenge: [1]))
        }
        #expect(otherRP?.code == .passkeyNotFound)
    }

    @Test func excludedCredentialsAreNotCreatedTwice() async throws {
        let lab = try PasskeyLab()
        let existing = try await lab.authenticator.makeCredential(PasskeyLab.registrationOptions(PasskeyLab.challenge()))
        var options = PasskeyLab.registrationOptions(PasskeyLab.challenge())
        options.excludeCredentials = [[1, 2], existing.credentialID]
        let error = await #expect(throws: AuthError.self) { try await lab.authenticator.makeCredential(options) }
        #expect(error?.code == .passkeyExcluded)
        #expect(try await lab.store.all().count == 1)
    }

    @Test func onlyES256IsOffered() async throws {
        let lab = try PasskeyLab()
        var options = PasskeyLab.registrationOptions(PasskeyLab.challenge())
        options.algorithms = [.rs256, .edDSA]
        let error = await #expect(throws: AuthError.self) { try await lab.authenticator.makeCredential(options) }
        #expect(error?.code == .webAuthnUnsupportedAlgorithm)
        #expect(error?.message.contains("RS256, EdDSA") == true)
    }

    @Test(arguments: [
        ("https://example.com", "example.com", nil),
        ("https://login.example.com", "example.com", nil),
        ("http://localhost:8080", "localhost", nil),
        ("https://example.com", "com", AuthErrorCode.webAuthnRPIDMismatch),
        ("https://example.com", "login.example.com", .webAuthnRPIDMismatch),
        ("https://badexample.com", "example.com", .webAuthnRPIDMismatch),
        ("http://example.com", "example.com", .webAuthnOriginMismatch),
        ("https://example.com/path", "example.com", .webAuthnOriginMismatch),
        ("not a url", "example.com", .webAuthnOriginMismatch),
    ])
    func theRPIDMustBelongToTheOrigin(origin: String, rpID: String, expected: AuthErrorCode?) async throws {
        let lab = try PasskeyLab()
        var options = PasskeyLab.registrationOptions(PasskeyLab.challenge())
        options.relyingParty.id = rpID
        options.origin = origin
        if let expected {
            let error = await #expect(throws: AuthError.self) { try await lab.authenticator.makeCredential(options) }
            #expect(error?.code == expected)
            #expect(try await lab.store.all().isEmpty)
        } else {
            _ = try await lab.authenticator.makeCredential(options)
        }
    }

    @Test func userVerificationFollowsTheRequirementAndAbility() async throws {
        let unable = try PasskeyLab(.init(verifiesUser: false))
        let required = await #expect(throws: AuthError.self) {
            try await unable.authenticator.makeCredential(PasskeyLab.registrationOptions(PasskeyLab.challenge(), userVerification: .required))
        }
        #expect(required?.code == .webAuthnUserVerificationMissing)
        let registration = try await unable.authenticator.makeCredential(PasskeyLab.registrationOptions(PasskeyLab.challenge()))
        #expect(try AuthenticatorData(bytes: registration.attestedAuthData).flags.contains(.userVerified) == false)

        let able = try PasskeyLab()
        _ = try await able.authenticator.makeCredential(PasskeyLab.registrationOptions(PasskeyLab.challenge()))
        let discouraged = try await able.assert(PasskeyLab.challenge(), userVerification: .discouraged)
        #expect(try AuthenticatorData(bytes: discouraged.authenticatorData).flags == [.userPresent])
    }

    @Test func theUserCanDecline() async throws {
        let consent = Mutex(true)
        let lab = try PasskeyLab(.init(approve: { _, _ in consent.withLock { $0 } }))
        _ = try await lab.authenticator.makeCredential(PasskeyLab.registrationOptions(PasskeyLab.challenge()))
        consent.withLock { $0 = false }
        let declinedGet = await #expect(throws: AuthError.self) { try await lab.assert(PasskeyLab.challenge()) }
        #expect(declinedGet?.code == .userCancelled)
        let declinedCreate = await #expect(throws: AuthError.self) {
            try await lab.authenticator.makeCredential(PasskeyLab.registrationOptions(PasskeyLab.challenge()))
        }
        #expect(declinedCreate?.code == .userCancelled)
        // A declined assertion does not consume a counter value.
        consent.withLock { $0 = true }
        #expect(try AuthenticatorData(bytes: try await lab.assert(PasskeyLab.challenge()).authenticatorData).signCount == 1)
        #expect(try await lab.store.all().count == 1)
    }

    @Test func invalidConfigurationAndUserHandlesAreRejected() async throws {
        #expect((#expect(throws: AuthError.self) {
            try SoftwarePasskeyAuthenticator(store: InMemoryPasskeyCredentialStore(), configuration: .init(aaguid: [1, 2]))
        })?.code == .invalidConfiguration)
        let lab = try PasskeyLab()
        var options = PasskeyLab.registrationOptions(PasskeyLab.challenge())
        options.user.id = Array(repeating: 1, count: 65)
        #expect(await (#expect(throws: AuthError.self) { try await lab.authenticator.makeCredential(options) })?.code == .invalidRequest)
    }

    @Test func privateKeysNeverPrint() async throws {
        let lab = try PasskeyLab()
        _ = try await lab.authenticator.makeCredential(PasskeyLab.registrationOptions(PasskeyLab.challenge()))
        let credential = try #require(try await lab.store.all().first)
        let raw = credential.privateKey.revealed()
        let hex = raw.map { String(format: "%02x", $0) }.joined()
        let b64 = Base64URL.encode(raw)
        var dumped = ""
        dump(credential, to: &dumped)
        for text in [credential.description, "\(credential)", String(reflecting: credential), dumped] {
            #expect(!text.contains(hex) && !text.contains(b64))
        }
        #expect(credential.description.contains(credential.idBase64URL))
    }
}
