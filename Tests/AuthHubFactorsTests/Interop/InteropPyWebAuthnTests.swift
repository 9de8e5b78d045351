import AuthHub
@testable import AuthHubFactors
import AuthHubTesting
import Foundation
import Testing

/// Runs `Tests/Interop/webauthn_bridge.py` with the interop Python: one JSON request in, one out.
private struct WebAuthnBridge {
    let python: String

    func call(_ request: JSONValue) throws -> JSONValue {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Interop/webauthn_bridge.py")
        let run = try SpawnedProcess.run(URL(fileURLWithPath: python), [script.path], input: try JSONEncoder().encode(request))
        guard run.status == 0 else {
            throw AuthError(.unknown, message: "webauthn_bridge.py failed: \(run.standardError)")
        }
        return try JSONValue.parse(run.stdout)
    }
}

private let environment = ProcessInfo.processInfo.environment

/// AuthHub's software authenticator and relying-party verifier against py_webauthn (`webauthn` on
/// PyPI), a WebAuthn relying-party library nobody here wrote. `.ci/interop` installs it and sets
/// `AUTHHUB_INTEROP_PYTHON` (and `AUTHHUB_INTEROP_WEBAUTHN_TESTS`, the test folder of its source
/// distribution, for the fixture test); a plain `swift test` skips the suite.
@Suite(.enabled(if: environment["AUTHHUB_INTEROP_PYTHON"] != nil, "set by .ci/interop (webauthn from PyPI)"))
struct InteropPyWebAuthnTests {
    fileprivate let bridge = WebAuthnBridge(python: environment["AUTHHUB_INTEROP_PYTHON"] ?? "python3")
    let rpID = "passkeys.example.com"
    let origin = "https://passkeys.example.com"
    let user = PasskeyUser(id: Array("user-4242".utf8), name: "grace@example.com", displayName: "Grace")

    private func b64(_ bytes: [UInt8]) -> JSONValue { .string(Base64URL.encode(bytes)) }

