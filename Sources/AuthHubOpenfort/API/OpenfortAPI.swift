import AuthHub
import Foundation

/// Openfort's auth REST API, v2 (<doc:OpenfortEndpoints>: “Endpoints”): `/iam/v2/auth/*` and `/iam/v2/me`, on the core
/// ``APIClient``.
///
/// Headers (<doc:OpenfortEndpoints>: “Base URL and headers”), on every call:
/// - `x-project-key: <publishable key>`;
/// - `x-request-id: <UUID v4>`, a new one per call (from the context's random source; kept across
///   the client's retries of that call, as it names one logical request);
/// - `x-native-app-identifier` when the configuration has one;
/// - `Authorization: Bearer <session token>` only on the calls given a `bearer` — never the
///   publishable key (the v2 auth endpoints reject it);
/// - `Content-Type: application/json` for bodies; no cookies.
///
/// Errors are mapped by ``OpenfortErrorMapper`` (with ``OpenfortErrorMapper/sessionCall`` for calls
/// that carry a session token). Calls that consume a one-time code or token are never retried;
/// other POSTs only on 429/503 (the core rule), GETs like any idempotent request.
public struct OpenfortAPI: Sendable {
    /// The auth API prefix, relative to the base URL.
    public static let authPrefix = "iam/v2/auth/"
    /// The current-user path, relative to the base URL.
    public static let mePath = "iam/v2/me"

    /// The provider's settings.
    public let configuration: OpenfortConfiguration
    let client: APIClient
    let sessionClient: APIClient
    let random: any RandomSource
    var provider: String { client.provider }

    /// Creates a client.
    /// - Parameters:
    ///   - providerID: the provider id errors are attributed to.
    ///   - configuration: publishable key, base URL, native app identifier.
    ///   - context: transport, clock, randomness and logger.
    public init(providerID: String, configuration: OpenfortConfiguration, context: ProviderContext) {
        self.configuration = configuration
        self.random = context.random
        var headers: HTTPHeaders = ["x-project-key": configuration.publishableKey]
        if let app = configuration.nativeAppIdentifier, !app.isEmpty { headers["x-native-app-identifier"] = app }
        client = APIClient(provider: providerID, baseURL: configuration.baseURL, context: context,
                           errorMapper: OpenfortErrorMapper(), defaultHeaders: headers)
        sessionClient = APIClient(provider: providerID, baseURL: configuration.baseURL, context: context,
                                  errorMapper: OpenfortErrorMapper(sessionCall: true), defaultHeaders: headers)
    }

    // MARK: - Sending

    /// A new `x-request-id`: a random (version 4) UUID.
    func requestID() -> String { OpenfortRequestID.make(random) }

    private func headers(_ bearer: Secret<String>?) -> HTTPHeaders {
        var headers: HTTPHeaders = ["x-request-id": requestID()]
        if let bearer { headers["Authorization"] = "Bearer \(bearer.revealed())" }
        return headers
    }

