import AuthHub
@_spi(Internals) @testable import AuthHubAuth0
import AuthHubTesting
import Foundation
import Testing

/// The Management API user requests of spec/auth0.md §7 on the wire, and its errors.
@Suite struct Auth0ManagementAPITests {
    let transport = StubTransport()
    let scopes = Mutex<[String]>([])

    var provider: Auth0Provider {
        get throws {
            Auth0Provider(id: "auth0", configuration: try Auth0Configuration(domain: "tenant.auth0.com", clientId: "cid"),
                          context: ProviderContext(transport: transport, clock: FakeClock()))
        }
    }

    var api: Auth0ManagementAPI {
        get throws {
            let scopes = self.scopes
            return try provider.management { scope in
                scopes.withLock { $0.append(scope) }
                return Auth0APICredentials(accessToken: Secret("mgmt-\(scope)"), tokenType: "Bearer", expiresAt: .distantFuture, scope: scope)
            }
        }
    }

    static let userJSON: JSONValue = [
        "user_id": "auth0|64f0c0ffee", "email": "ada@example.com", "email_verified": true, "name": "Ada Lovelace",
        "nickname": "ada", "picture": "https://example.com/ada.png",
        "identities": [
            ["provider": "auth0", "user_id": "64f0c0ffee", "connection": "Username-Password-Authentication", "isSocial": false],
            ["provider": "github", "user_id": 1_234_567, "connection": "github", "isSocial": true, "access_token": "gho_secret"],
        ],
        "user_metadata": ["theme": "dark", "nested": ["a": 1]], "app_metadata": ["plan": "pro"],
        "created_at": "2026-01-02T03:04:05.678Z", "updated_at": "2026-02-03T04:05:06Z", "logins_count": 7,
    ]

    // MARK: - Get user

    @Test func getUserWithoutFieldsSendsNoQuery() async throws {
        transport.on(.get, "/api/v2/users/auth0|64f0c0ffee") { _ in .json(200, Self.userJSON) }
        let user = try await api.user(id: "auth0|64f0c0ffee")
        let request = try #require(transport.requests.last)
        #expect(request.method == .get)
        #expect(request.url.absoluteString == "https://tenant.auth0.com/api/v2/users/auth0%7C64f0c0ffee")
        #expect(request.url.query == nil)
        #expect(request.headerFields["Authorization"] == "Bearer mgmt-read:current_user")
        #expect(request.body == nil || request.body?.isEmpty == true)
        #expect(scopes.withLock { $0 } == ["read:current_user"])

        #expect(user.userID == "auth0|64f0c0ffee" && user.email == "ada@example.com" && user.emailVerified == true)
        #expect(user.name == "Ada Lovelace" && user.nickname == "ada" && user.picture == "https://example.com/ada.png")
        #expect(user.identities.map(\.provider) == ["auth0", "github"])
        #expect(user.identities.map(\.userID) == ["64f0c0ffee", "1234567"])  // a numeric id read as text
        #expect(user.identities.first?.connection == "Username-Password-Authentication" && user.identities.last?.isSocial == true)
        #expect(user.userMetadata == ["theme": "dark", "nested": ["a": 1]] && user.appMetadata == ["plan": "pro"])
        #expect(abs((user.createdAt?.timeIntervalSince1970 ?? 0) - 1_767_323_045.678) < 0.0005)
        #expect(user.updatedAt == Date(timeIntervalSince1970: 1_770_091_506))
        #expect(user.json["logins_count"] == 7)
        // Descriptions name the account, never the metadata or an identity provider's token.
        #expect(!String(describing: user).contains("dark") && !String(describing: user.identities).contains("gho_secret"))
    }

    @Test func getUserWithFieldsSendsBothQueryItems() async throws {
        transport.on(.get, "/api/v2/users/google-oauth2|1 2") { _ in .json(200, ["email": "x@example.com"]) }
        let api = try api
        let user = try await api.user(id: "google-oauth2|1 2", fields: ["email", "user_id", "identities"])
        #expect(user.email == "x@example.com" && user.userID == nil && user.identities.isEmpty)
        var request = try #require(transport.requests.last)
        #expect(request.url.path(percentEncoded: true) == "/api/v2/users/google-oauth2%7C1%202")
        #expect(request.queryItems == ["fields": "email,user_id,identities", "include_fields": "true"])
        _ = try await api.user(id: "google-oauth2|1 2", fields: ["app_metadata"], includeFields: false)
        request = try #require(transport.requests.last)
        #expect(request.queryItems == ["fields": "app_metadata", "include_fields": "false"])
        _ = try await api.user(id: "google-oauth2|1 2", fields: [], includeFields: false)
        #expect(transport.requests.last?.url.query == nil)
    }

