import AuthHub
@_spi(Internals) @testable import AuthHubAuth0
import AuthHubFactors
import AuthHubTesting
import Foundation
import Testing

/// The headless enrollment flows (issue 5): every kind walks `idle → loading → challenge →
/// confirming → completed`, inputs are checked before any request, a wrong code fails and a retry
/// succeeds, and step-up refusals lead to re-authentication instead of a dead end.
@Suite struct Auth0EnrollmentFlowTests {
    let transport = StubTransport()
    /// What the token provider does on each call: nil hands out a token, an error is thrown.
    let tokenFailures = Mutex<[AuthError]>([])
    let tokenCalls = Mutex(0)

    func api() throws -> Auth0MyAccountAPI {
        let provider = Auth0Provider(id: "auth0", configuration: try Auth0Configuration(domain: "tenant.auth0.com", clientId: "cid"),
                                     context: ProviderContext(transport: transport, clock: FakeClock()))
        let failures = tokenFailures, calls = tokenCalls
        return Auth0MyAccountAPI(provider: provider) { scope in
            calls.withLock { $0 += 1 }
            if let failure = failures.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { throw failure }
            return Auth0APICredentials(accessToken: Secret("me-token"), tokenType: "Bearer", expiresAt: .distantFuture, scope: scope)
        }
    }

    /// Answers enrollment starts with `body` and a Location header for `id`, and verifies with `verify`.
    func stubEnrollment(id: String, body: JSONValue, verify: @escaping @Sendable (StubTransport.Request) -> StubTransport.Reply) {
        transport.on(.post, "/me/v1/authentication-methods") { _ in
            guard case .response(var response) = StubTransport.Reply.json(201, body) else { return .raw(500, "") }
            response.head.headerFields[.location] = "https://tenant.auth0.com/me/v1/authentication-methods/" + id.replacingOccurrences(of: "|", with: "%7C")
            return .response(response)
        }
        transport.on(.post, "/me/v1/authentication-methods/\(id)/verify", reply: verify)
    }

    static let wrongCode = StubTransport.Reply.json(400, ["type": "https://auth0.com/api-errors/A0E-400-0003", "status": 400,
                                                           "title": "Bad Request", "detail": "Invalid otp_code."])

    /// Collects state names until a final state.
    func names<C, O>(_ states: AsyncStream<FlowState<C, O>>, count: Int) async -> [String] {
        var names: [String] = []
        for await state in states {
            names.append(state.name)
            if names.count == count { break }
        }
        return names
    }

    @Test func totpWalksEveryStateAndAWrongCodeFailsThenARetrySucceeds() async throws {
        let totp = try TOTP(secret: Secret(try Base32.decode("JBSWY3DPEHPK3PXP")), skew: 0)
        let expected = try totp.code(at: Date()).revealed()
        stubEnrollment(id: "totp|dev_1", body: ["id": "totp|dev_1", "auth_session": "s1",
                                               "barcode_uri": "otpauth://totp/T:ada@example.com?secret=JBSWY3DPEHPK3PXP&issuer=T",
                                               "manual_input_code": "JBSWY3DPEHPK3PXP"]) { request in
            request.jsonBody?["otp_code"]?.stringValue == expected
                ? .json(200, ["id": "totp|dev_1", "type": "totp", "confirmed": true, "usage": ["secondary"], "created_at": "2026-11-22T00:00:00.000Z"])
                : Self.wrongCode
        }
        let flow = FactorFlow(Auth0EnrollmentFactor.totp(try api()))
        let states = await flow.states()
        guard case .challenge(let challenge) = await flow.start(), case .qrCode(let uri, let manual) = challenge.prompt else {
            Issue.record("no QR challenge"); return
        }
        #expect(challenge.methodID == "totp|dev_1" && manual?.revealed() == "JBSWY3DPEHPK3PXP")
        // The QR code's URI yields the same codes as the secret shown for manual entry.
        #expect(try OTPAuthURI(parsing: uri).totp().code(at: Date()).revealed() == expected)

        let wrong = await flow.confirm(.code(Secret(expected == "000000" ? "111111" : "000000")))
        #expect(wrong.error?.code == .invalidMFACode && wrong.error?.statusCode == 400)
        #expect(await flow.retry().name == "challenge")
        let done = await flow.confirm(.code(Secret(String(expected.prefix(3)) + " " + String(expected.suffix(3)))))
        guard case .completed(let method) = done else { Issue.record("not completed: \(done.name)"); return }
        #expect(method.id == "totp|dev_1" && method.confirmed == true)
        #expect(transport.requests.last?.jsonBody == ["auth_session": "s1", "otp_code": .string(expected)])
        #expect(await names(states, count: 8) == ["idle", "loading", "challenge", "confirming", "failed", "challenge", "confirming", "completed"])
    }