    /// py_webauthn issues the options, the software authenticator answers them, py_webauthn verifies
    /// the registration and two assertions (counter 1, then 2), and AuthHub's verifier agrees.
    @Test func softwareAuthenticatorPassesPyWebAuthn() async throws {
        let store = InMemoryPasskeyCredentialStore()
        let authenticator = try SoftwarePasskeyAuthenticator(store: store)
        let challenge = SystemRandom().bytes(32)
        let options = try bridge.call([
            "op": "options", "challenge": b64(challenge), "rp_id": .string(rpID), "rp_name": "Interop",
            "user_name": .string(user.name), "user_id": b64(user.id), "user_display_name": .string(user.displayName),
        ])
        let creation = try PasskeyRegistrationOptions(json: try #require(options["registration"]), origin: origin)
        #expect(creation.challenge == challenge)
        #expect(creation.user == user)
        #expect(creation.userVerification == .required && creation.residentKey == .required)
        #expect(creation.algorithms.contains(.es256))

        let registration = try await authenticator.makeCredential(creation)
        let verified = try bridge.call([
            "op": "verify_registration", "credential": registration.json, "challenge": b64(challenge),
            "rp_id": .string(rpID), "origin": .string(origin), "require_user_verification": true,
        ])
        #expect(verified["ok"] == true, "\(verified)")
        #expect(verified["credential_id"] == b64(registration.credentialID))
        #expect(verified["fmt"] == "none")
        #expect(verified["sign_count"] == 0)
        #expect(verified["user_verified"] == true)
        let record = try WebAuthnRelyingParty(id: rpID, userVerification: .required).verifyRegistration(registration, challenge: challenge)
        #expect(verified["public_key"] == b64(record.publicKey))

        var signCount = 0
        var current = record
        for round in 1...2 {
            let loginChallenge = SystemRandom().bytes(32)
            let request = try bridge.call(["op": "options", "challenge": b64(loginChallenge), "rp_id": .string(rpID),
                                           "rp_name": "Interop", "user_name": .string(user.name), "user_id": b64(user.id),
                                           "user_display_name": .string(user.displayName),
                                           "allow": [b64(registration.credentialID)]])
            let get = try PasskeyAssertionOptions(json: try #require(request["authentication"]), origin: origin)
            #expect(get.allowCredentials == [registration.credentialID] && get.userVerification == .required)
            let assertion = try await authenticator.getAssertion(get)
            let result = try bridge.call([
                "op": "verify_authentication", "credential": assertion.json, "challenge": b64(loginChallenge),
                "rp_id": .string(rpID), "origin": .string(origin), "public_key": b64(record.publicKey),
                "sign_count": .number(Double(signCount)), "require_user_verification": true,
            ])
            #expect(result["ok"] == true, "\(result)")
            #expect(result["new_sign_count"]?.intValue == round)
            #expect(result["user_verified"] == true)
            signCount = result["new_sign_count"]?.intValue ?? 0
            current = try WebAuthnRelyingParty(id: rpID).verifyAssertion(assertion, challenge: loginChallenge, credential: current)
            #expect(Int(current.signCount) == round)
        }
    }

    /// The bridge really verifies: py_webauthn refuses what AuthHub's own verifier refuses.
    @Test func pyWebAuthnRejectsWhatAuthHubRejects() async throws {
        let authenticator = try SoftwarePasskeyAuthenticator(store: InMemoryPasskeyCredentialStore())
        let challenge = SystemRandom().bytes(32)
        let options = PasskeyRegistrationOptions(relyingParty: PasskeyRelyingParty(id: rpID, name: "Interop"), user: user,
                                                 challenge: challenge)
        let registration = try await authenticator.makeCredential(options)
        let wrongChallenge = try bridge.call([
            "op": "verify_registration", "credential": registration.json, "challenge": b64(Array(challenge.reversed())),
            "rp_id": .string(rpID), "origin": .string(origin),
        ])
        #expect(wrongChallenge["ok"] == false)
        let record = try WebAuthnRelyingParty(id: rpID).verifyRegistration(registration, challenge: challenge)

        let loginChallenge = SystemRandom().bytes(32)
        var assertion = try await authenticator.getAssertion(PasskeyAssertionOptions(relyingPartyID: rpID, challenge: loginChallenge))
        assertion.signature[assertion.signature.count - 1] ^= 0x01
        let tampered = try bridge.call([
            "op": "verify_authentication", "credential": assertion.json, "challenge": b64(loginChallenge),
            "rp_id": .string(rpID), "origin": .string(origin), "public_key": b64(record.publicKey), "sign_count": 0,
        ])
        #expect(tampered["ok"] == false)
        #expect(throws: AuthError.self) { try WebAuthnRelyingParty(id: rpID).verifyAssertion(assertion, challenge: loginChallenge, credential: record) }

        let wrongRP = try bridge.call([
            "op": "verify_registration", "credential": registration.json, "challenge": b64(challenge),
            "rp_id": "other.example.com", "origin": .string(origin),
        ])
        #expect(wrongRP["ok"] == false)
    }

    /// Every literal fixture in py_webauthn's own test suite (real browsers and authenticators:
    /// Chrome, Firefox with a YubiKey, Windows Hello TPMs, caBLE, Ed25519 keys) gets the same
    /// verdict from AuthHub's verifier as from py_webauthn: the same credential, key and counter
    /// when it accepts, a rejection when it rejects. Registrations whose only fault is an
    /// attestation certificate chain py_webauthn cannot validate here are left out: AuthHub does not
    /// judge attestation trust (it reads non-`none` statements only with
    /// `acceptsUnverifiedAttestation`).
    @Test(.enabled(if: environment["AUTHHUB_INTEROP_WEBAUTHN_TESTS"] != nil, "set by .ci/interop"))
    func pyWebAuthnFixturesGetTheSameVerdict() throws {
        let fixtures = try bridge.call(["op": "fixtures", "tests_dir": .string(environment["AUTHHUB_INTEROP_WEBAUTHN_TESTS"] ?? "")])
        let registrations = fixtures["registration"]?.arrayValue ?? []
        let authentications = fixtures["authentication"]?.arrayValue ?? []
        #expect(registrations.count >= 10 && authentications.count >= 6, "too few fixtures found: \(registrations.count), \(authentications.count)")

        var compared = 0
        for fixture in registrations {
            let name = fixture["name"]?.stringValue ?? "?"
            let verdict = try #require(fixture["verdict"])
            if verdict["ok"] == false, verdict["message"]?.stringValue?.contains("Certificate chain") == true { continue }
            let challenge = try #require(fixture["challenge"]?.stringValue.flatMap(Base64URL.decode))
            let relyingParty = WebAuthnRelyingParty(
                id: fixture["rp_id"]?.stringValue ?? "", origins: Set(fixture["origin"]?.arrayValue?.compactMap(\.stringValue) ?? []),
                userVerification: fixture["require_user_verification"] == true ? .required : .preferred,
                acceptsUnverifiedAttestation: true)
            let outcome = Result { try relyingParty.verifyRegistration(
                try PasskeyRegistration(json: try #require(fixture["credential"])), challenge: [UInt8](challenge)) }
            switch (verdict["ok"], outcome) {
            case (true, .success(let record)):
                #expect(b64(record.id) == verdict["credential_id"], "\(name)")
                #expect(b64(record.publicKey) == verdict["public_key"], "\(name)")
                #expect(record.signCount == UInt32(verdict["sign_count"]?.intValue ?? -1), "\(name)")
                #expect(record.attestationFormat == verdict["fmt"]?.stringValue, "\(name)")
                #expect(record.userVerified == (verdict["user_verified"] == true), "\(name)")
                #expect(record.deviceType == verdict["device_type"]?.stringValue, "\(name)")
                #expect(record.backedUp == (verdict["backed_up"] == true), "\(name)")
                if record.attestationFormat != "none" {
                    var strict = relyingParty
                    strict.acceptsUnverifiedAttestation = false
                    #expect(throws: AuthError.self, "\(name)") {
                        try strict.verifyRegistration(try PasskeyRegistration(json: fixture["credential"] ?? .null), challenge: [UInt8](challenge))
                    }
                }
            case (false, .failure): break
            case (_, .success): Issue.record("\(name): py_webauthn rejects (\(verdict["message"]?.stringValue ?? "")), AuthHub accepts")
            case (_, .failure(let error)): Issue.record("\(name): py_webauthn accepts, AuthHub rejects: \(error)")
            }
            compared += 1
        }

        for fixture in authentications {
            let name = fixture["name"]?.stringValue ?? "?"
            let verdict = try #require(fixture["verdict"])
            let challenge = try #require(fixture["challenge"]?.stringValue.flatMap(Base64URL.decode))
            let publicKey = try #require(fixture["public_key"]?.stringValue.flatMap(Base64URL.decode))
            let relyingParty = WebAuthnRelyingParty(
                id: fixture["rp_id"]?.stringValue ?? "", origins: Set(fixture["origin"]?.arrayValue?.compactMap(\.stringValue) ?? []),
                userVerification: fixture["require_user_verification"] == true ? .required : .preferred)
            let outcome = Result { () throws -> WebAuthnCredentialRecord in
                let assertion = try PasskeyAssertion(json: try #require(fixture["credential"]))
                // py_webauthn keeps no backup eligibility; take the flag the assertion reports.
                let eligible = (try? AuthenticatorData(bytes: assertion.authenticatorData))?.flags.contains(.backupEligible) ?? false
                let record = WebAuthnCredentialRecord(
                    id: assertion.credentialID, publicKey: [UInt8](publicKey),
                    algorithm: (try? COSEKey(bytes: [UInt8](publicKey)))?.algorithm ?? .es256,
                    signCount: UInt32(fixture["sign_count"]?.intValue ?? 0), backupEligible: eligible)
                return try relyingParty.verifyAssertion(assertion, challenge: [UInt8](challenge), credential: record)
            }
            switch (verdict["ok"], outcome) {
            case (true, .success(let record)):
                #expect(Int(record.signCount) == verdict["new_sign_count"]?.intValue, "\(name)")
                #expect(record.userVerified == (verdict["user_verified"] == true), "\(name)")
                #expect(record.backedUp == (verdict["backed_up"] == true), "\(name)")
            case (false, .failure): break
            case (_, .success): Issue.record("\(name): py_webauthn rejects (\(verdict["message"]?.stringValue ?? "")), AuthHub accepts")
            case (_, .failure(let error)): Issue.record("\(name): py_webauthn accepts, AuthHub rejects: \(error)")
            }
            compared += 1
        }
        #expect(compared >= 20, "compared only \(compared) fixtures")
    }
}