    // MARK: - Update metadata

    @Test func updateUserMetadataPatchesOnlyUserMetadata() async throws {
        transport.on(.patch, "/api/v2/users/auth0|64f0c0ffee") { request in
            var user = Self.userJSON.objectValue ?? [:]
            user["user_metadata"] = request.jsonBody?["user_metadata"]
            return .json(200, .object(user))
        }
        let user = try await api.updateUserMetadata(id: "auth0|64f0c0ffee", ["theme": "light", "remove_me": nil, "count": 3])
        let request = try #require(transport.requests.last)
        #expect(request.method == .patch)
        #expect(request.url.absoluteString == "https://tenant.auth0.com/api/v2/users/auth0%7C64f0c0ffee")
        #expect(request.headerFields["Authorization"] == "Bearer mgmt-update:current_user_metadata")
        #expect(request.headerFields["Content-Type"]?.hasPrefix("application/json") == true)
        #expect(request.jsonBody == ["user_metadata": ["theme": "light", "remove_me": nil, "count": 3]])
        #expect(user.userMetadata["theme"] == "light")
        #expect(scopes.withLock { $0 } == ["update:current_user_metadata"])
    }

    // MARK: - Link and unlink

    static let identitiesJSON: JSONValue = [
        ["provider": "auth0", "user_id": "64f0c0ffee", "connection": "Username-Password-Authentication", "isSocial": false],
        ["provider": "google-oauth2", "user_id": "1098", "connection": "google-oauth2", "isSocial": true],
    ]

    @Test func linkWithTokenSendsLinkWith() async throws {
        transport.on(.post, "/api/v2/users/auth0|64f0c0ffee/identities") { _ in .json(201, Self.identitiesJSON) }
        let identities = try await api.link(userID: "auth0|64f0c0ffee", withToken: Secret("eyJ.secondary.token"))
        let request = try #require(transport.requests.last)
        #expect(request.method == .post)
        #expect(request.url.absoluteString == "https://tenant.auth0.com/api/v2/users/auth0%7C64f0c0ffee/identities")
        #expect(request.headerFields["Authorization"] == "Bearer mgmt-update:current_user_identities")
        #expect(request.jsonBody == ["link_with": "eyJ.secondary.token"])
        #expect(identities.map(\.provider) == ["auth0", "google-oauth2"] && identities.last?.userID == "1098")
        #expect(scopes.withLock { $0 } == ["update:current_user_identities"])
    }

    @Test func serverSideLinkSendsProviderAndUserID() async throws {
        transport.on(.post, "/api/v2/users/auth0|64f0c0ffee/identities") { _ in .json(201, Self.identitiesJSON) }
        let api = try api
        _ = try await api.link(userID: "auth0|64f0c0ffee", provider: "google-oauth2", secondaryUserID: "1098", connectionID: "con_abc")
        #expect(transport.requests.last?.jsonBody == ["provider": "google-oauth2", "user_id": "1098", "connection_id": "con_abc"])
        _ = try await api.link(userID: "auth0|64f0c0ffee", provider: "auth0", secondaryUserID: "5551")
        #expect(transport.requests.last?.jsonBody == ["provider": "auth0", "user_id": "5551"])
        #expect(transport.requests.last?.headerFields["Authorization"] == "Bearer mgmt-update:users")
        #expect(scopes.withLock { $0 } == ["update:users", "update:users"])
    }

