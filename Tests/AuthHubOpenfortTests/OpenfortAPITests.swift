import AuthHub
@_spi(Internals) @testable import AuthHubOpenfort
import AuthHubTesting
import Foundation
import Testing

/// Every v2 endpoint: method, path, query, body and the §1 headers.
@Suite struct OpenfortAPITests {
    struct Endpoint: Sendable, CustomTestStringConvertible {
        var name: String
        var method: HTTPRequest.Method
        var path: String
        var query: [String: String] = [:]
        /// The JSON body sent; nil for no body.
        var body: JSONValue?
        /// Whether the session token goes as Bearer.
        var bearer: Bool
        var reply: JSONValue = ["status": true, "success": true]
        var call: @Sendable (OpenfortAPI) async throws -> Void
        var testDescription: String { name }
    }

    static let token = Secret("sess-token")

    static let endpoints: [Endpoint] = [
        Endpoint(name: "sign-up", method: .post, path: "/iam/v2/auth/sign-up/email",
                 body: ["email": "jane@example.com", "password": "pw-12345678", "name": "jane@example.com", "callbackURL": "myapp://verified"],
                 bearer: false, reply: OF.authReply()) { api in
            _ = try await api.signUp(email: "jane@example.com", password: Secret("pw-12345678"), callbackURL: "myapp://verified")
        },
        Endpoint(name: "sign-up upgrading a guest", method: .post, path: "/iam/v2/auth/sign-up/email",
                 body: ["email": "jane@example.com", "password": "pw", "name": "Jane"], bearer: true, reply: OF.authReply()) { api in
            _ = try await api.signUp(email: "jane@example.com", password: Secret("pw"), name: "Jane", bearer: token)
        },
        Endpoint(name: "sign-in", method: .post, path: "/iam/v2/auth/sign-in/email",
                 body: ["email": "jane@example.com", "password": "correct horse battery"], bearer: false, reply: OF.authReply()) { api in
            _ = try await api.signIn(email: "jane@example.com", password: Secret("correct horse battery"))
        },
        Endpoint(name: "guest", method: .post, path: "/iam/v2/auth/sign-in/anonymous", body: nil, bearer: false,
                 reply: OF.authReply(anonymous: true)) { api in
            _ = try await api.signInAnonymously()
        },
        Endpoint(name: "email OTP request", method: .post, path: "/iam/v2/auth/email-otp/send-verification-otp",
                 body: ["email": "jane@example.com", "type": "sign-in"], bearer: false) { api in
            try await api.sendEmailOTP(email: "jane@example.com", type: .signIn)
        },
        Endpoint(name: "email OTP sign-in", method: .post, path: "/iam/v2/auth/sign-in/email-otp",
                 body: ["email": "jane@example.com", "otp": "123456"], bearer: false, reply: OF.authReply()) { api in
            _ = try await api.signInWithEmailOTP(email: "jane@example.com", otp: Secret("123456"))
        },
        Endpoint(name: "email OTP sign-in upgrading a guest", method: .post, path: "/iam/v2/auth/sign-in/email-otp",
                 body: ["email": "jane@example.com", "otp": "123456"], bearer: true, reply: OF.authReply()) { api in
            _ = try await api.signInWithEmailOTP(email: "jane@example.com", otp: Secret("123456"), bearer: token)
        },
        Endpoint(name: "verify email OTP", method: .post, path: "/iam/v2/auth/email-otp/verify-email",
                 body: ["email": "jane@example.com", "otp": "654321"], bearer: true, reply: ["status": true, "token": nil, "user": OF.user()]) { api in
            _ = try await api.verifyEmailOTP(email: "jane@example.com", otp: Secret("654321"), bearer: token)
        },
        Endpoint(name: "check OTP", method: .post, path: "/iam/v2/auth/email-otp/check-verification-otp",
                 body: ["email": "jane@example.com", "type": "forget-password", "otp": "1"], bearer: false) { api in
            _ = try await api.checkEmailOTP(email: "jane@example.com", type: .forgetPassword, otp: Secret("1"))
        },
        Endpoint(name: "OAuth start", method: .post, path: "/iam/v2/auth/sign-in/social",
                 body: ["provider": "google", "callbackURL": "myapp://oauth", "disableRedirect": true, "scopes": ["email"]],
                 bearer: false, reply: ["url": "https://accounts.google.com/o/oauth2/v2/auth?x=1", "redirect": false]) { api in
            let url = try await api.startOAuth(provider: "google", callbackURL: "myapp://oauth", scopes: ["email"])
            #expect(url.absoluteString == "https://accounts.google.com/o/oauth2/v2/auth?x=1")
        },
        Endpoint(name: "ID token", method: .post, path: "/iam/v2/auth/sign-in/social",
                 body: ["provider": "apple", "idToken": ["token": "apple.jwt", "nonce": "n-1"]], bearer: false, reply: OF.authReply()) { api in
            _ = try await api.signInWithIDToken(provider: "apple", token: Secret("apple.jwt"), nonce: "n-1")
        },
        Endpoint(name: "link social", method: .post, path: "/iam/v2/auth/link-social",
                 body: ["provider": "discord", "callbackURL": "myapp://link", "disableRedirect": true], bearer: true,
                 reply: ["url": "https://discord.com/oauth2/authorize", "redirect": false]) { api in
            let linked = try await api.linkSocial(provider: "discord", callbackURL: "myapp://link", bearer: token)
            #expect(linked.url?.host == "discord.com")
        },
        Endpoint(name: "unlink", method: .post, path: "/iam/v2/auth/unlink-account",
                 body: ["providerId": "google", "accountId": "g-1"], bearer: true) { api in
            try await api.unlinkAccount(providerID: "google", accountID: "g-1", bearer: token)
        },
        Endpoint(name: "list accounts", method: .get, path: "/iam/v2/auth/list-accounts", body: nil, bearer: true,
                 reply: [["provider": "credential", "accountId": "user-1", "createdAt": "2026-01-01T00:00:00Z"]]) { api in
            let accounts = try await api.listAccounts(bearer: token)
            #expect(accounts.map(\.provider) == ["credential"])
        },
        Endpoint(name: "change email", method: .post, path: "/iam/v2/auth/change-email",
                 body: ["newEmail": "new@example.com"], bearer: true, reply: ["status": true, "message": "Email updated"]) { api in
            let message = try await api.changeEmail(newEmail: "new@example.com", bearer: token)
            #expect(message == "Email updated")
        },
        Endpoint(name: "request verification", method: .post, path: "/iam/v2/auth/send-verification-email",
                 body: ["email": "jane@example.com", "callbackURL": "myapp://verified"], bearer: false) { api in
            try await api.sendVerificationEmail(email: "jane@example.com", callbackURL: "myapp://verified")
        },
        Endpoint(name: "verify email", method: .get, path: "/iam/v2/auth/verify-email",
                 query: ["token": "v.jwt", "callbackURL": "myapp://verified"], body: nil, bearer: false,
                 reply: ["status": true, "user": OF.user()]) { api in
            let user = try await api.verifyEmail(token: Secret("v.jwt"), callbackURL: "myapp://verified")
            #expect(user?.id == "user-1")
        },
        Endpoint(name: "request reset", method: .post, path: "/iam/v2/auth/request-password-reset",
                 body: ["email": "jane@example.com", "redirectTo": "myapp://reset"], bearer: false) { api in
            try await api.requestPasswordReset(email: "jane@example.com", redirectTo: "myapp://reset")
        },
        Endpoint(name: "reset", method: .post, path: "/iam/v2/auth/reset-password",
                 body: ["newPassword": "new-pw", "token": "reset-tok"], bearer: false) { api in
            try await api.resetPassword(token: Secret("reset-tok"), newPassword: Secret("new-pw"))
        },
        Endpoint(name: "request reset OTP", method: .post, path: "/iam/v2/auth/forget-password/email-otp",
                 body: ["email": "jane@example.com"], bearer: false) { api in
            try await api.requestPasswordResetOTP(email: "jane@example.com")
        },
        Endpoint(name: "reset with OTP", method: .post, path: "/iam/v2/auth/email-otp/reset-password",
                 body: ["email": "jane@example.com", "otp": "111111", "password": "new-pw"], bearer: false) { api in
            try await api.resetPassword(email: "jane@example.com", otp: Secret("111111"), newPassword: Secret("new-pw"))
        },
        Endpoint(name: "get-session", method: .get, path: "/iam/v2/auth/get-session", query: ["disableCookieCache": "true"],
                 body: nil, bearer: true, reply: OF.sessionReply()) { api in
            let info = try #require(try await api.getSession(bearer: token))
            #expect(info.token?.revealed() == "tok-1" && info.userID == "user-1")
            #expect(info.expiresAt == Date(timeIntervalSince1970: 1_767_830_400))
        },
        Endpoint(name: "sign-out", method: .post, path: "/iam/v2/auth/sign-out", body: [:], bearer: true) { api in
            try await api.signOut(bearer: token)
        },
        Endpoint(name: "me", method: .get, path: "/iam/v2/me", body: nil, bearer: true, reply: OF.meReply) { api in
            let me = try await api.me(bearer: token)
            #expect(me.id == "user-1" && me.emailVerified && me.linkedAccounts.map(\.provider) == ["credential"])
            #expect(me.createdAt == Date(timeIntervalSince1970: 1_767_225_600))
            #expect(me.linkedAccounts.first?.updatedAt == Date(timeIntervalSince1970: 1_767_225_600))
        },
    ]

