import AuthHub
import Foundation

/// Firebase Authentication's REST API (<doc:FirebaseEndpoints>: “Hosts and API key”, “Emulator”, “Endpoints”): Identity Toolkit v1
/// (`accounts:*`) and the Secure Token service, on the core ``APIClient``.
///
/// - URLs: `https://identitytoolkit.googleapis.com/v1/accounts:<op>?key=…` and
///   `https://securetoken.googleapis.com/v1/token?key=…`; with an `emulatorHost` the same paths
///   under `http://<emulatorHost>/<production host>/…` (<doc:FirebaseEndpoints>: “Emulator”).
/// - Every call is a `POST` with the Web API key in the `key` query parameter (redacted in logs).
///   Identity Toolkit bodies are JSON with exactly the fields of <doc:FirebaseEndpoints>: “Endpoints” (`returnSecureToken: true` where
///   tokens are wanted); `tenantId`, when one is configured, on every call where firebase-ios-sdk
///   and firebase-js-sdk send it — `signUp`, `signInWithPassword`, every `sendOobCode`,
///   `resetPassword` (checking a code and confirming it) and every `accounts:update` (with an
///   `oobCode` or an `idToken`) — and not on `lookup` or `delete`, where neither SDK does; the refresh is the
///   documented form body `grant_type=refresh_token&refresh_token=…` and its reply is snake_case.
/// - Passwords, tokens and action codes are ``Secret``s and revealed only into request bodies.
/// - Errors are mapped by ``FirebaseErrorMapper`` (the Secure Token endpoint with
///   ``FirebaseErrorMapper/Endpoint/secureToken``).
/// - Second factors (TOTP) use Identity Platform v2: `https://identitytoolkit.googleapis.com/v2/accounts/<op>?key=…`
///   (emulator: `http://<emulatorHost>/identitytoolkit.googleapis.com/v2/accounts/<op>`) with the
///   firebase-js-sdk request bodies (`tenantId` on every one, as its `_addTidIfNecessary` adds it).
/// - Retries: the core client's rules (only 429/503 for POSTs); calls that consume a one-time code
///   are never retried, `accounts:lookup` (a read) is retried like an idempotent request.
public struct FirebaseAPI: Sendable {
    /// The production Identity Toolkit host.
    public static let identityToolkitHost = "identitytoolkit.googleapis.com"
    /// The production Secure Token host.
    public static let secureTokenHost = "securetoken.googleapis.com"

    /// The provider's settings.
    public let configuration: FirebaseConfiguration
    /// The client for `accounts:*`.
    let identityToolkit: APIClient
    /// The client for Identity Platform `v2/accounts/*` (second factors).
    let identityToolkitV2: APIClient
    /// The client for `/v1/token`.
    let secureToken: APIClient
    let clock: any AuthClock
    var provider: String { identityToolkit.provider }

    /// Creates a client.
    /// - Parameters:
    ///   - providerID: the provider id errors are attributed to.
    ///   - configuration: API key, project, emulator host, tenant.
    ///   - context: transport, clock, randomness and logger.
    public init(providerID: String, configuration: FirebaseConfiguration, context: ProviderContext) {
        self.configuration = configuration
        self.clock = context.clock
        identityToolkit = APIClient(provider: providerID, baseURL: Self.identityToolkitBaseURL(configuration), context: context,
                                    errorMapper: FirebaseErrorMapper(endpoint: .identityToolkit))
        identityToolkitV2 = APIClient(provider: providerID, baseURL: Self.identityToolkitV2BaseURL(configuration), context: context,
                                      errorMapper: FirebaseErrorMapper(endpoint: .identityToolkit))
        secureToken = APIClient(provider: providerID, baseURL: Self.secureTokenBaseURL(configuration), context: context,
                                errorMapper: FirebaseErrorMapper(endpoint: .secureToken))
    }

