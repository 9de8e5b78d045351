import AuthHub
import AuthHubFactors
import Foundation
import Testing

/// The "Second factors and passkeys on Linux" example of README.md, with its placeholders filled
/// in, so the README cannot drift from the API.
@Suite struct ReadmeExampleTests {
    @Test func readmeFactorsExampleRuns() async throws {
        let scannedURI = "otpauth://totp/Example:ada@example.com?secret=JBSWY3DPEHPK3PXP&issuer=Example"
        let uri = try OTPAuthURI(parsing: Secret(scannedURI))
        #expect(!"\(uri)".contains("JBSWY3DPEHPK3PXP"))
        let totp = try uri.totp()
        let code = try totp.code(at: Date())
        let typed = code.revealed()
        let lastUsedStep: UInt64? = nil
        let step = try totp.verify(Secret(typed), at: Date(), after: lastUsedStep)
        #expect(throws: AuthError.self) { try totp.verify(Secret(typed), at: Date(), after: step) }

        let (codes, set) = try RecoveryCodeSet.generate()
        var stored = set
        let typedCode = codes[3].revealed().lowercased()
        try stored.consume(Secret(typedCode))
        #expect(throws: AuthError.self) { try stored.consume(Secret(typedCode)) }

        let stateDir = FileManager.default.temporaryDirectory.appendingPathComponent("authhub-readme-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: stateDir) }
        let key = Data(SystemRandom().bytes(32)).base64EncodedString()
        let authenticator = try SoftwarePasskeyAuthenticator(
            store: try FilePasskeyCredentialStore(directory: stateDir, encryptionKey: Secret(key)))
        let issuedChallenge = SystemRandom().bytes(32)
        let optionsFromServer: JSONValue = [
            "challenge": .string(Base64URL.encode(issuedChallenge)), "rp": ["id": "example.com", "name": "Example"],
            "user": ["id": "dXNlcg", "name": "ada@example.com", "displayName": "Ada"],
            "pubKeyCredParams": [["type": "public-key", "alg": -7]],
            "authenticatorSelection": ["residentKey": "required", "userVerification": "required"],
        ]
        let registration = try await authenticator.makeCredential(try PasskeyRegistrationOptions(json: optionsFromServer))
        let loginChallenge = SystemRandom().bytes(32)
        let loginOptions: JSONValue = ["challenge": .string(Base64URL.encode(loginChallenge)), "rpId": "example.com",
                                       "userVerification": "required"]
        let assertion = try await authenticator.getAssertion(try PasskeyAssertionOptions(json: loginOptions))

        let rp = WebAuthnRelyingParty(id: "example.com", userVerification: .required)
        let credential = try rp.verifyRegistration(registration, challenge: issuedChallenge)
        let updated = try rp.verifyAssertion(assertion, challenge: loginChallenge, credential: credential)
        #expect(updated.signCount == 1)
    }
}
