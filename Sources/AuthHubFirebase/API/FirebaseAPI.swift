import AuthHub
import Foundation

/// Firebase Authentication's REST API (<doc:FirebaseEndpoints>: “Hosts and API key”, “Emulator”, “Endpoints”): Identity Toolkit v1
/// (`accounts:*`) and the Secure Token service, on the core ``APIClient``.
///
/// - URLs: `https://identitytoolkit.googleapis.com/v1/accounts:<op>?key=…` and
///   `https://securetoken.googleapis.com/v1/token?key=…`; with an `emulatorHost` the same paths
///   under `http://<emulatorHost>/<production host>/…` (<doc:FirebaseEndpoints>: “Emulator”).
/// - Every call is a `POST` with the Web API key in the `key` query parameter (redacted in logs).
///   Identity Toolkit bodies are JSON with exactly the <doc:FirebaseEndpoints>: “Endpoints” fields (`returnSecureToken: true` where
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

    /// POSTs a JSON body to `accounts:<op>` and returns the reply object.
    func accounts(_ op: String, _ body: [String: JSONValue], headers: HTTPHeaders = [:],
                  retry: APIRequest.RetryMode = .automatic) async throws -> [String: JSONValue] {
        let request = try APIRequest.json(.post, "accounts:\(op)", JSONValue.object(body), query: keyQuery, headers: headers, retry: retry)
        let reply = try await identityToolkit.send(request)
        return try FirebaseReply.object(reply.body, provider: provider, what: "accounts:\(op)")
    }

    /// POSTs a JSON body to `v2/accounts/<op>` and returns the reply object. Never retried: every
    /// v2 call here consumes a one-time code or session.
    func accountsV2(_ op: String, _ body: [String: JSONValue]) async throws -> [String: JSONValue] {
        let request = try APIRequest.json(.post, "accounts/\(op)", JSONValue.object(body), query: keyQuery, retry: .never)
        let reply = try await identityToolkitV2.send(request)
        return try FirebaseReply.object(reply.body, provider: provider, what: "accounts/\(op)")
    }

    /// `tenantId` when one is configured.
    private var tenant: JSONValue? { configuration.tenantId.map(JSONValue.string) }

    private static func body(_ members: [String: JSONValue?]) -> [String: JSONValue] { members.compactMapValues { $0 } }

    private static func localeHeader(_ locale: String?) -> HTTPHeaders {
        var headers: HTTPHeaders = [:]
        if let locale { headers["X-Firebase-Locale"] = locale }
        return headers
    }

    // MARK: - Sign-up and sign-in (AuthHubFirebase docs, FirebaseEndpoints: “Sign-up” and “Password sign-in”)

    /// Creates an email/password user (`accounts:signUp`).
    /// - Returns: the new user's tokens.
    /// - Throws: `EMAIL_EXISTS` → ``AuthErrorCode/emailAlreadyInUse``, `WEAK_PASSWORD` →
    ///   ``AuthErrorCode/weakPassword`` (with the rule as message), … (see ``FirebaseErrorMapper``).
    public func signUp(email: String, password: Secret<String>, displayName: String? = nil) async throws -> FirebaseTokenResponse {
        let reply = try await accounts("signUp", Self.body([
            "email": .string(email), "password": .string(password.revealed()), "returnSecureToken": .bool(true),
            "displayName": displayName.map(JSONValue.string), "tenantId": tenant,
        ]), retry: .never)
        return try tokens(reply, what: "accounts:signUp")
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
        let reply = try await accounts("signInWithPassword", Self.body([
            "email": .string(email), "password": .string(password.revealed()), "returnSecureToken": .bool(true),
            "tenantId": tenant,
        ]), retry: .never)
        if reply["idToken"]?.stringValue == nil, let pending = reply["mfaPendingCredential"]?.stringValue, !pending.isEmpty {
            throw Self.mfaRequired(pending: pending, reply: reply, provider: provider)
        }
        return try tokens(reply, what: "accounts:signInWithPassword")
    }

    /// The ``AuthErrorCode/mfaRequired`` error of a sign-in reply that asks for a second factor.
    static func mfaRequired(pending: String, reply: [String: JSONValue], provider: String) -> AuthError {
        let enrollments = reply["mfaInfo"]?.arrayValue?.map(FirebaseMFAEnrollment.init(json:)) ?? []
        var kinds: [String] = []
        for factor in enrollments.map(\.factor) where !kinds.contains(factor) { kinds.append(factor) }
        var details: [String: String] = ["mfaEnrollmentIds": enrollments.map(\.enrollmentID).joined(separator: ",")]
        if let email = reply["email"]?.stringValue { details["email"] = email }
        if let uid = reply["localId"]?.stringValue { details["localId"] = uid }
        let factors = enrollments.filter { !$0.enrollmentID.isEmpty }.map {
            MFARequirement.EnrolledFactor(id: $0.enrollmentID, kind: $0.factor, displayName: $0.displayName)
        }
        return AuthError(.mfaRequired, message: "A second factor is required to finish signing in.", provider: provider,
                         statusCode: 200, mfa: MFARequirement(token: Secret(pending), challengeTypes: kinds, enrolledFactors: factors),
                         details: details)
    }

    private func tokens(_ reply: [String: JSONValue], what: String) throws -> FirebaseTokenResponse {
        guard let tokens = try FirebaseTokenResponse.read(reply, provider: provider, what: what) else {
            throw AuthError(.invalidRequest, message: "The \(what) reply from '\(provider)' has no idToken.", provider: provider)
        }
        return tokens
    }

    // MARK: - Secure Token (AuthHubFirebase docs, FirebaseEndpoints: “Secure Token refresh”)

    /// Exchanges a refresh token for a new ID token: `POST /v1/token?key=…` with the form body
    /// `grant_type=refresh_token&refresh_token=…`.
    /// - Throws: ``AuthErrorCode/refreshTokenInvalid`` for `INVALID_REFRESH_TOKEN`, `TOKEN_EXPIRED`,
    ///   `USER_DISABLED`, `USER_NOT_FOUND` and `INVALID_ID_TOKEN` (the session is over); network,
    ///   429 and 5xx errors as they are.
    public func refresh(refreshToken: Secret<String>) async throws -> FirebaseSecureTokenResponse {
        let request = APIRequest(.post, "token", query: keyQuery,
                                 body: .form([("grant_type", "refresh_token"), ("refresh_token", refreshToken.revealed())]))
        let reply = try await secureToken.send(request)
        return try FirebaseSecureTokenResponse.read(
            try FirebaseReply.object(reply.body, provider: provider, what: "token refresh"), provider: provider)
    }

    // MARK: - Email actions (AuthHubFirebase docs, FirebaseEndpoints: “Email action codes” and “Reset password”)

    /// Sends a password-reset email (`sendOobCode`, `requestType: PASSWORD_RESET`).
    /// - Parameters:
    ///   - continueURL: where the email's link continues to (`continueUrl`), if any.
    ///   - locale: the language of the email (`X-Firebase-Locale`), if any.
    /// - Returns: the email the reply names.
    @discardableResult
    public func sendPasswordResetEmail(email: String, continueURL: String? = nil, locale: String? = nil) async throws -> String? {
        let reply = try await accounts("sendOobCode", Self.body([
            "requestType": "PASSWORD_RESET", "email": .string(email), "continueUrl": continueURL.map(JSONValue.string),
            "tenantId": tenant,
        ]), headers: Self.localeHeader(locale))
        return reply["email"]?.stringValue
    }

    /// Sends the signed-in user an email-verification link (`sendOobCode`, `requestType:
    /// VERIFY_EMAIL` with the ID token; the address comes from the token's user).
    @discardableResult
    public func sendEmailVerification(idToken: Secret<String>, continueURL: String? = nil, locale: String? = nil) async throws -> String? {
        let reply = try await accounts("sendOobCode", Self.body([
            "requestType": "VERIFY_EMAIL", "idToken": .string(idToken.revealed()), "continueUrl": continueURL.map(JSONValue.string),
            "tenantId": tenant,
        ]), headers: Self.localeHeader(locale))
        return reply["email"]?.stringValue
    }

    /// Sends a link to `newEmail` that changes the signed-in user's email once followed
    /// (`sendOobCode`, `requestType: VERIFY_AND_CHANGE_EMAIL`) — the way to change an email in
    /// projects with email-enumeration protection.
    @discardableResult
    public func sendVerifyAndChangeEmail(idToken: Secret<String>, newEmail: String, continueURL: String? = nil,
                                         locale: String? = nil) async throws -> String? {
        let reply = try await accounts("sendOobCode", Self.body([
            "requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": .string(idToken.revealed()), "newEmail": .string(newEmail),
            "continueUrl": continueURL.map(JSONValue.string), "tenantId": tenant,
        ]), headers: Self.localeHeader(locale))
        return reply["email"]?.stringValue
    }

    /// Checks a password-reset code without using it (`resetPassword {oobCode}`).
    /// - Returns: the account's email and the code's request type.
    /// - Throws: ``AuthErrorCode/expiredActionCode``, ``AuthErrorCode/invalidActionCode``, …
    public func verifyPasswordResetCode(_ code: Secret<String>) async throws -> FirebaseActionCodeInfo {
        let reply = try await accounts("resetPassword", Self.body(["oobCode": .string(code.revealed()), "tenantId": tenant]),
                                       retry: .idempotent)
        return try actionCodeInfo(reply)
    }

    /// Sets a new password with a password-reset code (`resetPassword {oobCode, newPassword}`).
    /// Returns no tokens: sign in again with the new password.
    public func confirmPasswordReset(code: Secret<String>, newPassword: Secret<String>) async throws -> FirebaseActionCodeInfo {
        let reply = try await accounts("resetPassword", Self.body([
            "oobCode": .string(code.revealed()), "newPassword": .string(newPassword.revealed()), "tenantId": tenant,
        ]), retry: .never)
        return try actionCodeInfo(reply)
    }

    private func actionCodeInfo(_ reply: [String: JSONValue]) throws -> FirebaseActionCodeInfo {
        FirebaseActionCodeInfo(email: try FirebaseReply.string("email", in: reply, provider: provider, what: "accounts:resetPassword"),
                               requestType: reply["requestType"]?.stringValue, newEmail: reply["newEmail"]?.stringValue)
    }

    // MARK: - Account changes (AuthHubFirebase docs, FirebaseEndpoints: “Account update”)

    /// Applies an email-verification (or email-change) code: `accounts:update {oobCode}`.
    @discardableResult
    public func applyActionCode(_ code: Secret<String>) async throws -> FirebaseAccountUpdate {
        try FirebaseAccountUpdate.read(try await accounts("update", Self.body(["oobCode": .string(code.revealed()), "tenantId": tenant]),
                                                          retry: .never),
                                       provider: provider)
    }

    /// Changes the signed-in user's password: `accounts:update {idToken, password, returnSecureToken}`.
    /// The reply's new tokens (``FirebaseAccountUpdate/tokens``) replace the old ones, whose
    /// refresh token no longer works.
    public func updatePassword(idToken: Secret<String>, newPassword: Secret<String>) async throws -> FirebaseAccountUpdate {
        try FirebaseAccountUpdate.read(try await accounts("update", Self.body([
            "idToken": .string(idToken.revealed()), "password": .string(newPassword.revealed()), "returnSecureToken": .bool(true),
            "tenantId": tenant,
        ]), retry: .never), provider: provider)
    }

    /// Changes the signed-in user's email: `accounts:update {idToken, email, returnSecureToken}`
    /// (new tokens in the reply).
    public func updateEmail(idToken: Secret<String>, newEmail: String) async throws -> FirebaseAccountUpdate {
        try FirebaseAccountUpdate.read(try await accounts("update", Self.body([
            "idToken": .string(idToken.revealed()), "email": .string(newEmail), "returnSecureToken": .bool(true),
            "tenantId": tenant,
        ]), retry: .never), provider: provider)
    }

    /// Changes the display name and photo URL: set values are sent as `displayName`/`photoUrl`,
    /// removed ones in `deleteAttribute` (`DISPLAY_NAME`, `PHOTO_URL`).
    public func updateProfile(idToken: Secret<String>, displayName: FirebaseProfileChange = .unchanged,
                              photoURL: FirebaseProfileChange = .unchanged) async throws -> FirebaseAccountUpdate {
        var body: [String: JSONValue] = ["idToken": .string(idToken.revealed()), "returnSecureToken": .bool(true)]
        var deleted: [JSONValue] = []
        switch displayName {
        case .unchanged: break
        case .set(let value): body["displayName"] = .string(value)
        case .remove: deleted.append("DISPLAY_NAME")
        }
        switch photoURL {
        case .unchanged: break
        case .set(let value): body["photoUrl"] = .string(value)
        case .remove: deleted.append("PHOTO_URL")
        }
        if !deleted.isEmpty { body["deleteAttribute"] = .array(deleted) }
        if let tenant { body["tenantId"] = tenant }
        return try FirebaseAccountUpdate.read(try await accounts("update", body), provider: provider)
    }

    // MARK: - Lookup and delete (AuthHubFirebase docs, FirebaseEndpoints: “Lookup” and “Delete”)

    /// The signed-in user (`accounts:lookup {idToken}`, `users[0]`).
    /// - Throws: ``AuthErrorCode/userNotFound`` when the reply lists no user;
    ///   ``AuthErrorCode/invalidRequest`` when `users` is not a list of objects.
    public func lookup(idToken: Secret<String>) async throws -> FirebaseUser {
        let reply = try await accounts("lookup", ["idToken": .string(idToken.revealed())], retry: .idempotent)
        if let users = reply["users"], users != .null, users.arrayValue?.allSatisfy({ $0.objectValue != nil }) != true {
            throw AuthError(.invalidRequest, message: "The accounts:lookup reply from '\(provider)' has users that are not a list of objects.",
                            provider: provider)
        }
        guard let first = reply["users"]?.arrayValue?.first?.objectValue else {
            throw AuthError(.userNotFound, message: "The account no longer exists.", provider: provider,
                            providerCode: "USER_NOT_FOUND", details: ["iosCode": "17011"])
        }
        return try FirebaseUser(json: first, provider: provider)
    }

    /// Deletes the signed-in user (`accounts:delete {idToken}`).
    public func deleteAccount(idToken: Secret<String>) async throws {
        _ = try await accounts("delete", ["idToken": .string(idToken.revealed())], retry: .never)
    }

    // MARK: - Second factors (Identity Platform v2)

    /// Starts a TOTP enrollment for the signed-in user: `POST v2/accounts/mfaEnrollment:start`
    /// `{idToken, totpEnrollmentInfo: {}, tenantId?}` (firebase-js-sdk `startEnrollTotpMfa`).
    /// - Returns: the reply's `totpSessionInfo` (secret, code length, algorithm, period, session).
    /// - Throws: ``AuthErrorCode/emailNotVerified`` (`UNVERIFIED_EMAIL`),
    ///   ``AuthErrorCode/conflict`` (`SECOND_FACTOR_LIMIT_EXCEEDED`), ID-token errors, …
    public func startTOTPEnrollment(idToken: Secret<String>) async throws -> FirebaseTOTPSessionInfo {
        let reply = try await accountsV2("mfaEnrollment:start", Self.body([
            "idToken": .string(idToken.revealed()), "totpEnrollmentInfo": .object([:]), "tenantId": tenant,
        ]))
        return try FirebaseTOTPSessionInfo.read(reply, provider: provider)
    }

    /// Finishes a TOTP enrollment with a code from the authenticator: `POST
    /// v2/accounts/mfaEnrollment:finalize {idToken, displayName?, totpVerificationInfo:
    /// {sessionInfo, verificationCode}, tenantId?}` (firebase-js-sdk `finalizeEnrollTotpMfa`).
    /// - Returns: the new `idToken` and `refreshToken`.
    /// - Throws: ``AuthErrorCode/invalidMFACode`` (`INVALID_CODE`), ``AuthErrorCode/sessionExpired``
    ///   (`SESSION_EXPIRED`, `INVALID_SESSION_INFO`), …
    public func finalizeTOTPEnrollment(idToken: Secret<String>, sessionInfo: Secret<String>, code: Secret<String>,
                                       displayName: String? = nil) async throws -> FirebaseMFATokens {
        let reply = try await accountsV2("mfaEnrollment:finalize", Self.body([
            "idToken": .string(idToken.revealed()), "displayName": displayName.map(JSONValue.string),
            "totpVerificationInfo": .object(["sessionInfo": .string(sessionInfo.revealed()), "verificationCode": .string(code.revealed())]),
            "tenantId": tenant,
        ]))
        return try FirebaseMFATokens.read(reply, provider: provider, what: "mfaEnrollment:finalize")
    }

    /// Removes a second factor: `POST v2/accounts/mfaEnrollment:withdraw {idToken, mfaEnrollmentId,
    /// tenantId?}` (firebase-js-sdk `withdrawMfa`).
    /// - Throws: `MFA_ENROLLMENT_NOT_FOUND` → ``AuthErrorCode/invalidRequest``, …
    public func withdrawMFA(idToken: Secret<String>, enrollmentID: String) async throws -> FirebaseMFATokens {
        let reply = try await accountsV2("mfaEnrollment:withdraw", Self.body([
            "idToken": .string(idToken.revealed()), "mfaEnrollmentId": .string(enrollmentID), "tenantId": tenant,
        ]))
        return try FirebaseMFATokens.read(reply, provider: provider, what: "mfaEnrollment:withdraw")
    }

    /// Finishes a sign-in that needs a second factor with a TOTP code: `POST
    /// v2/accounts/mfaSignIn:finalize {mfaPendingCredential, mfaEnrollmentId, totpVerificationInfo:
    /// {verificationCode}, tenantId?}` (firebase-js-sdk `finalizeSignInTotpMfa`).
    /// - Returns: the `idToken` (with `firebase.sign_in_second_factor: "totp"`) and `refreshToken`.
    /// - Throws: ``AuthErrorCode/invalidMFACode`` (`INVALID_CODE`), ``AuthErrorCode/sessionExpired``
    ///   (`INVALID_MFA_PENDING_CREDENTIAL`), ``AuthErrorCode/invalidRequest`` (`MFA_ENROLLMENT_NOT_FOUND`), …
    public func finalizeTOTPSignIn(pendingCredential: Secret<String>, enrollmentID: String, code: Secret<String>) async throws -> FirebaseMFATokens {
        let reply = try await accountsV2("mfaSignIn:finalize", Self.body([
            "mfaPendingCredential": .string(pendingCredential.revealed()), "mfaEnrollmentId": .string(enrollmentID),
            "totpVerificationInfo": .object(["verificationCode": .string(code.revealed())]), "tenantId": tenant,
        ]))
        return try FirebaseMFATokens.read(reply, provider: provider, what: "mfaSignIn:finalize")
    }
}