    /// `https://<host>/` in production, `http://<emulatorHost>/<host>/` with the emulator (<doc:FirebaseEndpoints>: “Emulator”).
    static func root(_ host: String, _ configuration: FirebaseConfiguration) -> String {
        if let emulator = configuration.emulatorHost { return "http://\(emulator)/\(host)/" }
        return "https://\(host)/"
    }

    /// The base of every `accounts:<op>` URL, ending in `/v1/`.
    public static func identityToolkitBaseURL(_ configuration: FirebaseConfiguration) -> URL {
        URL(string: root(identityToolkitHost, configuration) + "v1/") ?? URL(fileURLWithPath: "/")
    }

    /// The base of every Identity Platform `accounts/<op>` URL, ending in `/v2/`:
    /// `https://identitytoolkit.googleapis.com/v2/` (emulator: `http://<emulatorHost>/identitytoolkit.googleapis.com/v2/`).
    public static func identityToolkitV2BaseURL(_ configuration: FirebaseConfiguration) -> URL {
        URL(string: root(identityToolkitHost, configuration) + "v2/") ?? URL(fileURLWithPath: "/")
    }

    /// The base of the token URL, ending in `/v1/`.
    public static func secureTokenBaseURL(_ configuration: FirebaseConfiguration) -> URL {
        URL(string: root(secureTokenHost, configuration) + "v1/") ?? URL(fileURLWithPath: "/")
    }

    // MARK: - Sending

    private var keyQuery: [(String, String)] { [("key", configuration.apiKey.revealed())] }

    /// POSTs a JSON body to `accounts:<op>` and decodes the reply.
    func accounts<Body: Encodable, Reply: Decodable>(_ op: String, _ body: Body, as reply: Reply.Type, operation: AuthOperation,
                                                    headerFields headers: HTTPFields = [:], retry: APIRequest.RetryMode = .automatic) async throws -> Reply {
        let request = try APIRequest.json(.post, "accounts:\(op)", body, query: keyQuery, headerFields: headers, retry: retry, operation: operation)
        return try await identityToolkit.send(request, as: reply)
    }

    /// POSTs a JSON body to `v2/accounts/<op>` and decodes the reply. Never retried: every
    /// v2 call here consumes a one-time code or session.
    func accountsV2<Body: Encodable, Reply: Decodable>(_ op: String, _ body: Body, as reply: Reply.Type,
                                                      operation: AuthOperation = .mfa) async throws -> Reply {
        let request = try APIRequest.json(.post, "accounts/\(op)", body, query: keyQuery, retry: .never, operation: operation)
        return try await identityToolkitV2.send(request, as: reply)
    }

    /// `tenantId` when one is configured.
    private var tenant: String? { configuration.tenantId }

    /// `X-Firebase-Locale`: the language of the email Firebase sends.
    package static let localeField = HTTPField.Name.constant("X-Firebase-Locale")

    private static func localeHeader(_ locale: String?) -> HTTPFields {
        var headers: HTTPFields = [:]
        if let locale { headers[Self.localeField] = locale }
        return headers
    }

    // MARK: - Sign-up and sign-in (AuthHubFirebase docs, FirebaseEndpoints: “Sign-up” and “Password sign-in”)

    /// Creates an email/password user (`accounts:signUp`).
    /// - Returns: the new user's tokens.
    /// - Throws: `EMAIL_EXISTS` → ``AuthErrorCode/emailAlreadyInUse``, `WEAK_PASSWORD` →
    ///   ``AuthErrorCode/weakPassword`` (with the rule as message), … (see ``FirebaseErrorMapper``).
    public func signUp(email: String, password: Secret<String>, displayName: String? = nil) async throws -> FirebaseTokenResponse {
        try await accounts("signUp", FirebaseSignUpRequest(email: email, password: password.revealed(), displayName: displayName,
                                                           tenantId: tenant),
                           as: FirebaseTokenResponse.self, operation: .signUp, retry: .never)
    }