    @Test func codesOtherThanSixDigitsFailBeforeAnyRequest() async throws {
        stubEnrollment(id: "email|dev_1", body: ["id": "email|dev_1", "auth_session": "s"]) { _ in .json(200, ["id": "email|dev_1"]) }
        let flow = FactorFlow(Auth0EnrollmentFactor.email("ada@example.com", api: try api()))
        #expect(await flow.start().name == "challenge")
        let sent = transport.requests.count
        for code in ["12345", "1234567", "12a456", "", "１２３４５６"] {
            let state = await flow.confirm(.code(Secret(code)))
            #expect(state.error?.code == .invalidMFACode && state.error?.details["field"] == "otp_code", "code \(code)")
            await flow.retry()
        }
        #expect(transport.requests.count == sent)
        #expect(await flow.confirm(.code(Secret("123456"))).name == "completed")
    }

    @Test func emailAndPhoneAreCheckedBeforeAnyRequest() async throws {
        let api = try api()
        for address in ["ada", "ada@", "@example.com", "ada@example", "ada @example.com", "ada@@example.com", "ada@example..com"] {
            let state = await FactorFlow(Auth0EnrollmentFactor.email(address, api: api)).start()
            #expect(state.error?.code == .invalidEmail, "\(address)")
        }
        for number in ["5555550100", "+0555550100", "+1555", "+1555555010012345", "+1555abc0100"] {
            let state = await FactorFlow(Auth0EnrollmentFactor.phone(number, api: api)).start()
            #expect(state.error?.code == .invalidRequest && state.error?.details["field"] == "phone_number", "\(number)")
        }
        let badMethod = await FactorFlow(Auth0EnrollmentFactor.phone("+15555550100", preferredMethod: "fax", api: api)).start()
        #expect(badMethod.error?.details["field"] == "preferred_authentication_method")
        let badConnection = await FactorFlow(Auth0EnrollmentFactor.passkey(api, connection: "no spaces")).start()
        #expect(badConnection.error?.details["field"] == "connection")
        #expect(transport.requests.isEmpty)
        #expect(tokenCalls.withLock { $0 } == 0)
    }

    @Test func phoneNumbersAreNormalisedAndTheCodeSentIsConfirmed() async throws {
        stubEnrollment(id: "phone|dev_2", body: ["id": "phone|dev_2", "auth_session": "s2"]) { request in
            request.jsonBody?["otp_code"] == "654321" ? .json(200, ["id": "phone|dev_2", "type": "phone", "phone_number": "+15555550100"]) : Self.wrongCode
        }
        let flow = FactorFlow(Auth0EnrollmentFactor.phone("+1 (555) 555-0100", preferredMethod: "voice", api: try api()))
        guard case .challenge(let challenge) = await flow.start(), case .codeSent = challenge.prompt else { Issue.record("no code-sent"); return }
        #expect(transport.requests.first?.jsonBody == ["type": "phone", "phone_number": "+15555550100", "preferred_authentication_method": "voice"])
        guard case .completed(let method) = await flow.confirm(.code(Secret("654321"))) else { Issue.record("not completed"); return }
        #expect(method.json["phone_number"] == "+15555550100")
    }

