import AuthHub
@_spi(Internals) @testable import AuthHubOpenfort
import AuthHubTesting
import Foundation
import Testing

/// Replies that break the wire models: a missing or mistyped required field is an
/// ``AuthErrorCode/invalidRequest`` naming the provider, the operation and the field.
@Suite struct OpenfortReplyShapeTests {
    let transport = StubTransport()

    var provider: OpenfortProvider {
        OpenfortProvider(id: "of-main", configuration: OF.configuration, context: ProviderContext(transport: transport, clock: FakeClock()))
    }

    func expectNamed(_ error: AuthError?, operation: String, field: String?, reason: String,
                     sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(error?.code == .invalidRequest, sourceLocation: sourceLocation)
        #expect(error?.provider == "of-main", sourceLocation: sourceLocation)
        #expect(error?.details["operation"] == operation, sourceLocation: sourceLocation)
        #expect(error?.details["field"] == field, sourceLocation: sourceLocation)
        #expect(error?.details["reason"] == reason, sourceLocation: sourceLocation)
    }

    func signIn(_ reply: JSONValue) async -> AuthError? {
        transport.on(.post, OF.path("sign-in/email"), first: true) { _ in .json(200, reply) }
        return await #expect(throws: AuthError.self) { _ = try await provider.api.signIn(email: "a@b.c", password: Secret("p")) }
    }

    @Test func signInNamesTokenAndUser() async throws {
        expectNamed(await signIn(["token": 7, "user": OF.user()]), operation: "sign-in", field: "token", reason: "wrongType")
        expectNamed(await signIn(["token": "t"]), operation: "sign-in", field: "user", reason: "missingField")
        expectNamed(await signIn(["token": "t", "user": "u"]), operation: "sign-in", field: "user", reason: "wrongType")
        expectNamed(await signIn(["token": "t", "user": ["email": "a@b.c"]]), operation: "sign-in", field: "user.id", reason: "missingField")
        expectNamed(await signIn(["token": "t", "user": ["id": 1]]), operation: "sign-in", field: "user.id", reason: "wrongType")
    }

    @Test func getSessionNamesTheField() async throws {
        func refresh(_ reply: JSONValue) async -> AuthError? {
            transport.on(.get, OF.path("get-session"), first: true) { _ in .json(200, reply) }
            return await #expect(throws: AuthError.self) {
                _ = try await provider.refresh(provider.session(token: Secret("t"), userID: "u"), scope: nil)
            }
        }
        expectNamed(await refresh(["session": "s", "user": OF.user()]), operation: "refresh", field: "session", reason: "wrongType")
        expectNamed(await refresh(["session": ["token": 5], "user": OF.user()]), operation: "refresh", field: "session.token",
                    reason: "wrongType")
        expectNamed(await refresh(["session": ["token": "t", "expiresAt": "someday"], "user": OF.user()]), operation: "refresh",
                    field: "session.expiresAt", reason: "invalidValue")
        expectNamed(await refresh(["session": ["token": "t"], "user": ["name": "no id"]]), operation: "refresh", field: "user.id",
                    reason: "missingField")
        expectNamed(await refresh([1, 2]), operation: "refresh", field: nil, reason: "wrongType")

        // `null` is no session: the refresh token is invalid, not the reply.
        transport.on(.get, OF.path("get-session"), first: true) { _ in .raw(200, "null") }
        await #expect(throws: AuthError(.refreshTokenInvalid)) {
            _ = try await provider.refresh(provider.session(token: Secret("t"), userID: "u"), scope: nil)
        }
    }

    @Test func refreshReturnsOnlyWhatTheServerSaid() async throws {
        transport.on(.get, OF.path("get-session")) { _ in .json(200, ["session": ["expiresAt": "2026-01-08T00:00:00.000Z"]]) }
        var old = provider.session(token: Secret("tok-1"), userID: "user-1", user: nil)
        old.claims = ["email": "a@b.c"]
        old.extras = ["x": true]
        let renewed = try await provider.refresh(old, scope: nil)
        #expect(renewed.accessToken.revealed() == "tok-1", "no new token: the one sent is still the session's")
        #expect(renewed.refreshToken == nil && renewed.userID == nil && renewed.claims.isEmpty && renewed.extras.isEmpty)
        #expect(renewed.issuedAt == nil)
        let merged = SessionManager.merge(renewed: renewed, into: old, requestedScope: nil, key: SessionKey(provider: "of-main"))
        #expect(merged.refreshToken?.revealed() == "tok-1" && merged.userID == "user-1" && merged.claims == old.claims)
        #expect(merged.issuedAt == old.issuedAt && merged.extras["x"] == true)
    }

    @Test func legacyRefreshNamesTheToken() async throws {
        let legacy = OpenfortProvider(id: "of-main", configuration: OpenfortConfiguration(publishableKey: OF.key, baseURL: URL(string: OF.base)!,
                                                                                          apiVersion: .v1),
                                      context: ProviderContext(transport: transport, clock: FakeClock()))
        transport.on(.post, "/iam/v1/sessions") { _ in .json(200, ["player": ["id": "pla_1"], "refreshToken": "rt"]) }
        let error = await #expect(throws: AuthError.self) {
            _ = try await legacy.refresh(legacy.session(credentials: Secret("a.b.c"), userID: "pla_1", refreshToken: Secret("rt")), scope: nil)
        }
        expectNamed(error, operation: "refresh", field: "token", reason: "missingField")
    }
}