    /// Signs in with email and password (`accounts:signInWithPassword`).
    /// - Throws: ``AuthErrorCode/mfaRequired`` when the user has a second factor: the reply's
    ///   `mfaPendingCredential` is ``MFARequirement/token`` and the factor kinds of `mfaInfo[]`
    ///   (`phone`, `totp`) are its ``MFARequirement/challengeTypes``; every entry with an
    ///   `mfaEnrollmentId` is one of its ``MFARequirement/enrolledFactors`` (id, kind, `displayName`),
    ///   in the reply's order (the ids also in `details["mfaEnrollmentIds"]`, comma-separated, and
    ///   the reply's `localId` in `details["localId"]`); `INVALID_LOGIN_CREDENTIALS` /
    ///   `INVALID_PASSWORD` → ``AuthErrorCode/invalidCredentials``; …
    public func signInWithPassword(email: String, password: Secret<String>) async throws -> FirebaseTokenResponse {
        let reply = try await accounts("signInWithPassword",
                                       FirebasePasswordSignInRequest(email: email, password: password.revealed(), tenantId: tenant),
                                       as: FirebasePasswordSignInReply.self, operation: .signIn, retry: .never)
        switch reply {
        case .tokens(let tokens): return tokens
        case .mfaRequired(let pending): throw Self.mfaRequired(pending, provider: provider)
        }
    }

    /// The ``AuthErrorCode/mfaRequired`` error of a sign-in reply that asks for a second factor.
    static func mfaRequired(_ reply: FirebaseMFAPendingReply, provider: String) -> AuthError {
        let enrollments = reply.mfaInfo
        var kinds: [String] = []
        for factor in enrollments.map(\.factor) where !kinds.contains(factor) { kinds.append(factor) }
        var details: [String: String] = ["mfaEnrollmentIds": enrollments.map(\.enrollmentID).joined(separator: ",")]
        if let email = reply.email { details["email"] = email }
        if let uid = reply.localId { details["localId"] = uid }
        let factors = enrollments.filter { !$0.enrollmentID.isEmpty }.map {
            MFARequirement.EnrolledFactor(id: $0.enrollmentID, kind: $0.factor, displayName: $0.displayName)
        }
        return AuthError(.mfaRequired, message: "A second factor is required to finish signing in.", provider: provider,
                         statusCode: 200, mfa: MFARequirement(token: Secret(reply.mfaPendingCredential), challengeTypes: kinds,
                                                              enrolledFactors: factors),
                         details: details)
    }

    // MARK: - Secure Token (AuthHubFirebase docs, FirebaseEndpoints: “Secure Token refresh”)

    /// Exchanges a refresh token for a new ID token: `POST /v1/token?key=…` with the form body
    /// `grant_type=refresh_token&refresh_token=…`.
    /// - Throws: ``AuthErrorCode/refreshTokenInvalid`` for `INVALID_REFRESH_TOKEN`, `TOKEN_EXPIRED`,
    ///   `USER_DISABLED`, `USER_NOT_FOUND` and `INVALID_ID_TOKEN` (the session is over); network,
    ///   429 and 5xx errors as they are.
    public func refresh(refreshToken: Secret<String>) async throws -> FirebaseSecureTokenResponse {
        let request = APIRequest(.post, "token", query: keyQuery,
                                 body: .form([("grant_type", "refresh_token"), ("refresh_token", refreshToken.revealed())]),
                                 operation: .refresh)
        return try await secureToken.send(request, as: FirebaseSecureTokenResponse.self)
    }

    // MARK: - Email actions (AuthHubFirebase docs, FirebaseEndpoints: “Email action codes” and “Reset password”)

