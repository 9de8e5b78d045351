import AuthHub
@testable import AuthHubFactors
import Crypto
import Foundation
import Testing

@Suite struct WebAuthnRelyingPartyTests {
    @Test func registrationAndAssertionsVerify() async throws {
        let lab = try PasskeyLab()
        let record = try await lab.register()
        #expect(record.algorithm == .es256)
        #expect(record.signCount == 0)
        #expect(record.attestationFormat == "none")
        #expect(record.userVerified)
        #expect(record.aaguid == Array(repeating: 0, count: 16))
        #expect(try COSEKey(bytes: record.publicKey).algorithm == .es256)

        var current = record
        for expected in 1...3 {
            let challenge = PasskeyLab.challenge()
            let assertion = try await lab.assert(challenge)
            #expect(assertion.userHandle == PasskeyLab.user.id)
            current = try lab.relyingParty.verifyAssertion(assertion, challenge: challenge, credential: current,
                                                           allowCredentials: [record.id], userHandle: PasskeyLab.user.id)
            #expect(current.signCount == UInt32(expected))
        }
    }

    @Test func responsesSurviveTheirJSONForm() async throws {
        let lab = try PasskeyLab()
        let challenge = PasskeyLab.challenge()
        let registration = try await lab.authenticator.makeCredential(PasskeyLab.registrationOptions(challenge))
        let json = try JSONEncoder().encode(registration.json)
        let parsed = try PasskeyRegistration(json: JSONValue.parse(json))
        var expected = registration
        (expected.authenticatorData, expected.publicKeyAlgorithm, expected.publicKeyDER) = (nil, nil, nil)
        #expect(parsed == expected)
        let record = try lab.relyingParty.verifyRegistration(parsed, challenge: challenge)

        let assertChallenge = PasskeyLab.challenge()
        let assertion = try await lab.assert(assertChallenge)
        let reparsed = try PasskeyAssertion(json: JSONValue.parse(JSONEncoder().encode(assertion.json)))
        #expect(reparsed == assertion)
        #expect(try lab.relyingParty.verifyAssertion(reparsed, challenge: assertChallenge, credential: record).signCount == 1)
    }

    /// The JSON forms are Auth0's `authn_response` (spec/auth0.md §3.6 and §6.5), member for member.
    @Test func jsonFormsAreAuth0sAuthnResponse() async throws {
        let lab = try PasskeyLab()
        let registration = try await lab.authenticator.makeCredential(PasskeyLab.registrationOptions(PasskeyLab.challenge()))
        let signup = registration.json
        #expect(signup.objectValue.map { Set($0.keys) } == ["id", "rawId", "type", "authenticatorAttachment", "response", "clientExtensionResults"])
        #expect(signup["response"]?.objectValue.map { Set($0.keys) } == ["clientDataJSON", "attestationObject", "transports"])
        #expect(signup["id"] == signup["rawId"] && signup["type"] == "public-key" && signup["authenticatorAttachment"] == "platform")
        #expect(signup["response"]?["attestationObject"]?.stringValue.flatMap(Base64URL.decode).map { [UInt8]($0) }
            == registration.attestationObject)