    @Test func pushAndRecoveryCodeConfirmWithoutInput() async throws {
        stubEnrollment(id: "push-notification|dev_3", body: ["id": "p", "auth_session": "s3", "barcode_uri": "otpauth://totp/T:ada?secret=AAAA"]) { request in
            request.jsonBody == ["auth_session": "s3"] ? .json(200, ["id": "push-notification|dev_3", "type": "push-notification"]) : .raw(400, "")
        }
        let push = FactorFlow(Auth0EnrollmentFactor.pushNotification(try api()))
        guard case .challenge(let challenge) = await push.start(), case .qrCode = challenge.prompt else { Issue.record("no QR"); return }
        #expect(transport.requests.last?.jsonBody == ["type": "push-notification"])
        let wrongAnswer = await push.confirm(.code(Secret("123456")))
        #expect(wrongAnswer.error?.code == .invalidRequest)
        await push.retry()
        #expect(await push.confirm(.none).name == "completed")

        transport.on(.post, "/me/v1/authentication-methods", first: true) { _ in
            guard case .response(var response) = StubTransport.Reply.json(201, ["id": "r", "auth_session": "s4", "recovery_code": "ABCDEFGHJKLMNPQRSTUVWXYZ"])
            else { return .raw(500, "") }
            response.head.headerFields[.location] = "/me/v1/authentication-methods/recovery-code%7Cdev_4"
            return .response(response)
        }
        transport.on(.post, "/me/v1/authentication-methods/recovery-code|dev_4/verify") { _ in .json(200, ["id": "recovery-code|dev_4", "type": "recovery-code"]) }
        let flow = FactorFlow(Auth0EnrollmentFactor.recoveryCode(try api()))
        guard case .challenge(let saved) = await flow.start(), case .recoveryCode(let code) = saved.prompt else { Issue.record("no code"); return }
        #expect(code.revealed() == "ABCDEFGHJKLMNPQRSTUVWXYZ" && "\(saved.prompt)".contains("ABCDEFGH") == false)
        #expect(await flow.confirm(.none).name == "completed")
    }

    @Test func passkeyEnrollmentCreatesTheCredentialWithTheSoftwareAuthenticator() async throws {
        let challengeBytes = Array(repeating: UInt8(7), count: 32)
        let options: JSONValue = ["challenge": .string(Base64URL.encode(challengeBytes)), "rp": ["id": "tenant.auth0.com", "name": "Tenant"],
                                  "user": ["id": .string(Base64URL.encode(Array("user-1".utf8))), "name": "ada@example.com", "displayName": "Ada"],
                                  "pubKeyCredParams": [["type": "public-key", "alg": -8], ["type": "public-key", "alg": -7]],
                                  "authenticatorSelection": ["residentKey": "required", "userVerification": "preferred"], "timeout": 60000]
        stubEnrollment(id: "passkey|dev_5", body: ["auth_session": "s5", "authn_params_public_key": options]) { request in
            // The relying party's checks: the attestation answers this challenge for this RP.
            guard let response = request.jsonBody?["authn_response"], let registration = try? PasskeyRegistration(json: response),
                  let verified = try? WebAuthnRelyingParty(id: "tenant.auth0.com", origins: ["https://tenant.auth0.com"])
                    .verifyRegistration(registration, challenge: challengeBytes)
            else { return .json(400, ["type": "x", "status": 400, "title": "Bad Request", "detail": "Invalid attestation."]) }
            return .json(200, ["id": "passkey|dev_5", "type": "passkey", "key_id": .string(Base64URL.encode(verified.id))])
        }
        let store = InMemoryPasskeyCredentialStore()
        let authenticator = try SoftwarePasskeyAuthenticator(store: store)
        let flow = FactorFlow(Auth0EnrollmentFactor.passkey(try api(), authenticator: authenticator))
        guard case .challenge(let challenge) = await flow.start(), case .passkey(let creation) = challenge.prompt else { Issue.record("no options"); return }
        #expect(creation.relyingParty.id == "tenant.auth0.com" && creation.user.name == "ada@example.com")
        guard case .completed(let method) = await flow.confirm(.none) else { Issue.record("not completed"); return }
        // §6.5: {auth_session, authn_response:{id, rawId, type, response:{clientDataJSON, attestationObject}}}.
        let verify = try #require(transport.requests.last?.jsonBody)
        #expect(verify["auth_session"] == "s5" && verify["authn_response"]?["type"] == "public-key")
        #expect(verify["authn_response"]?["id"] == verify["authn_response"]?["rawId"] && verify["authn_response"]?["id"] != nil)
        #expect(verify["authn_response"]?["response"]?["clientDataJSON"]?.stringValue != nil
                && verify["authn_response"]?["response"]?["attestationObject"]?.stringValue != nil)
        let stored = try await store.credentials(relyingPartyID: "tenant.auth0.com")
        #expect(stored.count == 1 && method.json["key_id"]?.stringValue == Base64URL.encode(stored[0].id))

