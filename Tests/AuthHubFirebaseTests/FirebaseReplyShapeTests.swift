import AuthHub
@_spi(Internals) @testable import AuthHubFirebase
import AuthHubTesting
import Foundation
import Testing

/// Replies that break the wire models: a missing or mistyped required field is an
/// ``AuthErrorCode/invalidRequest`` naming the provider, the operation and the field — never a
/// session with an empty token.
@Suite struct FirebaseReplyShapeTests {
    let transport = StubTransport()
    let clock = FakeClock()

    func api() -> FirebaseAPI {
        FirebaseAPI(providerID: "fb-main", configuration: FB.production, context: ProviderContext(transport: transport, clock: clock))
    }

    func expectNamed(_ error: AuthError?, operation: String, field: String, reason: String,
                     sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(error?.code == .invalidRequest, sourceLocation: sourceLocation)
        #expect(error?.provider == "fb-main", sourceLocation: sourceLocation)
        #expect(error?.details["operation"] == operation, sourceLocation: sourceLocation)
        #expect(error?.details["field"] == field, sourceLocation: sourceLocation)
        #expect(error?.details["reason"] == reason, sourceLocation: sourceLocation)
    }

    func signIn(_ change: (inout [String: JSONValue]) -> Void) async throws -> AuthError? {
        guard case .object(var reply) = try await FB.tokenReply(now: clock.now) else { return nil }
        change(&reply)
        transport.on(.post, "/v1/accounts:signInWithPassword", first: true) { [reply] _ in .json(200, .object(reply)) }
        return await #expect(throws: AuthError.self) {
            try await api().signInWithPassword(email: "a@example.com", password: Secret("pw"))
        }
    }

    @Test func passwordSignInNamesTheMissingOrMistypedField() async throws {
        expectNamed(try await signIn { $0["idToken"] = nil }, operation: "sign-in", field: "idToken", reason: "missingField")
        expectNamed(try await signIn { $0["refreshToken"] = nil }, operation: "sign-in", field: "refreshToken", reason: "missingField")
        expectNamed(try await signIn { $0["expiresIn"] = nil }, operation: "sign-in", field: "expiresIn", reason: "missingField")
        expectNamed(try await signIn { $0["idToken"] = 42 }, operation: "sign-in", field: "idToken", reason: "wrongType")
        expectNamed(try await signIn { $0["refreshToken"] = "" }, operation: "sign-in", field: "refreshToken", reason: "invalidValue")
        expectNamed(try await signIn { $0["expiresIn"] = "-5" }, operation: "sign-in", field: "expiresIn", reason: "invalidValue")
        expectNamed(try await signIn { $0["expiresIn"] = true }, operation: "sign-in", field: "expiresIn", reason: "wrongType")
    }

    @Test func secureTokenRefreshNamesIDToken() async throws {
        transport.on(.post, "/v1/token", first: true) { _ in .json(200, ["refresh_token": "rt-2", "expires_in": "3600"]) }
        let missing = await #expect(throws: AuthError.self) { try await api().refresh(refreshToken: Secret("rt")) }
        expectNamed(missing, operation: "refresh", field: "id_token", reason: "missingField")

        transport.on(.post, "/v1/token", first: true) { _ in .json(200, ["id_token": ["not": "a string"], "expires_in": "3600"]) }
        let mistyped = await #expect(throws: AuthError.self) { try await api().refresh(refreshToken: Secret("rt")) }
        expectNamed(mistyped, operation: "refresh", field: "id_token", reason: "wrongType")

        transport.on(.post, "/v1/token", first: true) { _ in .json(200, ["id_token": "x.y.", "expires_in": "forever"]) }
        let absurd = await #expect(throws: AuthError.self) { try await api().refresh(refreshToken: Secret("rt")) }
        expectNamed(absurd, operation: "refresh", field: "expires_in", reason: "invalidValue")
    }

    @Test func sessionsFromRepliesCarryNoEmptyToken() async throws {
        let provider = FB.provider(transport, clock)
        FB.serveKeys(transport)
        transport.on(.post, "/v1/accounts:signInWithPassword") { [clock] _ in
            guard case .object(var reply) = try await FB.tokenReply(now: clock.now) else { return .json(500, [:]) }
            reply["refreshToken"] = nil
            return .json(200, .object(reply))
        }
        let error = await #expect(throws: AuthError(.invalidRequest)) {
            try await provider.signIn(.password(identifier: "a@example.com", password: Secret("pw")))
        }
        #expect(error?.details["field"] == "refreshToken" && error?.details["operation"] == "sign-in")
    }
}
