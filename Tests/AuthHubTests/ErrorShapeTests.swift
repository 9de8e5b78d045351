import AuthHub
import AuthHubOIDC
@_spi(Internals) import AuthHubOpenfort
import AuthHubTesting
import Foundation
import Testing

/// The shape of errors: immutable, matched by code in `catch`, mapped per operation, and replies that
/// break a wire model's promise named by provider, operation and field.
@Suite struct ErrorShapeTests {
    // MARK: AuthError and AuthErrorCode

    @Test func authErrorFieldsCannotBeAssignedFromOutside() {
        // A key path formed outside the type is writable only where the setter is visible.
        #expect(!((\AuthError.code as AnyKeyPath) is WritableKeyPath<AuthError, AuthErrorCode>))
        #expect(!((\AuthError.message as AnyKeyPath) is WritableKeyPath<AuthError, String>))
        #expect(!((\AuthError.provider as AnyKeyPath) is WritableKeyPath<AuthError, String?>))
        #expect(!((\AuthError.details as AnyKeyPath) is WritableKeyPath<AuthError, [String: String]>))
        #expect(!((\AuthError.isRetryable as AnyKeyPath) is WritableKeyPath<AuthError, Bool>))
        // Changes are copies.
        let original = AuthError(.network, provider: "p")
        let copy = original.with(code: .timeout, isRetryable: false)
        #expect(original.code == .network && original.isRetryable)
        #expect(copy.code == .timeout && !copy.isRetryable && copy.provider == "p")
    }

    @Test func codesAreNotStringLiterals() {
        // A misspelt code must not compile: the type is not ExpressibleByStringLiteral.
        #expect(!(AuthErrorCode.self is any ExpressibleByStringLiteral.Type))
        #expect(AuthErrorCode("plugin.own").rawValue == "plugin.own")
        #expect(AuthErrorCode.invalidCredentials.rawValue == "invalidCredentials")
    }

    @Test func catchMatchesByCode() {
        func attempt(_ error: any Error) -> String {
            do { throw error }
            catch AuthErrorCode.invalidCredentials { return "credentials" }
            catch AuthErrorCode.mfaRequired { return "mfa" }
            catch { return "other" }
        }
        #expect(attempt(AuthError(.invalidCredentials)) == "credentials")
        #expect(attempt(AuthError(.mfaRequired, provider: "auth0")) == "mfa")
        #expect(attempt(AuthError(.network)) == "other")
        #expect(attempt(CancellationError()) == "other")

        let error: any Error = AuthError(.rateLimited)
        switch error {
        case AuthErrorCode.rateLimited: break
        default: Issue.record("switch over an Error did not match by code")
        }
        #expect(AuthErrorCode.rateLimited ~= AuthError(.rateLimited))
        #expect(!(AuthErrorCode.network ~= AuthError(.rateLimited)))
    }

    // MARK: Mapping per operation

