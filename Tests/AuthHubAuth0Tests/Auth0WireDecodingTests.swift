import AuthHub
@_spi(Internals) @testable import AuthHubAuth0
import AuthHubTesting
import Foundation
import Testing

/// Replies that break the wire models: the error names the provider, the operation and the field,
/// instead of a session with an empty token or a challenge with nothing in it.
@Suite struct Auth0WireDecodingTests {
    let transport = StubTransport()
    let clock = FakeClock()

    var api: Auth0AuthenticationAPI {
        Auth0AuthenticationAPI(providerID: "auth0", clientID: "client-123", baseURL: URL(string: "https://tenant.eu.auth0.com/")!,
                               context: ProviderContext(transport: transport, clock: clock))
    }

    func provider() throws -> Auth0Provider {
        Auth0Provider(id: "main", configuration: try Auth0Configuration(domain: "tenant.auth0.com", clientId: "cid"),
                      context: ProviderContext(transport: transport, clock: clock))
    }

    static let brokenTokenReplies: [(JSONValue, String, String)] = [
        (["token_type": "Bearer", "id_token": "idt", "expires_in": 60], "access_token", "missingField"),
        (["access_token": .null, "expires_in": 60], "access_token", "nullField"),
        (["access_token": ["at"], "expires_in": 60], "access_token", "wrongType"),
        (["access_token": "", "expires_in": 60], "access_token", "invalidValue"),
        (["access_token": "at", "expires_in": ["60"]], "expires_in", "wrongType"),
        (["access_token": "at", "expires_in": 0], "expires_in", "invalidValue"),
        (["access_token": "at", "id_token": 7], "id_token", "wrongType"),
    ]

    @Test(arguments: brokenTokenReplies)
    func passwordSignInReplyBreakingTheModelNamesTheField(body: JSONValue, field: String, reason: String) async {
        transport.on(.post, "/oauth/token") { _ in .json(200, body) }
        let error = await #expect(throws: AuthError.self) {
            _ = try await api.login(usernameOrEmail: "ada@example.com", password: Secret("pw"))
        }
        #expect(error?.code == .invalidRequest)
        #expect(error?.provider == "auth0")
        #expect(error?.details["operation"] == AuthOperation.signIn.rawValue)
        #expect(error?.details["field"] == field)
        #expect(error?.details["reason"] == reason)
    }

    @Test(arguments: brokenTokenReplies)
    func refreshReplyBreakingTheModelNamesTheField(body: JSONValue, field: String, reason: String) async throws {
        transport.on(.post, "/oauth/token") { _ in .json(200, body) }
        let old = Session(providerID: "main", accessToken: Secret("at1"), refreshToken: Secret("rt1"))
        let provider = try provider()
        let error = await #expect(throws: AuthError.self) { _ = try await provider.refresh(old, scope: nil) }
        #expect(error?.code == .invalidRequest)
        #expect(error?.provider == "main")
        #expect(error?.details["operation"] == AuthOperation.refresh.rawValue)
        #expect(error?.details["field"] == field)
        #expect(error?.code != .refreshTokenInvalid, "a broken reply must never clear the stored session")
    }

    static let brokenChallengeReplies: [(JSONValue, String, String)] = [
        (["oob_code": "oob"], "challenge_type", "missingField"),
        (["challenge_type": 1, "oob_code": "oob"], "challenge_type", "wrongType"),
        (["challenge_type": "oob", "oob_code": false], "oob_code", "wrongType"),
    ]

    @Test(arguments: brokenChallengeReplies)
    func mfaChallengeReplyBreakingTheModelNamesTheField(body: JSONValue, field: String, reason: String) async {
        transport.on(.post, "/mfa/challenge") { _ in .json(200, body) }
        let error = await #expect(throws: AuthError.self) {
            _ = try await api.challenge(mfaToken: Secret("mfa"), authenticatorID: "sms|dev_1")
        }
        #expect(error?.code == .invalidRequest)
        #expect(error?.provider == "auth0")
        #expect(error?.details["operation"] == AuthOperation.mfa.rawValue)
        #expect(error?.details["field"] == field)
        #expect(error?.details["reason"] == reason)
    }

    @Test func mfaAuthenticatorWithoutAnIDNamesTheField() async {
        transport.on(.get, "/mfa/authenticators") { _ in .json(200, [["authenticator_type": "otp", "active": true]]) }
        let error = await #expect(throws: AuthError.self) {
            _ = try await api.listAuthenticators(mfaToken: Secret("mfa"), factorsAllowed: ["otp"])
        }
        #expect(error?.details["field"] == "[0].id" && error?.details["operation"] == AuthOperation.mfa.rawValue)
    }

    @Test func userInfoWithoutSubNamesTheField() async {
        transport.on(.get, "/userinfo") { _ in .json(200, ["email": "ada@example.com"]) }
        let error = await #expect(throws: AuthError.self) { _ = try await api.userInfo(accessToken: Secret("at")) }
        #expect(error?.code == .invalidRequest)
        #expect(error?.details["field"] == "sub" && error?.details["operation"] == AuthOperation.userInfo.rawValue)
    }

    @Test func signupWithoutEmailNamesTheField() async {
        transport.on(.post, "/dbconnections/signup") { _ in .json(200, ["_id": "abc"]) }
        let error = await #expect(throws: AuthError.self) {
            _ = try await api.signup(email: "ada@example.com", password: Secret("pw"))
        }
        #expect(error?.details["field"] == "email" && error?.details["operation"] == AuthOperation.signUp.rawValue)
    }

    @Test func refreshReturnsOnlyWhatTheServerSaid() async throws {
        transport.on(.post, "/oauth/token") { _ in .json(200, ["access_token": "at2", "expires_in": 60]) }
        let old = Session(providerID: "main", accountKey: "work", accessToken: Secret("at1"), tokenType: "DPoP", idToken: Secret("idt"),
                          refreshToken: Secret("rt1"), scope: "openid", userID: "auth0|42", claims: ["sub": "auth0|42"],
                          extras: ["x": "y"], issuedAt: Date(timeIntervalSince1970: 1))
        let renewed = try await provider().refresh(old, scope: nil)
        #expect(renewed.accessToken.revealed() == "at2" && renewed.accountKey == "work")
        #expect(renewed.refreshToken == nil && renewed.idToken == nil && renewed.userID == nil && renewed.claims.isEmpty)
        #expect(renewed.scope == nil && renewed.extras.isEmpty && renewed.issuedAt == nil)
    }
}