    /// Sends a password-reset email (`sendOobCode`, `requestType: PASSWORD_RESET`).
    /// - Parameters:
    ///   - continueURL: where the email's link continues to (`continueUrl`), if any.
    ///   - locale: the language of the email (`X-Firebase-Locale`), if any.
    /// - Returns: the email the reply names.
    @discardableResult
    public func sendPasswordResetEmail(email: String, continueURL: String? = nil, locale: String? = nil) async throws -> String? {
        try await accounts("sendOobCode", FirebaseOobCodeRequest(requestType: "PASSWORD_RESET", email: email, continueUrl: continueURL,
                                                                 tenantId: tenant),
                           as: FirebaseEmailReply.self, operation: .passwordReset, headerFields: Self.localeHeader(locale)).email
    }

    /// Sends the signed-in user an email-verification link (`sendOobCode`, `requestType:
    /// VERIFY_EMAIL` with the ID token; the address comes from the token's user).
    @discardableResult
    public func sendEmailVerification(idToken: Secret<String>, continueURL: String? = nil, locale: String? = nil) async throws -> String? {
        try await accounts("sendOobCode", FirebaseOobCodeRequest(requestType: "VERIFY_EMAIL", idToken: idToken.revealed(),
                                                                 continueUrl: continueURL, tenantId: tenant),
                           as: FirebaseEmailReply.self, operation: .emailVerification, headerFields: Self.localeHeader(locale)).email
    }

    /// Sends a link to `newEmail` that changes the signed-in user's email once followed
    /// (`sendOobCode`, `requestType: VERIFY_AND_CHANGE_EMAIL`) — the way to change an email in
    /// projects with email-enumeration protection.
    @discardableResult
    public func sendVerifyAndChangeEmail(idToken: Secret<String>, newEmail: String, continueURL: String? = nil,
                                         locale: String? = nil) async throws -> String? {
        try await accounts("sendOobCode", FirebaseOobCodeRequest(requestType: "VERIFY_AND_CHANGE_EMAIL", idToken: idToken.revealed(),
                                                                 newEmail: newEmail, continueUrl: continueURL, tenantId: tenant),
                           as: FirebaseEmailReply.self, operation: .emailVerification, headerFields: Self.localeHeader(locale)).email
    }

    /// Checks a password-reset code without using it (`resetPassword {oobCode}`).
    /// - Returns: the account's email and the code's request type.
    /// - Throws: ``AuthErrorCode/expiredActionCode``, ``AuthErrorCode/invalidActionCode``, …
    public func verifyPasswordResetCode(_ code: Secret<String>) async throws -> FirebaseActionCodeInfo {
        try await accounts("resetPassword", FirebaseResetPasswordRequest(oobCode: code.revealed(), tenantId: tenant),
                           as: FirebaseActionCodeInfo.self, operation: .passwordReset, retry: .idempotent)
    }

    /// Sets a new password with a password-reset code (`resetPassword {oobCode, newPassword}`).
    /// Returns no tokens: sign in again with the new password.
    public func confirmPasswordReset(code: Secret<String>, newPassword: Secret<String>) async throws -> FirebaseActionCodeInfo {
        try await accounts("resetPassword", FirebaseResetPasswordRequest(oobCode: code.revealed(), newPassword: newPassword.revealed(),
                                                                         tenantId: tenant),
                           as: FirebaseActionCodeInfo.self, operation: .passwordReset, retry: .never)
    }

    // MARK: - Account changes (AuthHubFirebase docs, FirebaseEndpoints: “Account update”)

    /// Applies an email-verification (or email-change) code: `accounts:update {oobCode}`.
    @discardableResult
    public func applyActionCode(_ code: Secret<String>) async throws -> FirebaseAccountUpdate {
        try await accounts("update", FirebaseAccountUpdateRequest(oobCode: code.revealed(), tenantId: tenant),
                           as: FirebaseAccountUpdate.self, operation: .emailVerification, retry: .never)
    }