    @Test func unlinkSendsTheIDAfterTheProviderPrefix() async throws {
        transport.on(.delete, "/api/v2/users/auth0|64f0c0ffee/identities/google-oauth2/1098") { _ in
            .json(200, [["provider": "auth0", "user_id": "64f0c0ffee", "connection": "Username-Password-Authentication", "isSocial": false]])
        }
        transport.on(.delete, "/api/v2/users/auth0|64f0c0ffee/identities/samlp/acme|jo@example.com") { _ in .json(200, []) }
        let api = try api
        let left = try await api.unlink(userID: "auth0|64f0c0ffee", provider: "google-oauth2", secondaryUserID: "google-oauth2|1098")
        #expect(left.map(\.provider) == ["auth0"])
        var request = try #require(transport.requests.last)
        #expect(request.method == .delete)
        #expect(request.url.absoluteString == "https://tenant.auth0.com/api/v2/users/auth0%7C64f0c0ffee/identities/google-oauth2/1098")
        #expect(request.headerFields["Authorization"] == "Bearer mgmt-update:current_user_identities")
        #expect(request.body == nil || request.body?.isEmpty == true)
        // The bare id works the same.
        _ = try await api.unlink(userID: "auth0|64f0c0ffee", provider: "google-oauth2", secondaryUserID: "1098")
        #expect(transport.requests.last?.url == request.url)
        // An enterprise id keeps its own `|` (only the provider prefix is removed), encoded.
        #expect(try await api.unlink(userID: "auth0|64f0c0ffee", provider: "samlp", secondaryUserID: "samlp|acme|jo@example.com").isEmpty)
        request = try #require(transport.requests.last)
        #expect(request.url.path(percentEncoded: true) == "/api/v2/users/auth0%7C64f0c0ffee/identities/samlp/acme%7Cjo%40example.com")
        #expect(scopes.withLock { $0 } == Array(repeating: "update:current_user_identities", count: 3))
    }

    /// With a credentials manager, each call's token is exchanged with the refresh token for the
    /// audience `https://<domain>/api/v2/` and the call's scope, then used as the bearer token.
    @Test func credentialsManagerTokensAreForTheManagementAudience() async throws {
        let clock = FakeClock()
        let provider = Auth0Provider(id: "auth0", configuration: try Auth0Configuration(domain: "tenant.auth0.com", clientId: "cid"),
                                     context: ProviderContext(transport: transport, clock: clock))
        let manager = Auth0CredentialsManager(provider: provider, store: InMemorySessionStore(), clock: clock)
        try await manager.store(Auth0Credentials(accessToken: Secret("at-1"), idToken: Secret(Auth0ProviderTests.idToken(["sub": "auth0|1"])),
                                                 refreshToken: Secret("rt-1"), expiresAt: clock.now.addingTimeInterval(3600), scope: "openid"))
        transport.on(.post, "/oauth/token") { request in
            let scope = request.jsonBody?["scope"]?.stringValue ?? ""
            return .json(200, ["access_token": .string("api-at." + scope.replacingOccurrences(of: " ", with: "+")), "expires_in": 600, "scope": .string(scope), "token_type": "Bearer"])
        }
        transport.on(.get, "/api/v2/users/auth0|1") { _ in .json(200, ["user_id": "auth0|1"]) }
        let api = provider.management(credentials: manager)
        #expect(api.audience == "https://tenant.auth0.com/api/v2/")
        #expect(try await api.user(id: "auth0|1").userID == "auth0|1")
        let exchange = try #require(transport.requests(to: "/oauth/token").last)
        #expect(exchange.jsonBody?["audience"] == "https://tenant.auth0.com/api/v2/")
        #expect(exchange.jsonBody?["scope"] == "openid read:current_user")
        #expect(transport.requests.last?.headerFields["Authorization"] == "Bearer api-at.openid+read:current_user")
    }

    @Test func dPoPTokenTypeIsUsedAsTheScheme() async throws {
        transport.on(.get, "/api/v2/users/auth0|1") { _ in .json(200, ["user_id": "auth0|1"]) }
        let api = try provider.management { _ in
            Auth0APICredentials(accessToken: Secret("dpop-at"), tokenType: "DPoP", expiresAt: .distantFuture, scope: "")
        }
        _ = try await api.user(id: "auth0|1")
        #expect(transport.requests.last?.headerFields["Authorization"] == "DPoP dpop-at")
    }

    // MARK: - Errors

    static func errorBody(_ status: Int, _ error: String, _ message: String, _ errorCode: String?) -> JSONValue {
        var body: [String: JSONValue] = ["statusCode": .number(Double(status)), "error": .string(error), "message": .string(message)]
        if let errorCode { body["errorCode"] = .string(errorCode) }
        return .object(body)
    }