        // Without an authenticator the flow says what is missing instead of sending a request.
        let bare = FactorFlow(Auth0EnrollmentFactor.passkey(try api()))
        await bare.start()
        let before = transport.requests.count
        #expect(await bare.confirm(.none).error?.message.contains("authenticator") == true)
        #expect(transport.requests.count == before)
    }

    @Test func passwordEnrollmentChecksThePolicyFirst() async throws {
        stubEnrollment(id: "password|dev_6", body: ["id": "password|dev_6", "auth_session": "s6", "policy": ["complexity": ["min_length": 12]]]) { request in
            .json(200, ["id": "password|dev_6", "type": "password"])
        }
        let flow = FactorFlow(Auth0EnrollmentFactor.password(try api()))
        await flow.start()
        let short = await flow.confirm(.password(Secret("short-pass")))
        #expect(short.error?.code == .weakPassword && short.error?.details["minLength"] == "12")
        #expect(transport.requests.count == 1)
        await flow.retry()
        #expect(await flow.confirm(.password(Secret("a long enough passphrase"))).name == "completed")
        #expect(transport.requests.last?.jsonBody?["new_password"] == "a long enough passphrase")
    }

    @Test func anMFARequirementLeadsToReauthenticationAndTheStepIsRepeated() async throws {
        stubEnrollment(id: "totp|dev_7", body: ["id": "t", "auth_session": "s7", "barcode_uri": "otpauth://totp/T:ada?secret=JBSWY3DPEHPK3PXP"]) { _ in
            .json(200, ["id": "totp|dev_7"])
        }
        tokenFailures.withLock { $0 = [AuthError(.mfaRequired, mfa: MFARequirement(token: Secret("mfa-token")))] }
        let reauthentications = Mutex<[AuthErrorCode]>([])
        let flow = FactorFlow(Auth0EnrollmentFactor.totp(try api())) { error in reauthentications.withLock { $0.append(error.code) } }
        let states = await flow.states()
        #expect(await flow.start().name == "challenge")
        #expect(reauthentications.withLock { $0 } == [.mfaRequired])
        #expect(await names(states, count: 5) == ["idle", "loading", "reauthenticationRequired", "loading", "challenge"])
    }

    @Test func withoutAHandlerTheFlowWaitsForResume() async throws {
        stubEnrollment(id: "totp|dev_8", body: ["id": "t", "auth_session": "s8", "barcode_uri": "otpauth://totp/T:ada?secret=JBSWY3DPEHPK3PXP"]) { _ in
            .json(200, ["id": "totp|dev_8"])
        }
        // The verify call is refused for a missing scope: the confirmation, not the start, is repeated.
        transport.on(.post, "/me/v1/authentication-methods/totp|dev_8/verify", times: 1, first: true) { _ in
            .json(403, ["type": "https://auth0.com/api-errors/A0E-403-0001", "status": 403, "title": "Forbidden",
                        "detail": "Insufficient scope; expected create:me:authentication_methods."])
        }
        let flow = FactorFlow(Auth0EnrollmentFactor.totp(try api()))
        await flow.start()
        let refused = await flow.confirm(.code(Secret("123456")))
        guard case .reauthenticationRequired(let error) = refused else { Issue.record("expected step-up, got \(refused.name)"); return }
        #expect(error.code == .insufficientScope && error.details["requiredScope"] == "create:me:authentication_methods")
        #expect(await flow.resume().name == "completed")
        #expect(transport.requests(to: "/me/v1/authentication-methods/totp|dev_8/verify").count == 2)
        #expect(transport.requests(to: "/me/v1/authentication-methods").count == 1)
    }

    @Test func aFailedReauthenticationFailsTheFlowAndOrdinaryErrorsDoNotAskForIt() async throws {
        tokenFailures.withLock { $0 = [AuthError(.refreshTokenInvalid), AuthError(.network)] }
        let flow = FactorFlow(Auth0EnrollmentFactor.totp(try api())) { _ in throw AuthError(.userCancelled) }
        #expect(await flow.start().error?.code == .userCancelled)
        let again = await flow.retry()
        #expect(again.name == "failed" && again.error?.code == .network)
    }
}