    /// Changes the signed-in user's password: `accounts:update {idToken, password, returnSecureToken}`.
    /// The reply's new tokens (``FirebaseAccountUpdate/tokens``) replace the old ones, whose
    /// refresh token no longer works.
    public func updatePassword(idToken: Secret<String>, newPassword: Secret<String>) async throws -> FirebaseAccountUpdate {
        try await accounts("update", FirebaseAccountUpdateRequest(idToken: idToken.revealed(), password: newPassword.revealed(),
                                                                  returnSecureToken: true, tenantId: tenant),
                           as: FirebaseAccountUpdate.self, operation: .management, retry: .never)
    }

    /// Changes the signed-in user's email: `accounts:update {idToken, email, returnSecureToken}`
    /// (new tokens in the reply).
    public func updateEmail(idToken: Secret<String>, newEmail: String) async throws -> FirebaseAccountUpdate {
        try await accounts("update", FirebaseAccountUpdateRequest(idToken: idToken.revealed(), email: newEmail,
                                                                  returnSecureToken: true, tenantId: tenant),
                           as: FirebaseAccountUpdate.self, operation: .management, retry: .never)
    }

    /// Changes the display name and photo URL: set values are sent as `displayName`/`photoUrl`,
    /// removed ones in `deleteAttribute` (`DISPLAY_NAME`, `PHOTO_URL`).
    public func updateProfile(idToken: Secret<String>, displayName: FirebaseProfileChange = .unchanged,
                              photoURL: FirebaseProfileChange = .unchanged) async throws -> FirebaseAccountUpdate {
        var body = FirebaseAccountUpdateRequest(idToken: idToken.revealed(), returnSecureToken: true, tenantId: tenant)
        var deleted: [String] = []
        switch displayName {
        case .unchanged: break
        case .set(let value): body.displayName = value
        case .remove: deleted.append("DISPLAY_NAME")
        }
        switch photoURL {
        case .unchanged: break
        case .set(let value): body.photoUrl = value
        case .remove: deleted.append("PHOTO_URL")
        }
        if !deleted.isEmpty { body.deleteAttribute = deleted }
        return try await accounts("update", body, as: FirebaseAccountUpdate.self, operation: .management)
    }

    // MARK: - Lookup and delete (AuthHubFirebase docs, FirebaseEndpoints: “Lookup” and “Delete”)

    /// The signed-in user (`accounts:lookup {idToken}`, `users[0]`).
    /// - Throws: ``AuthErrorCode/userNotFound`` when the reply lists no user;
    ///   ``AuthErrorCode/invalidRequest`` when `users` is not a list of objects (naming the field).
    public func lookup(idToken: Secret<String>) async throws -> FirebaseUser {
        let reply = try await accounts("lookup", FirebaseIDTokenRequest(idToken: idToken.revealed()), as: FirebaseLookupReply.self,
                                       operation: .userInfo, retry: .idempotent)
        guard let first = reply.users?.first else {
            throw AuthError(.userNotFound, message: "The account no longer exists.", provider: provider,
                            providerCode: "USER_NOT_FOUND", details: ["iosCode": "17011"])
        }
        return first
    }

    /// Deletes the signed-in user (`accounts:delete {idToken}`).
    public func deleteAccount(idToken: Secret<String>) async throws {
        _ = try await accounts("delete", FirebaseIDTokenRequest(idToken: idToken.revealed()), as: FirebaseEmptyReply.self,
                               operation: .accountDeletion, retry: .never)
    }

    // MARK: - Second factors (Identity Platform v2)

    /// Starts a TOTP enrollment for the signed-in user: `POST v2/accounts/mfaEnrollment:start`
    /// `{idToken, totpEnrollmentInfo: {}, tenantId?}` (firebase-js-sdk `startEnrollTotpMfa`).
    /// - Returns: the reply's `totpSessionInfo` (secret, code length, algorithm, period, session).
    /// - Throws: ``AuthErrorCode/emailNotVerified`` (`UNVERIFIED_EMAIL`),
    ///   ``AuthErrorCode/conflict`` (`SECOND_FACTOR_LIMIT_EXCEEDED`), ID-token errors, …
    public func startTOTPEnrollment(idToken: Secret<String>) async throws -> FirebaseTOTPSessionInfo {
        try await accountsV2("mfaEnrollment:start", FirebaseTOTPEnrollmentStartRequest(idToken: idToken.revealed(), tenantId: tenant),
                             as: FirebaseTOTPEnrollmentStartReply.self).totpSessionInfo
    }