    /// Error bodies as Auth0 sends them, with the canonical code each maps to.
    static let errorCases: [(status: Int, body: JSONValue, code: AuthErrorCode, providerCode: String, message: String)] = [
        (400, errorBody(400, "Bad Request", "Payload validation error: 'Expected type object but found type string' on property user_metadata.", "invalid_body"),
         .invalidRequest, "invalid_body", "Payload validation error: 'Expected type object but found type string' on property user_metadata."),
        (401, errorBody(401, "Unauthorized", "Invalid token", nil), .invalidToken, "Unauthorized", "Invalid token"),
        (401, errorBody(401, "Unauthorized", "Expired token received for JSON Web Token validation", "invalid_token"),
         .invalidToken, "invalid_token", "Expired token received for JSON Web Token validation"),
        (403, errorBody(403, "Forbidden", "Insufficient scope, expected any of: read:users,read:current_user", "insufficient_scope"),
         .insufficientScope, "insufficient_scope", "Insufficient scope, expected any of: read:users,read:current_user"),
        (403, errorBody(403, "Forbidden", "You cannot update the user's metadata of another user.", "operation_not_supported"),
         .accessDenied, "operation_not_supported", "You cannot update the user's metadata of another user."),
        (404, errorBody(404, "Not Found", "The user does not exist.", "inexistent_user"), .userNotFound, "inexistent_user", "The user does not exist."),
        (404, errorBody(404, "Not Found", "Not Found", nil), .invalidRequest, "Not Found", "Not Found"),
        (409, errorBody(409, "Conflict", "Main identity and the new one are the same.", "conflict"), .conflict, "conflict",
         "Main identity and the new one are the same."),
        (429, errorBody(429, "Too Many Requests", "Global limit has been reached", "too_many_requests"), .rateLimited,
         "too_many_requests", "Global limit has been reached"),
        (503, errorBody(503, "Service Unavailable", "Service temporarily unavailable", nil), .providerUnavailable,
         "Service Unavailable", "Service temporarily unavailable"),
    ]

    @Test func everyErrorBodyIsMapped() {
        let mapper = Auth0ManagementErrorMapper()
        for item in Self.errorCases {
            let data = (try? JSONEncoder().encode(item.body)) ?? Data()
            let error = mapper.map(HTTPReply(status: item.status, headerFields: [.retryAfter: "120"], body: data), provider: "auth0")
            #expect(error.code == item.code, "\(item.status) \(item.providerCode)")
            #expect(error.providerCode == item.providerCode, "\(item.status)")
            #expect(error.message == item.message, "\(item.status)")
            #expect(error.statusCode == item.status && error.provider == "auth0")
            #expect(error.details["error"] == item.body["error"]?.stringValue)
            #expect(error.retryAfter == .seconds(120))
        }
    }

    /// `errorCode` and `message` are what count: a body that also has Auth0.swift 2.x's `code` and
    /// `description` does not use them, and they are only a fallback when the real members are missing.
    @Test func errorCodeAndMessageWinOverCodeAndDescription() {
        let mapper = Auth0ManagementErrorMapper()
        func map(_ status: Int, _ body: JSONValue) -> AuthError {
            mapper.map(HTTPReply(status: status, headerFields: [:], body: (try? JSONEncoder().encode(body)) ?? Data()), provider: "auth0")
        }
        let both = map(404, ["statusCode": 404, "error": "Not Found", "message": "The user does not exist.", "errorCode": "inexistent_user",
                             "code": "legacy_code", "description": "legacy description"])
        #expect(both.code == .userNotFound && both.providerCode == "inexistent_user" && both.message == "The user does not exist.")
        // Only the legacy members: the 404 is then not known to be a missing user.
        let legacy = map(404, ["code": "inexistent_user", "description": "legacy description"])
        #expect(legacy.code == .invalidRequest && legacy.providerCode == "inexistent_user" && legacy.message == "legacy description")
        // Neither message nor description: the reason phrase.
        let bare = map(403, ["statusCode": 403, "error": "Forbidden"])
        #expect(bare.code == .accessDenied && bare.providerCode == "Forbidden" && bare.message == "Forbidden")
        // `insufficient_scope` is recognised in `errorCode` only.
        #expect(map(403, ["error": "Forbidden", "code": "insufficient_scope"]).code == .accessDenied)
        // Not JSON at all: status alone, with the generic message.
        let html = mapper.map(HTTPReply(status: 401, headerFields: [:], body: Data("<html>nope</html>".utf8)), provider: "auth0")
        #expect(html.code == .invalidToken && html.providerCode == nil && html.message == AuthError(.invalidToken).message)
    }

