import AuthHub
import AuthHubAuth0
import AuthHubEmulator
import AuthHubTesting
import Foundation
import Testing

/// Token exchange (spec §3.5) and out-of-band MFA (§3.7): the Auth0 client against the emulator.
@Suite struct Auth0ExchangeAndOOBTests {
    typealias Tenant = Auth0IntegrationTests.Tenant

    func hook(_ tenant: Tenant, _ method: HTTPRequest.Method, _ path: String, _ body: JSONValue? = nil) async throws -> JSONValue? {
        let reply = try await tenant.wire.send(method, tenant.emulator.url(path), headerFields: body == nil ? [:] : [.contentType: "application/json"], body: try body.map { try JSONEncoder().encode($0) })
        #expect((200...299).contains(reply.status), "\(path): \(reply.status) \(String(decoding: reply.body, as: UTF8.self))")
        return try? JSONValue.parse(reply.body)
    }

    @Test func appleAndCustomTokenExchanges() async throws {
        let tenant = try await Tenant.start()
        defer { Task { await tenant.emulator.stop() } }
        let api = tenant.provider.authentication
        let apple = try await api.loginWithApple(authorizationCode: Secret("emulator:ivy@example.com"), givenName: "Ivy", familyName: "Lee")
        let appleSession = tenant.provider.session(from: apple)
        #expect(appleSession.claims["email"] == "ivy@example.com" && appleSession.claims["given_name"] == "Ivy")
        #expect(appleSession.userID?.hasPrefix("apple|") == true && apple.refreshToken != nil)

        let wrong = await #expect(throws: AuthError.self) {
            try await api.loginWithApple(authorizationCode: Secret("a-real-apple-code"))
        }
        #expect(wrong?.providerCode == "invalid_grant")

        _ = try await hook(tenant, .post, "/auth0/__emulator/token-exchange",
                           ["subject_token_type": "urn:acme:legacy-token", "subject_token": "legacy-42", "email": "jo@example.com"])
        let custom = try await api.exchange(subjectToken: Secret("legacy-42"), subjectTokenType: "urn:acme:legacy-token")
        #expect(tenant.provider.session(from: custom).claims["email"] == "jo@example.com")
        let delegated = try await api.exchange(subjectToken: Secret("legacy-42"), subjectTokenType: "urn:acme:legacy-token",
                                               actorToken: Secret("svc"), actorTokenType: "urn:acme:service")
        #expect(delegated.refreshToken == nil, "no refresh token for a delegated (actor) exchange")
    }

    @Test func smsEnrollmentThenChallengeWithBindingCodes() async throws {
        let tenant = try await Tenant.start()
        defer { Task { await tenant.emulator.stop() } }
        try await tenant.seed("kim@example.com", extra: ["mfa_required": true])
        let api = tenant.provider.authentication

        // First login: a factor must be enrolled; enroll SMS and verify with the binding code.
        let first = await #expect(throws: AuthError.self) { try await tenant.signIn("kim@example.com") }
        let enrollToken = try #require(first?.mfa?.token)
        let enrollment = try await api.enroll(mfaToken: enrollToken, .sms(phoneNumber: "+15555550100"))
        #expect(enrollment.authenticatorType == "oob" && enrollment.oobChannel == "sms")
        let enrollOOB = try #require(enrollment.oobCode)
        let sent = try await hook(tenant, .get, "/auth0/__emulator/mfa-binding-code?oob_code=\(enrollOOB.revealed())")
        let binding = try #require(sent?["binding_code"]?.stringValue)
        let session = try await tenant.provider.signIn(mfa: try #require(first?.mfa), .oob(code: enrollOOB, bindingCode: Secret(binding)))
        #expect(session.claims["email"] == "kim@example.com")

        // Second login: challenge the enrolled phone; a wrong binding code is refused, the right one signs in.
        let second = await #expect(throws: AuthError.self) { try await tenant.signIn("kim@example.com") }
        let requirement = try #require(second?.mfa)
        let phones = try await api.listAuthenticators(mfaToken: requirement.token, factorsAllowed: ["phone", "sms"])
        let phone = try #require(phones.first { $0.oobChannel == "sms" })
        let challenge = try await api.challenge(mfaToken: requirement.token, authenticatorID: phone.id)
        let oob = try #require(challenge.oobCode)
        let code = try #require(try await hook(tenant, .get, "/auth0/__emulator/mfa-binding-code?oob_code=\(oob.revealed())")?["binding_code"]?.stringValue)
        let wrongCode = code == "000000" ? "111111" : "000000"
        let refused = await #expect(throws: AuthError.self) {
            try await tenant.provider.signIn(mfa: requirement, .oob(code: oob, bindingCode: Secret(wrongCode)))
        }
        #expect(refused?.code == .invalidMFACode && refused?.auth0.isMultifactorCodeInvalid == true)
        let again = try await tenant.provider.signIn(mfa: requirement, .oob(code: oob, bindingCode: Secret(code)))
        #expect(again.claims["email"] == "kim@example.com")
    }
}