    @Test func errorMapperSeesTheOperation() async throws {
        struct Recorder: ErrorMapper {
            let seen: SeenOperations
            func map(_ response: HTTPReply, provider: String, operation: AuthOperation) -> AuthError {
                seen.append(operation)
                return AuthError(operation == .refresh ? .refreshTokenInvalid : .invalidCredentials, provider: provider)
            }
        }
        let seen = SeenOperations()
        let transport = StubTransport()
        transport.on(.post, "/token") { _ in .json(400, ["error": "invalid_grant"]) }
        let client = APIClient(provider: "p", baseURL: URL(string: "https://idp.example.com")!, transport: transport,
                               errorMapper: Recorder(seen: seen), clock: FakeClock())
        await #expect(throws: AuthError(.refreshTokenInvalid)) {
            _ = try await client.send(APIRequest(.post, "/token", retry: .never, operation: .refresh))
        }
        await #expect(throws: AuthError(.invalidCredentials)) {
            _ = try await client.send(APIRequest(.post, "/token", retry: .never, operation: .signIn))
        }
        await #expect(throws: AuthError(.invalidCredentials)) {
            _ = try await client.send(try APIRequest.json(.post, "/token", ["a": 1], retry: .never))
        }
        #expect(seen.values == [.refresh, .signIn, .other])
    }

    @Test func refreshTokenRejectionIsDecidedInTheMapper() {
        func reply(_ status: Int, _ body: String) -> HTTPReply {
            HTTPReply(status: status, headerFields: [.contentType: "application/json"], body: Data(body.utf8))
        }
        let grant = reply(400, #"{"error":"invalid_grant","error_description":"Unknown or invalid refresh token."}"#)
        let oauth = OAuthErrorMapper()
        let onRefresh = oauth.map(grant, provider: "oidc", operation: .refresh)
        #expect(onRefresh.code == .refreshTokenInvalid && !onRefresh.isRetryable && onRefresh.providerCode == "invalid_grant")
        #expect(oauth.map(grant, provider: "oidc", operation: .signIn).code == .invalidCredentials)
        #expect(oauth.map(grant, provider: "oidc", operation: .tokenExchange).code == .invalidCredentials)

        let unauthorized = reply(401, #"{"code":"UNAUTHORIZED","message":"Unauthorized"}"#)
        #expect(OpenfortErrorMapper(sessionCall: true).map(unauthorized, provider: "of", operation: .refresh).code == .refreshTokenInvalid)
        #expect(OpenfortErrorMapper(sessionCall: true).map(unauthorized, provider: "of", operation: .userInfo).code != .refreshTokenInvalid)
        let notFound = reply(404, #"{"error":{"type":"not_found","message":"Session not found"}}"#)
        #expect(OpenfortErrorMapper(legacyAPI: true).map(notFound, provider: "of", operation: .refresh).code == .refreshTokenInvalid)
        #expect(OpenfortErrorMapper().map(notFound, provider: "of", operation: .refresh).code != .refreshTokenInvalid)
    }

    // MARK: Replies that break the wire model

    struct TokenReply: Decodable {
        var accessToken: String
        var expiresIn: Int
        var user: User?
        struct User: Decodable { var email: String }
        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token", expiresIn = "expires_in", user
        }
    }

    func decodeFailure(_ body: String) async throws -> AuthError {
        let transport = StubTransport()
        transport.on(.post, "/token") { _ in .raw(200, body, headerFields: [.contentType: "application/json"]) }
        let client = APIClient(provider: "acme", baseURL: URL(string: "https://idp.example.com")!, transport: transport, clock: FakeClock())
        do {
            _ = try await client.send(APIRequest(.post, "/token", operation: .refresh), as: TokenReply.self)
        } catch let error as AuthError {
            return error
        }
        Issue.record("decoding \(body) did not fail")
        return AuthError(.unknown)
    }

    @Test func aMissingRequiredFieldIsNamed() async throws {
        let error = try await decodeFailure(#"{"expires_in": 3600, "token_type": "Bearer"}"#)
        #expect(error.code == .invalidRequest)
        #expect(error.provider == "acme")
        #expect(error.details["operation"] == "refresh")
        #expect(error.details["field"] == "access_token")
        #expect(error.details["reason"] == "missingField")
        #expect(error.message.contains("acme") && error.message.contains("refresh") && error.message.contains("access_token"))
    }

    @Test func aFieldOfTheWrongTypeIsNamed() async throws {
        let error = try await decodeFailure(#"{"access_token": "at", "expires_in": "soon"}"#)
        #expect(error.details["field"] == "expires_in")
        #expect(error.details["reason"] == "wrongType")
        #expect(error.message.contains("expires_in") && error.message.contains("a number"))

        let nested = try await decodeFailure(#"{"access_token": "at", "expires_in": 1, "user": {"email": 7}}"#)
        #expect(nested.details["field"] == "user.email")

        let null = try await decodeFailure(#"{"access_token": null, "expires_in": 1}"#)
        #expect(null.details["field"] == "access_token")
        #expect(null.details["reason"] == "nullField")
    }

    @Test func aBodyThatIsNotJSONIsSaidSoWithoutQuotingIt() async throws {
        let error = try await decodeFailure("<html>secret-token-xyz</html>")
        #expect(error.details["reason"] == "notJSON")
        #expect(error.details["field"] == nil)
        #expect(!error.message.contains("secret-token-xyz"))
        let empty = try await decodeFailure("")
        #expect(empty.message.contains("empty"))
    }
}

/// Collects operations seen by a mapper (which must be `Sendable`).
final class SeenOperations: Sendable {
    private let lock = Mutex<[AuthOperation]>([])
    func append(_ op: AuthOperation) { lock.withLock { $0.append(op) } }
    var values: [AuthOperation] { lock.withLock { $0 } }
}
