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
        var headers: HTTPFields = [.openfortProjectKey: configuration.publishableKey]
        if let app = configuration.nativeAppIdentifier, !app.isEmpty { headers[.openfortNativeAppIdentifier] = app }
        client = APIClient(provider: providerID, baseURL: configuration.baseURL, context: context,
                           errorMapper: OpenfortErrorMapper(), defaultHeaderFields: headers)
        sessionClient = APIClient(provider: providerID, baseURL: configuration.baseURL, context: context,
                                  errorMapper: OpenfortErrorMapper(sessionCall: true), defaultHeaderFields: headers)
    }

    // MARK: - Sending

    /// A new `x-request-id`: a random (version 4) UUID.
    func requestID() -> String { OpenfortRequestID.make(random) }

    private func headers(_ bearer: Secret<String>?) -> HTTPFields {
        var headers: HTTPFields = [.openfortRequestID: requestID()]
        if let bearer { headers[.authorization] = "Bearer \(bearer.revealed())" }
        return headers
    }

    /// The request for `path` under the auth prefix (or as is when it starts with `iam/`), with a
    /// JSON body when one is given, the per-call headers and the operation.
    private func makeRequest(_ method: HTTPRequest.Method, _ path: String, body: (any Encodable & Sendable)?, query: [(String, String)],
                             bearer: Secret<String>?, retry: APIRequest.RetryMode, operation: AuthOperation) throws -> APIRequest {
        let fullPath = path.hasPrefix("iam/") ? path : Self.authPrefix + path
        guard let body else {
            return APIRequest(method, fullPath, query: query, headerFields: headers(bearer), retry: retry, operation: operation)
        }
        return try APIRequest.json(method, fullPath, body, query: query, headerFields: headers(bearer), retry: retry, operation: operation)
    }

    /// Sends a request under the auth prefix (or `path` as is when it starts with `iam/`) and
    /// decodes the reply into `reply` through the client.
    /// - Parameter emptyIsNull: whether an empty body reads as no reply (nil) — for calls whose
    ///   reply AuthHub does not need; when false an empty body is an error naming the operation.
    func send<Reply: Decodable>(_ method: HTTPRequest.Method, _ path: String, body: (any Encodable & Sendable)? = nil,
                                query: [(String, String)] = [], bearer: Secret<String>? = nil,
                                retry: APIRequest.RetryMode = .automatic, emptyIsNull: Bool = true,
                                operation: AuthOperation, as reply: Reply.Type) async throws -> Reply? {
        let request = try makeRequest(method, path, body: body, query: query, bearer: bearer, retry: retry, operation: operation)
        let chosen = bearer == nil ? client : sessionClient
        let response = try await chosen.send(request)
        if emptyIsNull, response.body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return nil }
        return try chosen.decode(Reply?.self, from: response, operation: operation)
    }

    /// Sends a request whose reply is required: an empty or `null` body is an error naming the operation.
    func sendRequired<Reply: Decodable>(_ method: HTTPRequest.Method, _ path: String, body: (any Encodable & Sendable)? = nil,
                                        query: [(String, String)] = [], bearer: Secret<String>? = nil,
                                        retry: APIRequest.RetryMode = .automatic, operation: AuthOperation,
                                        as reply: Reply.Type) async throws -> Reply {
        let request = try makeRequest(method, path, body: body, query: query, bearer: bearer, retry: retry, operation: operation)
        return try await (bearer == nil ? client : sessionClient).send(request, as: reply)
    }

    /// The operation a code of `type` serves.
    private static func operation(_ type: EmailOTPType) -> AuthOperation {
        switch type {
        case .signIn: .signIn
        case .emailVerification: .emailVerification
        case .forgetPassword: .passwordReset
        }
    }

    // MARK: - Email and password

    /// Creates an email/password user: `POST /sign-up/email`.
    /// - Parameters:
    ///   - name: required by the endpoint; the email when nil (as the SDK does).
    ///   - callbackURL: where the verification link leads, if verification is required.
    ///   - bearer: a guest's session token, to upgrade that guest.
    /// - Returns: the reply; its ``OpenfortAuthResponse/token`` is nil when verification is required.
    public func signUp(email: String, password: Secret<String>, name: String? = nil, callbackURL: String? = nil,
                       image: String? = nil, bearer: Secret<String>? = nil) async throws -> OpenfortAuthResponse {
        try await sendRequired(.post, "sign-up/email", body: OpenfortEmailSignUpRequest(
            email: email, password: password.revealed(), name: name ?? email, callbackURL: callbackURL, image: image),
                               bearer: bearer, retry: .never, operation: .signUp, as: OpenfortAuthResponse.self)
    }

    /// Signs in with email and password: `POST /sign-in/email`.
    public func signIn(email: String, password: Secret<String>, callbackURL: String? = nil) async throws -> OpenfortAuthResponse {
        try await sendRequired(.post, "sign-in/email", body: OpenfortEmailSignInRequest(email: email, password: password.revealed(),
                                                                                        callbackURL: callbackURL),
                               retry: .never, operation: .signIn, as: OpenfortAuthResponse.self)
    }

    /// Creates a guest user and session: `POST /sign-in/anonymous` (no body).
    public func signInAnonymously() async throws -> OpenfortAuthResponse {
        try await sendRequired(.post, "sign-in/anonymous", retry: .never, operation: .signIn, as: OpenfortAuthResponse.self)
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
        try await send(.post, "email-otp/send-verification-otp", body: OpenfortEmailOTPRequest(email: email, type: type.rawValue),
                       operation: Self.operation(type), as: OpenfortAcknowledgement.self)?.success ?? true
    }

    /// Signs in with an emailed code: `POST /sign-in/email-otp {email, otp}`.
    /// - Parameter bearer: a guest's session token, to upgrade that guest.
    public func signInWithEmailOTP(email: String, otp: Secret<String>, bearer: Secret<String>? = nil) async throws -> OpenfortAuthResponse {
        try await sendRequired(.post, "sign-in/email-otp", body: OpenfortEmailOTPRequest(email: email, otp: otp.revealed()),
                               bearer: bearer, retry: .never, operation: .signIn, as: OpenfortAuthResponse.self)
    }

    /// Verifies an email with an emailed code: `POST /email-otp/verify-email {email, otp}`.
    /// - Returns: the reply (a token when the server signs the user in).
    public func verifyEmailOTP(email: String, otp: Secret<String>, bearer: Secret<String>? = nil) async throws -> OpenfortAuthResponse {
        try await sendRequired(.post, "email-otp/verify-email", body: OpenfortEmailOTPRequest(email: email, otp: otp.revealed()),
                               bearer: bearer, retry: .never, operation: .emailVerification, as: OpenfortAuthResponse.self)
    }

    /// Checks a code without using it: `POST /email-otp/check-verification-otp {email, type, otp}`.
    public func checkEmailOTP(email: String, type: EmailOTPType, otp: Secret<String>) async throws -> Bool {
        try await send(.post, "email-otp/check-verification-otp",
                       body: OpenfortEmailOTPRequest(email: email, type: type.rawValue, otp: otp.revealed()),
                       retry: .never, operation: Self.operation(type), as: OpenfortAcknowledgement.self)?.success ?? false
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
        try await sendRequired(.post, "sign-in/social", body: OpenfortSocialSignInRequest(
            provider: socialProvider, callbackURL: callbackURL, disableRedirect: true, scopes: scopes, errorCallbackURL: errorCallbackURL,
            newUserCallbackURL: newUserCallbackURL, loginHint: loginHint),
                               bearer: bearer, operation: .signIn, as: OpenfortRedirectReply.self).url
    }

    /// Signs in with an ID token from Apple or Google: `POST /sign-in/social {provider, idToken: {token, nonce?, accessToken?}}`.
    public func signInWithIDToken(provider socialProvider: String, token: Secret<String>, nonce: String? = nil,
                                  accessToken: Secret<String>? = nil) async throws -> OpenfortAuthResponse {
        let idToken = OpenfortIDTokenCredential(token: token.revealed(), nonce: nonce, accessToken: accessToken?.revealed())
        return try await sendRequired(.post, "sign-in/social", body: OpenfortSocialSignInRequest(provider: socialProvider, idToken: idToken),
                                      retry: .never, operation: .signIn, as: OpenfortAuthResponse.self)
    }

    /// Links a social account to the signed-in user: `POST /link-social {provider, callbackURL, …}` with the session token.
    /// - Returns: the authorization URL to open (nil when the server linked at once, e.g. with an ID token) and `status`.
    public func linkSocial(provider socialProvider: String, callbackURL: String, scopes: [String]? = nil,
                           errorCallbackURL: String? = nil, idToken: Secret<String>? = nil,
                           bearer: Secret<String>) async throws -> (url: URL?, status: Bool?) {
        let reply = try await send(.post, "link-social", body: OpenfortLinkSocialRequest(
            provider: socialProvider, callbackURL: callbackURL, scopes: scopes, errorCallbackURL: errorCallbackURL,
            idToken: idToken.map { OpenfortIDTokenCredential(token: $0.revealed()) }),
                                   bearer: bearer, operation: .management, as: OpenfortLinkSocialReply.self)
        return (reply?.url, reply?.status)
    }

    /// Unlinks an account: `POST /unlink-account {providerId, accountId?}` with the session token.
    /// - Returns: the reply's `status`.
    @discardableResult
    public func unlinkAccount(providerID: String, accountID: String? = nil, bearer: Secret<String>) async throws -> Bool {
        try await send(.post, "unlink-account", body: OpenfortUnlinkAccountRequest(providerId: providerID, accountId: accountID),
                       bearer: bearer, operation: .management, as: OpenfortAcknowledgement.self)?.status ?? true
    }

    /// The accounts linked to the signed-in user: `GET /list-accounts`.
    public func listAccounts(bearer: Secret<String>) async throws -> [OpenfortLinkedAccount] {
        try await send(.get, "list-accounts", bearer: bearer, operation: .management, as: [OpenfortLinkedAccount].self) ?? []
    }

    // MARK: - Email verification and password reset

    /// Sends a verification link: `POST /send-verification-email {email, callbackURL?}`.
    @discardableResult
    public func sendVerificationEmail(email: String, callbackURL: String? = nil) async throws -> Bool {
        try await send(.post, "send-verification-email", body: OpenfortEmailLinkRequest(email: email, callbackURL: callbackURL),
                       operation: .emailVerification, as: OpenfortAcknowledgement.self)?.status ?? true
    }

    /// Verifies an email with the link's token: `GET /verify-email?token=…[&callbackURL=…]`.
    /// - Returns: the verified user, when the reply names one.
    @discardableResult
    public func verifyEmail(token: Secret<String>, callbackURL: String? = nil, bearer: Secret<String>? = nil) async throws -> OpenfortUser? {
        var query = [("token", token.revealed())]
        if let callbackURL { query.append(("callbackURL", callbackURL)) }
        return try await send(.get, "verify-email", query: query, bearer: bearer, retry: .never, operation: .emailVerification,
                              as: OpenfortVerifyEmailReply.self)?.user
    }

    /// Sends a password-reset link: `POST /request-password-reset {email, redirectTo?}`.
    @discardableResult
    public func requestPasswordReset(email: String, redirectTo: String? = nil) async throws -> Bool {
        try await send(.post, "request-password-reset", body: OpenfortEmailLinkRequest(email: email, redirectTo: redirectTo),
                       operation: .passwordReset, as: OpenfortAcknowledgement.self)?.status ?? true
    }

    /// Sets a new password with the reset link's token: `POST /reset-password {newPassword, token}`.
    public func resetPassword(token: Secret<String>, newPassword: Secret<String>) async throws {
        _ = try await send(.post, "reset-password", body: OpenfortResetPasswordRequest(newPassword: newPassword.revealed(), token: token.revealed()),
                           retry: .never, operation: .passwordReset, as: OpenfortAcknowledgement.self)
    }

    /// Sends a password-reset code: `POST /forget-password/email-otp {email}`.
    @discardableResult
    public func requestPasswordResetOTP(email: String) async throws -> Bool {
        try await send(.post, "forget-password/email-otp", body: OpenfortEmailLinkRequest(email: email), operation: .passwordReset,
                       as: OpenfortAcknowledgement.self)?.success ?? true
    }

    /// Sets a new password with an emailed code: `POST /email-otp/reset-password {email, otp, password}`.
    public func resetPassword(email: String, otp: Secret<String>, newPassword: Secret<String>) async throws {
        _ = try await send(.post, "email-otp/reset-password",
                           body: OpenfortEmailOTPRequest(email: email, otp: otp.revealed(), password: newPassword.revealed()),
                           retry: .never, operation: .passwordReset, as: OpenfortAcknowledgement.self)
    }

    /// Changes (or adds) the signed-in user's email: `POST /change-email {newEmail, callbackURL?}`.
    /// - Returns: the reply's `message` (`Email updated` or `Verification email sent`).
    @discardableResult
    public func changeEmail(newEmail: String, callbackURL: String? = nil, bearer: Secret<String>) async throws -> String? {
        try await send(.post, "change-email", body: OpenfortChangeEmailRequest(newEmail: newEmail, callbackURL: callbackURL),
                       bearer: bearer, operation: .management, as: OpenfortAcknowledgement.self)?.message
    }

    // MARK: - Session

    /// Validates (and extends) a session: `GET /get-session?disableCookieCache=true`.
    /// - Returns: nil when the server answers `null` (no valid session), or an object that names
    ///   neither a session nor a user.
    /// - Throws: ``AuthErrorCode/refreshTokenInvalid`` for a 401 (mapped with the `refresh`
    ///   operation); ``AuthErrorCode/invalidRequest`` naming the field for a reply of the wrong
    ///   shape, or for an empty body; transient errors as they are.
    public func getSession(bearer: Secret<String>) async throws -> OpenfortSessionInfo? {
        let info = try await sendRequired(.get, "get-session", query: [("disableCookieCache", "true")], bearer: bearer,
                                          operation: .refresh, as: OpenfortSessionInfo?.self)
        guard let info, !info.isEmpty else { return nil }
        return info
    }

    /// Ends the session at the server: `POST /sign-out {}`.
    public func signOut(bearer: Secret<String>) async throws {
        _ = try await send(.post, "sign-out", body: OpenfortEmptyBody(), bearer: bearer, retry: .never, operation: .signOut,
                           as: OpenfortAcknowledgement.self)
    }

    /// The current user with linked accounts: `GET /iam/v2/me`.
    public func me(bearer: Secret<String>) async throws -> OpenfortAuthUser {
        try await sendRequired(.get, Self.mePath, bearer: bearer, operation: .userInfo, as: OpenfortAuthUser.self)
    }
}
