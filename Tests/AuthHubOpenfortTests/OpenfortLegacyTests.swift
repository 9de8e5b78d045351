import AuthHub
@_spi(Internals) @testable import AuthHubOpenfort
import AuthHubTesting
import Foundation
import Testing

/// The legacy v1 API behind `apiVersion: "v1"` (spec §8).
@Suite struct OpenfortLegacyTests {
    let transport = StubTransport()
    let clock = FakeClock()
    static let v1 = OpenfortConfiguration(publishableKey: OF.key, baseURL: URL(string: OF.base)!, nativeAppIdentifier: "com.example.app",
                                          apiVersion: .v1)
    var provider: OpenfortProvider { OF.provider(transport, clock, configuration: Self.v1) }

    static func jwt(sub: String = "pla_1", exp: Double = 1_767_229_200) -> String {
        func part(_ json: JSONValue) -> String { Base64URL.encode((try? JSONEncoder().encode(json)) ?? Data()) }
        return part(["alg": "ES256", "typ": "JWT"]) + "." + part(["sub": .string(sub), "exp": .number(exp)]) + ".sig"
    }

    static func authReply(token: String = jwt(), refresh: String = "rt-1") -> JSONValue {
        ["player": ["id": "pla_1", "object": "player", "createdAt": 1_767_225_600,
                    "linkedAccounts": [["provider": "email", "email": "jane@example.com", "disabled": false]]],
         "token": .string(token), "refreshToken": .string(refresh)]
    }

    @Test func capabilitiesHaveNoEmailCodes() {
        #expect(provider.capabilities == OpenfortPlugin.legacyCapabilities && !provider.capabilities.contains(.emailCode))
    }

    @Test func loginHeadersBodyAndSession() async throws {
        transport.on(.post, "/iam/v1/password/login") { _ in .json(200, Self.authReply()) }
        let session = try await provider.signIn(.password(identifier: "jane@example.com", password: Secret("pw")))
        let request = try #require(transport.requests.only)
        #expect(request.header("Authorization") == "Bearer \(OF.key)", "v1: the publishable key as Bearer")
        #expect(request.header("x-player-token") == nil && request.header("x-request-id") != nil)
        #expect(request.jsonBody == ["email": "jane@example.com", "password": "pw"])
        #expect(session.userID == "pla_1" && session.refreshToken?.revealed() == "rt-1")
        #expect(session.expiresAt == Date(timeIntervalSince1970: 1_767_229_200))
    }

    @Test func verifyEmailActions() async throws {
        transport.on(.post, "/iam/v1/password/login") { _ in .json(200, ["action": "verify_email"]) }
        transport.on(.post, "/iam/v1/password/signup") { _ in .json(201, ["action": "verify_email"]) }
        await #expect(throws: AuthError(.emailNotVerified)) {
            _ = try await provider.signIn(.password(identifier: "jane@example.com", password: Secret("pw")))
        }
        guard case .verificationRequired = try await provider.signUp(SignUpRequest(email: "jane@example.com", password: Secret("pw"))) else {
            Issue.record("expected verificationRequired"); return
        }
    }

    @Test func guestIdTokenAndOAuth() async throws {
        transport.on(.post, "/iam/v1/guest") { _ in .json(201, Self.authReply()) }
        transport.on(.post, "/iam/v1/oauth/login_id_token") { _ in .json(200, Self.authReply()) }
        transport.on(.post, "/iam/v1/oauth/init") { _ in .json(201, ["url": "https://accounts.google.com/x", "key": "k"]) }
        _ = try await provider.signIn(.guest)
        _ = try await provider.signIn(.idToken(provider: "google", token: Secret("g.jwt")))
        let url = try await provider.oauthURL(provider: "google", redirectURL: "myapp://cb")
        #expect(url.host == "accounts.google.com")
        #expect(transport.requests.map { $0.jsonBody } == [
            [:], ["provider": "google", "token": "g.jwt"], ["provider": "google", "options": ["redirectTo": "myapp://cb"]],
        ])
    }

    @Test func refreshRotatesAndARejectedTokenEndsTheSession() async throws {
        transport.on(.post, "/iam/v1/sessions", times: 1) { _ in .json(200, Self.authReply(token: Self.jwt(exp: 1_767_232_800), refresh: "rt-2")) }
        transport.on(.post, "/iam/v1/sessions") { _ in .json(401, ["error": ["type": "invalid_request_error", "message": "Invalid refresh token"]]) }
        let old = provider.session(credentials: Secret(Self.jwt()), userID: "pla_1", refreshToken: Secret("rt-1"))
        let renewed = try await provider.refresh(old, scope: nil)
        #expect(renewed.refreshToken?.revealed() == "rt-2" && renewed.expiresAt == Date(timeIntervalSince1970: 1_767_232_800))
        #expect(transport.requests.first?.jsonBody == ["refreshToken": "rt-1", "forceRefresh": true])
        await #expect(throws: AuthError(.refreshTokenInvalid)) { _ = try await provider.refresh(renewed, scope: nil) }
    }

    @Test func logoutAndMeSendThePlayerToken() async throws {
        transport.on(.post, "/iam/v1/sessions/logout") { _ in .raw(204, "") }
        transport.on(.get, "/iam/v1/me") { _ in .json(200, Self.authReply()["player"] ?? nil) }
        let session = provider.session(credentials: Secret("at"), userID: "pla_1", refreshToken: Secret("rt"))
        try await provider.signOut(session)
        let info = try await provider.userInfo(session)
        #expect(info.id == "pla_1" && info.email == "jane@example.com")
        #expect(transport.requests.map { $0.header("x-player-token") } == ["at", "at"])
        #expect(transport.requests.first?.jsonBody == ["refreshToken": "rt"])
    }

    @Test func passwordResetAndVerification() async throws {
        transport.on(.post, "/iam/v1/password/request_reset") { _ in .raw(204, "") }
        transport.on(.post, "/iam/v1/password/request_email_verification") { _ in .raw(204, "") }
        try await provider.requestPasswordReset(email: "jane@example.com", redirectURL: "myapp://reset")
        try await provider.requestEmailVerification(email: "jane@example.com", redirectURL: "myapp://verified")
        #expect(transport.requests.map { $0.jsonBody?["redirectUrl"] } == ["myapp://reset", "myapp://verified"])
    }

    @Test func v2OnlyCallsAreUnsupported() async throws {
        await #expect(throws: AuthError(.unsupported)) { _ = try await provider.startSignIn(.emailCode(email: "a@b.c")) }
        await #expect(throws: AuthError(.unsupported)) { try await provider.requestPasswordResetOTP(email: "a@b.c") }
        await #expect(throws: AuthError(.unsupported)) {
            try await provider.unlink(provider.session(credentials: Secret("t"), userID: "u"), provider: "google")
        }
        #expect(transport.requests.isEmpty)
    }

    @Test func oauthCompletionKeepsTheRefreshToken() async throws {
        transport.on(.post, "/iam/v1/sessions") { _ in .json(200, Self.authReply(refresh: "rt-2")) }
        let auth = OpenfortAuth(provider: provider, store: InMemorySessionStore(), clock: clock)
        let session = try await auth.completeOAuth(callbackURL: "myapp://cb?access_token=\(Self.jwt())&refresh_token=rt-1&player_id=pla_1")
        #expect(session.refreshToken?.revealed() == "rt-2" && session.userID == "pla_1")
        #expect(transport.requests.first?.jsonBody?["refreshToken"] == "rt-1")
    }
}