    /// Sends a request under the auth prefix (or `path` as is when it starts with `iam/`) and
    /// parses the reply (an empty body reads as `null`).
    /// Sends a request and parses its JSON reply; an empty body reads as `null` unless `emptyIsNull`
    /// is false (then it is an error: for get-session, `null` means "no session" and must be said).
    func send(_ method: HTTPMethod, _ path: String, body: [String: JSONValue?]? = nil, query: [(String, String)] = [],
              bearer: Secret<String>? = nil, retry: APIRequest.RetryMode = .automatic, emptyIsNull: Bool = true,
              operation: AuthOperation = .other) async throws -> JSONValue {
        let fullPath = path.hasPrefix("iam/") ? path : Self.authPrefix + path
        let request: APIRequest
        if let body {
            request = try APIRequest.json(method, fullPath, JSONValue.object(body.compactMapValues { $0 }), query: query,
                                          headers: headers(bearer), retry: retry, operation: operation)
        } else {
            request = APIRequest(method, fullPath, query: query, headers: headers(bearer), retry: retry, operation: operation)
        }
        let reply = try await (bearer == nil ? client : sessionClient).send(request)
        if reply.body.isEmpty || reply.body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            guard emptyIsNull else {
                throw AuthError(.invalidRequest, message: "The reply from '\(provider)' to \(path) is empty.", provider: provider,
                                statusCode: reply.status)
            }
            return .null
        }
        do {
            return try JSONValue.parse(reply.body)
        } catch {
            throw AuthError(.invalidRequest, message: "The reply from '\(provider)' to \(path) is not JSON.", provider: provider,
                            statusCode: reply.status, underlying: error)
        }
    }

    private func auth(_ json: JSONValue, _ what: String) throws -> OpenfortAuthResponse {
        try OpenfortAuthResponse(json: json, provider: provider)
    }

    private static func string(_ s: String?) -> JSONValue? { s.map(JSONValue.string) }

    // MARK: - Email and password

    /// Creates an email/password user: `POST /sign-up/email`.
    /// - Parameters:
    ///   - name: required by the endpoint; the email when nil (as the SDK does).
    ///   - callbackURL: where the verification link leads, if verification is required.
    ///   - bearer: a guest's session token, to upgrade that guest.
    /// - Returns: the reply; its ``OpenfortAuthResponse/token`` is nil when verification is required.
    public func signUp(email: String, password: Secret<String>, name: String? = nil, callbackURL: String? = nil,
                       image: String? = nil, bearer: Secret<String>? = nil) async throws -> OpenfortAuthResponse {
        try auth(await send(.post, "sign-up/email", body: [
            "email": .string(email), "password": .string(password.revealed()), "name": .string(name ?? email),
            "callbackURL": Self.string(callbackURL), "image": Self.string(image),
        ], bearer: bearer, retry: .never), "sign-up")
    }

    /// Signs in with email and password: `POST /sign-in/email`.
    public func signIn(email: String, password: Secret<String>, callbackURL: String? = nil) async throws -> OpenfortAuthResponse {
        try auth(await send(.post, "sign-in/email", body: [
            "email": .string(email), "password": .string(password.revealed()), "callbackURL": Self.string(callbackURL),
        ], retry: .never), "sign-in")
    }

    /// Creates a guest user and session: `POST /sign-in/anonymous` (no body).
    public func signInAnonymously() async throws -> OpenfortAuthResponse {
        try auth(await send(.post, "sign-in/anonymous", retry: .never), "guest sign-in")
    }

    // MARK: - Email OTP

    /// The `type` of an email OTP request.
    public enum EmailOTPType: String, Sendable, CaseIterable {
        /// A code to sign in with.
        case signIn = "sign-in"
        /// A code that verifies the signed-in user's email.
        case emailVerification = "email-verification"
        /// A code to reset the password with.
        case forgetPassword = "forget-password"
    }

    /// Sends a one-time code: `POST /email-otp/send-verification-otp {email, type}`.
    /// - Returns: the reply's `success`.
    @discardableResult
    public func sendEmailOTP(email: String, type: EmailOTPType) async throws -> Bool {
        try await send(.post, "email-otp/send-verification-otp", body: ["email": .string(email), "type": .string(type.rawValue)])["success"]?
            .boolValue ?? true
    }

    /// Signs in with an emailed code: `POST /sign-in/email-otp {email, otp}`.
    /// - Parameter bearer: a guest's session token, to upgrade that guest.
    public func signInWithEmailOTP(email: String, otp: Secret<String>, bearer: Secret<String>? = nil) async throws -> OpenfortAuthResponse {
        try auth(await send(.post, "sign-in/email-otp", body: ["email": .string(email), "otp": .string(otp.revealed())],
                            bearer: bearer, retry: .never), "email OTP sign-in")
    }

    /// Verifies an email with an emailed code: `POST /email-otp/verify-email {email, otp}`.
    /// - Returns: the reply (a token when the server signs the user in).
    public func verifyEmailOTP(email: String, otp: Secret<String>, bearer: Secret<String>? = nil) async throws -> OpenfortAuthResponse {
        try auth(await send(.post, "email-otp/verify-email", body: ["email": .string(email), "otp": .string(otp.revealed())],
                            bearer: bearer, retry: .never), "email OTP verification")
    }

    /// Checks a code without using it: `POST /email-otp/check-verification-otp {email, type, otp}`.
    public func checkEmailOTP(email: String, type: EmailOTPType, otp: Secret<String>) async throws -> Bool {
        try await send(.post, "email-otp/check-verification-otp", body: [
            "email": .string(email), "type": .string(type.rawValue), "otp": .string(otp.revealed()),
        ], retry: .never)["success"]?.boolValue ?? false
    }

    // MARK: - Social

    /// Starts an OAuth sign-in: `POST /sign-in/social {provider, callbackURL, disableRedirect: true, …}`.
    /// - Parameters:
    ///   - provider: `google`, `apple`, `twitter`, `facebook`, `discord`, `epic_games`, `line`, …
    ///   - callbackURL: the app's redirect URL; the session arrives there as `access_token`/`user_id`.
    ///   - bearer: a guest's session token, to link the account to that guest.
    /// - Returns: the provider's authorization URL to open in a browser.
    public func startOAuth(provider socialProvider: String, callbackURL: String, scopes: [String]? = nil,
                           errorCallbackURL: String? = nil, newUserCallbackURL: String? = nil, loginHint: String? = nil,
                           bearer: Secret<String>? = nil) async throws -> URL {
        let reply = try await send(.post, "sign-in/social", body: [
            "provider": .string(socialProvider), "callbackURL": .string(callbackURL), "disableRedirect": .bool(true),
            "scopes": scopes.map { .array($0.map(JSONValue.string)) }, "errorCallbackURL": Self.string(errorCallbackURL),
            "newUserCallbackURL": Self.string(newUserCallbackURL), "loginHint": Self.string(loginHint),
        ], bearer: bearer)
        return try url(reply, "sign-in/social")
    }

    /// Signs in with an ID token from Apple or Google: `POST /sign-in/social {provider, idToken: {token, nonce?, accessToken?}}`.
    public func signInWithIDToken(provider socialProvider: String, token: Secret<String>, nonce: String? = nil,
                                  accessToken: Secret<String>? = nil) async throws -> OpenfortAuthResponse {
        let idToken: [String: JSONValue?] = [
            "token": .string(token.revealed()), "nonce": Self.string(nonce), "accessToken": accessToken.map { .string($0.revealed()) },
        ]
        return try auth(await send(.post, "sign-in/social", body: [
            "provider": .string(socialProvider), "idToken": .object(idToken.compactMapValues { $0 }),
        ], retry: .never), "ID-token sign-in")
    }

    /// Links a social account to the signed-in user: `POST /link-social {provider, callbackURL, …}` with the session token.
    /// - Returns: the authorization URL to open (nil when the server linked at once, e.g. with an ID token) and `status`.
    public func linkSocial(provider socialProvider: String, callbackURL: String, scopes: [String]? = nil,
                           errorCallbackURL: String? = nil, idToken: Secret<String>? = nil,
                           bearer: Secret<String>) async throws -> (url: URL?, status: Bool?) {
        let reply = try await send(.post, "link-social", body: [
            "provider": .string(socialProvider), "callbackURL": .string(callbackURL), "disableRedirect": .bool(true),
            "scopes": scopes.map { .array($0.map(JSONValue.string)) }, "errorCallbackURL": Self.string(errorCallbackURL),
            "idToken": idToken.map { .object(["token": .string($0.revealed())]) },
        ], bearer: bearer)
        return (reply["url"]?.stringValue.flatMap(URL.init(string:)), reply["status"]?.boolValue)
    }

    /// Unlinks an account: `POST /unlink-account {providerId, accountId?}` with the session token.
    /// - Returns: the reply's `status`.
    @discardableResult
    public func unlinkAccount(providerID: String, accountID: String? = nil, bearer: Secret<String>) async throws -> Bool {
        try await send(.post, "unlink-account", body: ["providerId": .string(providerID), "accountId": Self.string(accountID)],
                       bearer: bearer)["status"]?.boolValue ?? true
    }

    /// The accounts linked to the signed-in user: `GET /list-accounts`.
    public func listAccounts(bearer: Secret<String>) async throws -> [OpenfortLinkedAccount] {
        (try await send(.get, "list-accounts", bearer: bearer).arrayValue ?? []).compactMap(\.objectValue).map(OpenfortLinkedAccount.init(json:))
    }

    private func url(_ reply: JSONValue, _ what: String) throws -> URL {
        guard let string = reply["url"]?.stringValue, let url = URL(string: string), url.scheme != nil else {
            throw AuthError(.invalidRequest, message: "The \(what) reply from '\(provider)' has no URL.", provider: provider)
        }
        return url
    }

    // MARK: - Email verification and password reset

    /// Sends a verification link: `POST /send-verification-email {email, callbackURL?}`.
    @discardableResult
    public func sendVerificationEmail(email: String, callbackURL: String? = nil) async throws -> Bool {
        try await send(.post, "send-verification-email", body: ["email": .string(email), "callbackURL": Self.string(callbackURL)])["status"]?
            .boolValue ?? true
    }

    /// Verifies an email with the link's token: `GET /verify-email?token=…[&callbackURL=…]`.
    /// - Returns: the verified user, when the reply names one.
    @discardableResult
    public func verifyEmail(token: Secret<String>, callbackURL: String? = nil, bearer: Secret<String>? = nil) async throws -> OpenfortUser? {
        var query = [("token", token.revealed())]
        if let callbackURL { query.append(("callbackURL", callbackURL)) }
        let reply = try await send(.get, "verify-email", query: query, bearer: bearer, retry: .never)
        return try reply["user"]?.objectValue.map { try OpenfortUser(json: $0, provider: provider) }
    }

    /// Sends a password-reset link: `POST /request-password-reset {email, redirectTo?}`.
    @discardableResult
    public func requestPasswordReset(email: String, redirectTo: String? = nil) async throws -> Bool {
        try await send(.post, "request-password-reset", body: ["email": .string(email), "redirectTo": Self.string(redirectTo)])["status"]?
            .boolValue ?? true
    }

    /// Sets a new password with the reset link's token: `POST /reset-password {newPassword, token}`.
    public func resetPassword(token: Secret<String>, newPassword: Secret<String>) async throws {
        _ = try await send(.post, "reset-password", body: ["newPassword": .string(newPassword.revealed()), "token": .string(token.revealed())],
                           retry: .never)
    }

    /// Sends a password-reset code: `POST /forget-password/email-otp {email}`.
    @discardableResult
    public func requestPasswordResetOTP(email: String) async throws -> Bool {
        try await send(.post, "forget-password/email-otp", body: ["email": .string(email)])["success"]?.boolValue ?? true
    }

    /// Sets a new password with an emailed code: `POST /email-otp/reset-password {email, otp, password}`.
    public func resetPassword(email: String, otp: Secret<String>, newPassword: Secret<String>) async throws {
        _ = try await send(.post, "email-otp/reset-password", body: [
            "email": .string(email), "otp": .string(otp.revealed()), "password": .string(newPassword.revealed()),
        ], retry: .never)
    }

    /// Changes (or adds) the signed-in user's email: `POST /change-email {newEmail, callbackURL?}`.
    /// - Returns: the reply's `message` (`Email updated` or `Verification email sent`).
    @discardableResult
    public func changeEmail(newEmail: String, callbackURL: String? = nil, bearer: Secret<String>) async throws -> String? {
        try await send(.post, "change-email", body: ["newEmail": .string(newEmail), "callbackURL": Self.string(callbackURL)],
                       bearer: bearer)["message"]?.stringValue
    }

    // MARK: - Session

    /// Validates (and extends) a session: `GET /get-session?disableCookieCache=true`.
    /// - Returns: nil when the server answers `null` (no valid session).
    /// - Throws: ``AuthErrorCode/sessionExpired`` for a 401; transient errors as they are.
    public func getSession(bearer: Secret<String>) async throws -> OpenfortSessionInfo? {
        try OpenfortSessionInfo.read(await send(.get, "get-session", query: [("disableCookieCache", "true")], bearer: bearer,
                                                emptyIsNull: false, operation: .refresh), provider: provider)
    }

    /// Ends the session at the server: `POST /sign-out {}`.
    public func signOut(bearer: Secret<String>) async throws {
        _ = try await send(.post, "sign-out", body: [:], bearer: bearer, retry: .never)
    }

    /// The current user with linked accounts: `GET /iam/v2/me`.
    public func me(bearer: Secret<String>) async throws -> OpenfortAuthUser {
        try OpenfortAuthUser(json: await send(.get, Self.mePath, bearer: bearer), provider: provider)
    }
}
