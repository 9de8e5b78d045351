import AuthHub
import AuthHubFactors
@_spi(Internals) @testable import AuthHubTurnkey
import Foundation
import Testing

@Suite struct TurnkeyPasskeyStamperTests {
    /// spec/turnkey.md §3.2 (docs example, body printed without its final brace) and §10.
    @Test(arguments: [
        (#"{"organization_id": "1234", "type": "ACTIVITY_TYPE_CREATE_API_KEYS", "params": {"for": "example"}"#,
         "7e8b4653fc7e51dc119cea031942f4693b4742ceca4dda269b925802b38b2147"),
        (#"{"organizationId":"00000000-0000-0000-0000-000000000000","type":"ACTIVITY_TYPE_STAMP_LOGIN"}"#,
         "54b71001d576aa620c1edc7582703620d9c7ade531f898acf515916948a2cea4"),
    ])
    func challengeIsTheASCIIHexOfTheBodyHash(body: String, hex: String) {
        #expect(TurnkeyPasskeyStamper.challenge(for: Array(body.utf8)) == Array(hex.utf8))
    }

    /// spec/turnkey.md §8.3: the header value's members and names.
    @Test func headerValueHasTurnkeysMemberNames() throws {
        let stamp = TurnkeyWebAuthnStamp(authenticatorData: "authenticator-data", clientDataJson: "client-data-json",
                                         credentialId: "credential-id", signature: "the-signature")
        #expect(stamp.headerValue
            == #"{"authenticatorData":"authenticator-data","clientDataJson":"client-data-json","credentialId":"credential-id","signature":"the-signature"}"#)
        #expect(TurnkeyWebAuthnStamp.headerName.lowercased() == "x-stamp-webauthn")
    }

    /// A stamp made by the software authenticator over the §10 body carries the §10 challenge and
    /// verifies as a WebAuthn assertion over it.
    @Test func softwarePasskeyStampVerifies() async throws {
        let store = InMemoryPasskeyCredentialStore()
        let authenticator = try SoftwarePasskeyAuthenticator(store: store)
        let registrationChallenge: [UInt8] = Array(repeating: 7, count: 32)
        let registration = try await authenticator.makeCredential(PasskeyRegistrationOptions(
            relyingParty: PasskeyRelyingParty(id: "wallet.example.com", name: "Wallet"),
            user: PasskeyUser(id: [1, 2, 3], name: "ada@example.com", displayName: "Ada"), challenge: registrationChallenge))
        let relyingParty = WebAuthnRelyingParty(id: "wallet.example.com")
        let record = try relyingParty.verifyRegistration(registration, challenge: registrationChallenge)

        let body = Array(#"{"organizationId":"00000000-0000-0000-0000-000000000000","type":"ACTIVITY_TYPE_STAMP_LOGIN"}"#.utf8)
        let stamper = TurnkeyPasskeyStamper(authenticator: authenticator, relyingPartyID: "wallet.example.com",
                                            allowCredentials: [registration.credentialID])
        let stamp = try await stamper.stamp(body)

        let header = try JSONValue.parse(Data(stamp.headerValue.utf8))
        #expect(header.objectValue.map { Set($0.keys) } == ["authenticatorData", "clientDataJson", "credentialId", "signature"])
        #expect(stamp.credentialId == Base64URL.encode(registration.credentialID))
        let clientData = try JSONValue.parse(try #require(Base64URL.decode(stamp.clientDataJson)))
        #expect(clientData["challenge"] == "NTRiNzEwMDFkNTc2YWE2MjBjMWVkYzc1ODI3MDM2MjBkOWM3YWRlNTMxZjg5OGFjZjUxNTkxNjk0OGEyY2VhNA")
        #expect(clientData["type"] == "webauthn.get")

        let assertion = PasskeyAssertion(
            credentialID: [UInt8](try #require(Base64URL.decode(stamp.credentialId))),
            clientDataJSON: [UInt8](try #require(Base64URL.decode(stamp.clientDataJson))),
            authenticatorData: [UInt8](try #require(Base64URL.decode(stamp.authenticatorData))),
            signature: [UInt8](try #require(Base64URL.decode(stamp.signature))))
        let updated = try relyingParty.verifyAssertion(assertion, challenge: TurnkeyPasskeyStamper.challenge(for: body), credential: record)
        #expect(updated.signCount == 1)
        // The same stamp is not valid for another body.
        let other = Array(#"{"organizationId":"00000000-0000-0000-0000-000000000001","type":"ACTIVITY_TYPE_STAMP_LOGIN"}"#.utf8)
        let error = #expect(throws: AuthError.self) {
            try relyingParty.verifyAssertion(assertion, challenge: TurnkeyPasskeyStamper.challenge(for: other), credential: record)
        }
        #expect(error?.code == .webAuthnChallengeMismatch)
    }

    @Test func noPasskeyMeansNoStamp() async throws {
        let stamper = TurnkeyPasskeyStamper(authenticator: try SoftwarePasskeyAuthenticator(store: InMemoryPasskeyCredentialStore()),
                                            relyingPartyID: "wallet.example.com")
        let error = await #expect(throws: AuthError.self) { try await stamper.stamp(Array("{}".utf8)) }
        #expect(error?.code == .passkeyNotFound)
    }
}