    /// Finishes a TOTP enrollment with a code from the authenticator: `POST
    /// v2/accounts/mfaEnrollment:finalize {idToken, displayName?, totpVerificationInfo:
    /// {sessionInfo, verificationCode}, tenantId?}` (firebase-js-sdk `finalizeEnrollTotpMfa`).
    /// - Returns: the new `idToken` and `refreshToken`.
    /// - Throws: ``AuthErrorCode/invalidMFACode`` (`INVALID_CODE`), ``AuthErrorCode/sessionExpired``
    ///   (`SESSION_EXPIRED`, `INVALID_SESSION_INFO`), …
    public func finalizeTOTPEnrollment(idToken: Secret<String>, sessionInfo: Secret<String>, code: Secret<String>,
                                       displayName: String? = nil) async throws -> FirebaseMFATokens {
        try await accountsV2("mfaEnrollment:finalize", FirebaseTOTPEnrollmentFinalizeRequest(
            idToken: idToken.revealed(), displayName: displayName,
            totpVerificationInfo: FirebaseTOTPVerificationInfo(sessionInfo: sessionInfo.revealed(), verificationCode: code.revealed()),
            tenantId: tenant), as: FirebaseMFATokens.self)
    }

    /// Removes a second factor: `POST v2/accounts/mfaEnrollment:withdraw {idToken, mfaEnrollmentId,
    /// tenantId?}` (firebase-js-sdk `withdrawMfa`).
    /// - Returns: the reply's new `idToken` and `refreshToken`; nil when the reply carries them not
    ///   (both are optional in `WithdrawMfaResponse`): the factor was removed and the backend ended
    ///   the session, which the caller must then sign out (firebase-ios-sdk does).
    /// - Throws: `MFA_ENROLLMENT_NOT_FOUND` → ``AuthErrorCode/invalidRequest``, …
    public func withdrawMFA(idToken: Secret<String>, enrollmentID: String) async throws -> FirebaseMFATokens? {
        try await accountsV2("mfaEnrollment:withdraw", FirebaseMFAWithdrawRequest(idToken: idToken.revealed(), mfaEnrollmentId: enrollmentID,
                                                                                   tenantId: tenant),
                             as: FirebaseMFAWithdrawReply.self).tokens
    }

    /// Finishes a sign-in that needs a second factor with a TOTP code: `POST
    /// v2/accounts/mfaSignIn:finalize {mfaPendingCredential, mfaEnrollmentId, totpVerificationInfo:
    /// {verificationCode}, tenantId?}` (firebase-js-sdk `finalizeSignInTotpMfa`).
    /// - Returns: the `idToken` (with `firebase.sign_in_second_factor: "totp"`) and `refreshToken`.
    /// - Throws: ``AuthErrorCode/invalidMFACode`` (`INVALID_CODE`), ``AuthErrorCode/sessionExpired``
    ///   (`INVALID_MFA_PENDING_CREDENTIAL`), ``AuthErrorCode/invalidRequest`` (`MFA_ENROLLMENT_NOT_FOUND`), …
    public func finalizeTOTPSignIn(pendingCredential: Secret<String>, enrollmentID: String, code: Secret<String>) async throws -> FirebaseMFATokens {
        try await accountsV2("mfaSignIn:finalize", FirebaseTOTPSignInFinalizeRequest(
            mfaPendingCredential: pendingCredential.revealed(), mfaEnrollmentId: enrollmentID,
            totpVerificationInfo: FirebaseTOTPVerificationInfo(verificationCode: code.revealed()), tenantId: tenant),
                             as: FirebaseMFATokens.self)
    }
}