    @Test func errorsArriveThroughTheClient() async throws {
        transport.on(.get, "/api/v2/users/auth0|gone") { _ in
            .json(404, Self.errorBody(404, "Not Found", "The user does not exist.", "inexistent_user"))
        }
        transport.on(.patch, "/api/v2/users/auth0|1") { _ in
            .json(403, Self.errorBody(403, "Forbidden", "Insufficient scope, expected any of: update:current_user_metadata", "insufficient_scope"))
        }
        transport.on(.post, "/api/v2/users/auth0|1/identities") { _ in
            .json(429, Self.errorBody(429, "Too Many Requests", "Global limit has been reached", "too_many_requests"), headerFields: [.retryAfter: "120"])
        }
        let api = try api
        let missing = await #expect(throws: AuthError.self) { try await api.user(id: "auth0|gone") }
        #expect(missing?.code == .userNotFound && missing?.provider == "auth0" && missing?.statusCode == 404)
        let scope = await #expect(throws: AuthError.self) { try await api.updateUserMetadata(id: "auth0|1", ["a": 1]) }
        #expect(scope?.code == .insufficientScope && scope?.providerCode == "insufficient_scope")
        let limited = await #expect(throws: AuthError.self) { try await api.link(userID: "auth0|1", withToken: Secret("t")) }
        #expect(limited?.code == .rateLimited && limited?.retryAfter == .seconds(120) && limited?.isRetryable == true)
        #expect(transport.requests(to: "/api/v2/users/auth0|1/identities").count == 1)
    }

    // MARK: - Malformed replies

    @Test func malformedRepliesAreInvalidRequests() async throws {
        let replies: [(String, StubTransport.Reply)] = [
            ("auth0|html", .raw(200, "<html>ok</html>")),
            ("auth0|array", .json(200, [["user_id": "auth0|1"]])),
            ("auth0|string", .json(200, "auth0|1")),
            ("auth0|empty", .raw(200, "")),
            ("auth0|identities-object", .json(200, ["user_id": "auth0|1", "identities": ["provider": "auth0"]])),
            ("auth0|identity-without-provider", .json(200, ["user_id": "auth0|1", "identities": [["user_id": "1"]]])),
            ("auth0|identity-bad-id", .json(200, ["user_id": "auth0|1", "identities": [["provider": "auth0", "user_id": 1.5]]])),
            ("auth0|truncated", .raw(200, "{\"user_id\": \"auth0|1\", \"ema")),
        ]
        for (id, reply) in replies {
            transport.on(.get, "/api/v2/users/\(id)") { _ in reply }
        }
        let api = try api
        for (id, _) in replies {
            let error = await #expect(throws: AuthError.self, "\(id)") { try await api.user(id: id) }
            #expect(error?.code == .invalidRequest && error?.provider == "auth0", "\(id)")
        }

        transport.on(.post, "/api/v2/users/auth0|1/identities") { _ in .json(201, ["identities": Self.identitiesJSON]) }
        transport.on(.delete, "/api/v2/users/auth0|1/identities/github/9") { _ in .raw(204, "") }
        await #expect(throws: AuthError(.invalidRequest)) { try await api.link(userID: "auth0|1", withToken: Secret("t")) }
        await #expect(throws: AuthError(.invalidRequest)) { try await api.unlink(userID: "auth0|1", provider: "github", secondaryUserID: "9") }

        // Members of unexpected types read as absent; the user itself is fine.
        transport.on(.get, "/api/v2/users/auth0|odd") { _ in
            .json(200, ["user_id": "auth0|odd", "email": 42, "email_verified": "yes", "user_metadata": "x", "created_at": "yesterday",
                        "identities": nil])
        }
        let odd = try await api.user(id: "auth0|odd")
        #expect(odd.userID == "auth0|odd" && odd.email == nil && odd.emailVerified == nil && odd.userMetadata.isEmpty)
        #expect(odd.createdAt == nil && odd.identities.isEmpty)
    }
}