    @Test(arguments: endpoints)
    func endpoint(_ endpoint: Endpoint) async throws {
        let transport = StubTransport()
        let reply = endpoint.reply
        transport.on(endpoint.method, endpoint.path) { _ in .json(200, reply) }
        let api = OF.provider(transport, configuration: OF.nativeConfiguration).api
        try await endpoint.call(api)
        let request = try #require(transport.requests.only)
        #expect(request.method == endpoint.method)
        #expect(request.url.host == "api.openfort.io" && request.url.path == endpoint.path)
        #expect(request.queryItems == endpoint.query)
        #expect(request.jsonBody == endpoint.body)
        #expect(request.header("x-project-key") == OF.key)
        #expect(request.header("x-native-app-identifier") == "com.example.app")
        #expect(request.header("Authorization") == (endpoint.bearer ? "Bearer sess-token" : nil),
                "Bearer only with a session; never the publishable key")
        #expect(request.header("Cookie") == nil)
        #expect(request.header("Content-Type") == (endpoint.body == nil ? nil : "application/json"))
        let id = try #require(request.header("x-request-id"))
        #expect(id.wholeMatch(of: /[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/) != nil, "a v4 UUID: \(id)")
    }

    @Test func requestIDsAreUniqueAndTheAppIdentifierIsOptional() async throws {
        let transport = StubTransport()
        transport.on(.post) { _ in .json(200, ["success": true]) }
        let api = OF.provider(transport).api
        for _ in 0..<20 { try await api.sendEmailOTP(email: "a@example.com", type: .signIn) }
        let ids = transport.requests.compactMap { $0.header("x-request-id") }
        #expect(ids.count == 20 && Set(ids).count == 20)
        #expect(transport.requests.allSatisfy { $0.header("x-native-app-identifier") == nil })
    }

    @Test func aBaseURLWithAPathKeepsIt() async throws {
        let transport = StubTransport()
        transport.on(.get, "/openfort/iam/v2/me") { _ in .json(200, OF.meReply) }
        let configuration = OpenfortConfiguration(publishableKey: OF.key, baseURL: URL(string: "http://127.0.0.1:8750/openfort")!)
        _ = try await OF.provider(transport, configuration: configuration).api.me(bearer: Secret("t"))
        #expect(transport.requests.first?.url.absoluteString == "http://127.0.0.1:8750/openfort/iam/v2/me")
    }

    @Test func getSessionNullReadsAsNoSession() async throws {
        let transport = StubTransport()
        transport.on(.get, OF.path("get-session")) { _ in .raw(200, "null", headerFields: [.contentType: "application/json"]) }
        #expect(try await OF.provider(transport).api.getSession(bearer: Secret("t")) == nil)
    }

    @Test func malformedRepliesAreErrorsNotCrashes() async throws {
        let transport = StubTransport()
        transport.on(.post, OF.path("sign-in/email")) { _ in .raw(200, "<html>") }
        transport.on(.post, OF.path("sign-in/social")) { _ in .json(200, ["redirect": true]) }
        transport.on(.get, "/iam/v2/me") { _ in .json(200, ["name": "no id"]) }
        let api = OF.provider(transport).api
        await #expect(throws: AuthError(.invalidRequest)) { _ = try await api.signIn(email: "a@b.c", password: Secret("p")) }
        await #expect(throws: AuthError(.invalidRequest)) { _ = try await api.startOAuth(provider: "google", callbackURL: "x://y") }
        await #expect(throws: AuthError(.invalidRequest)) { _ = try await api.me(bearer: Secret("t")) }
    }
}

extension Array {
    /// The single element, or nil when there are none or several.
    var only: Element? { count == 1 ? first : nil }
}