        let login = try await lab.assert(PasskeyLab.challenge()).json
        #expect(login["response"]?.objectValue.map { Set($0.keys) } == ["clientDataJSON", "authenticatorData", "signature", "userHandle"])
        #expect(login["response"]?["userHandle"] == .string(Base64URL.encode(PasskeyLab.user.id)))
        for value in [signup, login] {
            let text = String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
            #expect(!text.contains("=") && !text.contains("+"), "base64url without padding: \(text)")
        }
    }

    // MARK: Registration negatives

    @Test func registrationWithAnotherChallengeIsRejected() async throws {
        let lab = try PasskeyLab()
        let registration = try await lab.authenticator.makeCredential(PasskeyLab.registrationOptions(PasskeyLab.challenge()))
        let error = #expect(throws: AuthError.self) {
            try lab.relyingParty.verifyRegistration(registration, challenge: PasskeyLab.challenge())
        }
        #expect(error?.code == .webAuthnChallengeMismatch)
    }

    @Test func registrationFromAnotherOriginIsRejected() async throws {
        let lab = try PasskeyLab()
        let challenge = PasskeyLab.challenge()
        var options = PasskeyLab.registrationOptions(challenge)
        options.origin = "https://login.example.com"  // a valid origin for the RP ID, but not one the RP accepts
        let registration = try await lab.authenticator.makeCredential(options)
        let error = #expect(throws: AuthError.self) { try lab.relyingParty.verifyRegistration(registration, challenge: challenge) }
        #expect(error?.code == .webAuthnOriginMismatch)
        var wider = lab.relyingParty
        wider.origins.insert("https://login.example.com")
        #expect(throws: Never.self) { try wider.verifyRegistration(registration, challenge: challenge) }
    }

    @Test func registrationForAnotherRPIDIsRejected() async throws {
        let lab = try PasskeyLab()
        let challenge = PasskeyLab.challenge()
        let registration = try await lab.authenticator.makeCredential(PasskeyLab.registrationOptions(challenge))
        let other = WebAuthnRelyingParty(id: "example.org", origins: [PasskeyLab.origin])
        let error = #expect(throws: AuthError.self) { try other.verifyRegistration(registration, challenge: challenge) }
        #expect(error?.code == .webAuthnRPIDMismatch)
    }

    @Test func assertionPresentedAsRegistrationIsATypeMismatch() async throws {
        let lab = try PasskeyLab()
        let challenge = PasskeyLab.challenge()
        var registration = try await lab.authenticator.makeCredential(PasskeyLab.registrationOptions(challenge))
        registration.clientDataJSON = CollectedClientData(type: CollectedClientData.getType, challenge: challenge,
                                                          origin: PasskeyLab.origin).jsonBytes
        let error = #expect(throws: AuthError.self) { try lab.relyingParty.verifyRegistration(registration, challenge: challenge) }
        #expect(error?.code == .webAuthnTypeMismatch)
    }

    @Test func registrationWithoutRequiredUserVerificationIsRejected() async throws {
        let lab = try PasskeyLab(.init(verifiesUser: false))
        let challenge = PasskeyLab.challenge()
        let registration = try await lab.authenticator.makeCredential(PasskeyLab.registrationOptions(challenge))
        var strict = lab.relyingParty
        strict.userVerification = .required
        let error = #expect(throws: AuthError.self) { try strict.verifyRegistration(registration, challenge: challenge) }
        #expect(error?.code == .webAuthnUserVerificationMissing)
        #expect(try lab.relyingParty.verifyRegistration(registration, challenge: challenge).userVerified == false)
    }

    @Test func attestationFormatsOtherThanNoneAreRefusedUnlessAllowed() async throws {
        let lab = try PasskeyLab()
        let challenge = PasskeyLab.challenge()
        let registration = try await lab.authenticator.makeCredential(PasskeyLab.registrationOptions(challenge))
        let packed = PasskeyLab.rebuilt(registration, format: "packed",
                                        statement: .map([CBORMapEntry(.text("alg"), .int(-7)), CBORMapEntry(.text("sig"), .bytes([1]))]))
        let error = #expect(throws: AuthError.self) { try lab.relyingParty.verifyRegistration(packed, challenge: challenge) }
        #expect(error?.code == .webAuthnUnsupportedAttestation)
        var lenient = lab.relyingParty
        lenient.acceptsUnverifiedAttestation = true
        #expect(try lenient.verifyRegistration(packed, challenge: challenge).attestationFormat == "packed")

        let noneWithStatement = PasskeyLab.rebuilt(registration, statement: .map([CBORMapEntry(.text("x5c"), .array([]))]))
        let noneError = #expect(throws: AuthError.self) { try lenient.verifyRegistration(noneWithStatement, challenge: challenge) }
        #expect(noneError?.code == .webAuthnUnsupportedAttestation)
    }

    @Test func registrationWithAnAlgorithmTheRPRefusesIsRejected() async throws {
        let lab = try PasskeyLab()
        let challenge = PasskeyLab.challenge()
        let registration = try await lab.authenticator.makeCredential(PasskeyLab.registrationOptions(challenge))
        let rsaOnly = WebAuthnRelyingParty(id: PasskeyLab.rpID, algorithms: [.rs256])
        let error = #expect(throws: AuthError.self) { try rsaOnly.verifyRegistration(registration, challenge: challenge) }
        #expect(error?.code == .webAuthnUnsupportedAlgorithm)
    }

    @Test func malformedAttestationObjectsAreRejected() async throws {
        let lab = try PasskeyLab()
        let challenge = PasskeyLab.challenge()
        let registration = try await lab.authenticator.makeCredential(PasskeyLab.registrationOptions(challenge))
        var garbage = registration
        garbage.attestationObject = [0xa1, 0x63]
        #expect((#expect(throws: AuthError.self) { try lab.relyingParty.verifyRegistration(garbage, challenge: challenge) })?.code
            == .webAuthnMalformedResponse)
        let truncated = PasskeyLab.rebuilt(registration, authData: Array(registration.attestedAuthData.dropLast(5)))
        #expect((#expect(throws: AuthError.self) { try lab.relyingParty.verifyRegistration(truncated, challenge: challenge) })?.code
            == .webAuthnMalformedResponse)
        var otherID = registration
        otherID.credentialID = [1, 2, 3]
        #expect((#expect(throws: AuthError.self) { try lab.relyingParty.verifyRegistration(otherID, challenge: challenge) })?.code
            == .webAuthnMalformedResponse)
        var notJSON = registration
        notJSON.clientDataJSON = Array("{not json".utf8)
        #expect((#expect(throws: AuthError.self) { try lab.relyingParty.verifyRegistration(notJSON, challenge: challenge) })?.code
            == .webAuthnMalformedResponse)
    }

    // MARK: Assertion negatives

    @Test func assertionOverAnotherChallengeIsRejected() async throws {
        let lab = try PasskeyLab()
        let record = try await lab.register()
        let assertion = try await lab.assert(PasskeyLab.challenge())
        let error = #expect(throws: AuthError.self) {
            try lab.relyingParty.verifyAssertion(assertion, challenge: PasskeyLab.challenge(), credential: record)
        }
        #expect(error?.code == .webAuthnChallengeMismatch)
    }

    @Test func assertionFromAnotherOriginIsRejected() async throws {
        let lab = try PasskeyLab()
        let record = try await lab.register()
        let challenge = PasskeyLab.challenge()
        let assertion = try await lab.authenticator.getAssertion(
            PasskeyAssertionOptions(relyingPartyID: PasskeyLab.rpID, challenge: challenge, origin: "https://evil.example.com"))
        let error = #expect(throws: AuthError.self) {
            try lab.relyingParty.verifyAssertion(assertion, challenge: challenge, credential: record)
        }
        #expect(error?.code == .webAuthnOriginMismatch)
    }

    @Test func assertionForAnotherRPIDIsRejected() async throws {
        let lab = try PasskeyLab()
        let record = try await lab.register()
        let challenge = PasskeyLab.challenge()
        let assertion = try await lab.assert(challenge)
        // The same origin, a different RP ID: the authenticator data's hash no longer matches.
        let other = WebAuthnRelyingParty(id: "login.example.com", origins: [PasskeyLab.origin])
        let error = #expect(throws: AuthError.self) { try other.verifyAssertion(assertion, challenge: challenge, credential: record) }
        #expect(error?.code == .webAuthnRPIDMismatch)
    }

    @Test(arguments: 0..<8)
    func flippedSignatureBitIsRejected(bit: Int) async throws {
        let lab = try PasskeyLab()
        let record = try await lab.register()
        let challenge = PasskeyLab.challenge()
        var assertion = try await lab.assert(challenge)
        // Flip a bit in the last byte of s: the DER stays well-formed, the signature wrong.
        assertion.signature[assertion.signature.count - 1] ^= UInt8(1 << bit)
        let error = #expect(throws: AuthError.self) {
            try lab.relyingParty.verifyAssertion(assertion, challenge: challenge, credential: record)
        }
        #expect(error?.code == .webAuthnInvalidSignature)
    }

    @Test func tamperedAuthenticatorDataBreaksTheSignature() async throws {
        let lab = try PasskeyLab()
        let record = try await lab.register()
        let challenge = PasskeyLab.challenge()
        var assertion = try await lab.assert(challenge)
        assertion.authenticatorData[36] &+= 5  // a higher counter, not signed by the key
        let error = #expect(throws: AuthError.self) {
            try lab.relyingParty.verifyAssertion(assertion, challenge: challenge, credential: record)
        }
        #expect(error?.code == .webAuthnInvalidSignature)
    }

    @Test func replayedSignCountIsRejected() async throws {
        let lab = try PasskeyLab()
        let record = try await lab.register()
        let challenge = PasskeyLab.challenge()
        let assertion = try await lab.assert(challenge)
        let updated = try lab.relyingParty.verifyAssertion(assertion, challenge: challenge, credential: record)
        #expect(updated.signCount == 1)
        // The same response again (a replay, or a clone that signed with the same counter).
        let replay = #expect(throws: AuthError.self) {
            try lab.relyingParty.verifyAssertion(assertion, challenge: challenge, credential: updated)
        }
        #expect(replay?.code == .webAuthnSignCountRegression)
        // A validly signed response whose counter went backwards.
        var ahead = updated
        ahead.signCount = 10
        let next = PasskeyLab.challenge()
        let regressed = try await lab.assert(next)
        let error = #expect(throws: AuthError.self) {
            try lab.relyingParty.verifyAssertion(regressed, challenge: next, credential: ahead)
        }
        #expect(error?.code == .webAuthnSignCountRegression)
    }

    @Test func zeroCountersAreAcceptedWhenTheAuthenticatorKeepsNone() async throws {
        let lab = try PasskeyLab(.init(backupEligible: true, backedUp: true, countsSignatures: false))
        let record = try await lab.register()
        #expect(record.backupEligible && record.backedUp && record.deviceType == "multi_device")
        var current = record
        for _ in 0..<2 {
            let challenge = PasskeyLab.challenge()
            current = try lab.relyingParty.verifyAssertion(try await lab.assert(challenge), challenge: challenge, credential: current)
            #expect(current.signCount == 0)
        }
    }

    @Test func assertionWithoutRequiredUserVerificationIsRejected() async throws {
        let lab = try PasskeyLab()
        let record = try await lab.register()
        var strict = lab.relyingParty
        strict.userVerification = .required
        let challenge = PasskeyLab.challenge()
        let unverified = try await lab.assert(challenge, userVerification: .discouraged)
        let error = #expect(throws: AuthError.self) { try strict.verifyAssertion(unverified, challenge: challenge, credential: record) }
        #expect(error?.code == .webAuthnUserVerificationMissing)
        let verified = try await lab.assert(challenge, userVerification: .required)
        #expect(try strict.verifyAssertion(verified, challenge: challenge, credential: record).userVerified)
    }

    @Test func assertionWithoutUserPresenceIsRejected() async throws {
        let lab = try PasskeyLab()
        let record = try await lab.register()
        let challenge = PasskeyLab.challenge()
        let assertion = try await lab.assert(challenge)
        var data = try AuthenticatorData(bytes: assertion.authenticatorData)
        data.flags.remove(.userPresent)
        let resigned = try await lab.resigned(assertion, authenticatorData: data.bytes)
        let error = #expect(throws: AuthError.self) {
            try lab.relyingParty.verifyAssertion(resigned, challenge: challenge, credential: record)
        }
        #expect(error?.code == .webAuthnUserPresenceMissing)
    }

    @Test func backupStateWithoutEligibilityIsRejected() async throws {
        let lab = try PasskeyLab()
        let record = try await lab.register()
        let challenge = PasskeyLab.challenge()
        let assertion = try await lab.assert(challenge)
        var data = try AuthenticatorData(bytes: assertion.authenticatorData)
        data.flags.insert(.backedUp)
        let resigned = try await lab.resigned(assertion, authenticatorData: data.bytes)
        let error = #expect(throws: AuthError.self) {
            try lab.relyingParty.verifyAssertion(resigned, challenge: challenge, credential: record)
        }
        #expect(error?.code == .webAuthnBackupStateInvalid)
    }

    @Test func crossOriginCeremoniesNeedPermission() async throws {
        let lab = try PasskeyLab()
        let record = try await lab.register()
        let challenge = PasskeyLab.challenge()
        let assertion = try await lab.assert(challenge)
        let framed = try await lab.resigned(assertion, clientData: CollectedClientData(
            type: CollectedClientData.getType, challenge: challenge, origin: PasskeyLab.origin, crossOrigin: true,
            topOrigin: "https://other.example"))
        let error = #expect(throws: AuthError.self) { try lab.relyingParty.verifyAssertion(framed, challenge: challenge, credential: record) }
        #expect(error?.code == .webAuthnCrossOrigin)
        var permissive = lab.relyingParty
        permissive.allowsCrossOrigin = true
        #expect(try permissive.verifyAssertion(framed, challenge: challenge, credential: record).signCount == 1)
    }

    @Test func credentialOutsideTheAllowListOrOfAnotherUserIsRejected() async throws {
        let lab = try PasskeyLab()
        let record = try await lab.register()
        let challenge = PasskeyLab.challenge()
        let assertion = try await lab.assert(challenge)
        let notAllowed = #expect(throws: AuthError.self) {
            try lab.relyingParty.verifyAssertion(assertion, challenge: challenge, credential: record, allowCredentials: [[9, 9, 9]])
        }
        #expect(notAllowed?.code == .webAuthnCredentialNotAllowed)
        var someoneElses = record
        someoneElses.id = [7, 7, 7]
        #expect((#expect(throws: AuthError.self) {
            try lab.relyingParty.verifyAssertion(assertion, challenge: challenge, credential: someoneElses)
        })?.code == .webAuthnCredentialNotAllowed)
        let wrongUser = #expect(throws: AuthError.self) {
            try lab.relyingParty.verifyAssertion(assertion, challenge: challenge, credential: record, userHandle: Array("user-0002".utf8))
        }
        #expect(wrongUser?.code == .webAuthnUserHandleMismatch)
    }

    @Test func registrationPresentedAsAssertionIsATypeMismatch() async throws {
        let lab = try PasskeyLab()
        let record = try await lab.register()
        let challenge = PasskeyLab.challenge()
        let assertion = try await lab.assert(challenge)
        let wrongType = try await lab.resigned(assertion, clientData: CollectedClientData(
            type: CollectedClientData.createType, challenge: challenge, origin: PasskeyLab.origin))
        let error = #expect(throws: AuthError.self) { try lab.relyingParty.verifyAssertion(wrongType, challenge: challenge, credential: record) }
        #expect(error?.code == .webAuthnTypeMismatch)
    }
}
