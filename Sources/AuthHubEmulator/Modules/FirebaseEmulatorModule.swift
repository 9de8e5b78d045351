import enum AuthHub.JSONValue
import Hummingbird

/// The Firebase Authentication (email/password) share of the emulator, in the Firebase Auth
/// Emulator URL form (AuthHubFirebase docs, FirebaseEndpoints: “Emulator”): the production URL with `https://` replaced by
/// `http://HOST:PORT/`. With `"emulatorHost": "127.0.0.1:PORT"` in providers.json a Firebase
/// client talks to these routes.
///
/// One project: its id is ``projectId`` (`authhub-dev` by default, the id of the DESIGN's
/// providers.json example); every API key maps to it. ID tokens have `aud` = the project id and
/// `iss` = `https://securetoken.google.com/<projectId>`.
///
/// Identity Toolkit v1, `POST /identitytoolkit.googleapis.com/v1/accounts:<op>?key=…` (AuthHubFirebase docs, FirebaseEndpoints: “Endpoints”):
/// `signUp`, `signInWithPassword`, `sendOobCode`, `resetPassword`, `update`, `lookup`, `delete`.
/// `createAuthUri`, `signInWithIdp`, `signInWithCustomToken` and `signInWithEmailLink` answer
/// `501 NOT_IMPLEMENTED`; any other op is a 404. The error checks run in the Auth Emulator's
/// orders of AuthHubFirebase docs, FirebaseEndpoints: “Endpoints” (listed on each handler of `FirebaseService`).
///
/// Secure Token: `POST /securetoken.googleapis.com/v1/token?key=…` (form or JSON, snake_case or
/// camelCase) → the snake_case reply of AuthHubFirebase docs, FirebaseEndpoints: “Secure Token refresh”.
///
/// Legacy v3, `POST /www.googleapis.com/identitytoolkit/v3/relyingparty/<rpc>?key=…`, mapped per
/// AuthHubFirebase docs, FirebaseEndpoints: “Hosts and API key”: `signupNewUser`, `verifyPassword`, `getOobConfirmationCode`, `resetPassword`,
/// `setAccountInfo`, `getAccountInfo`, `deleteAccount` (same handlers and fields); `createAuthUri`,
/// `verifyAssertion`, `verifyCustomToken`, `emailLinkSignin` are 501.
///
/// Conventions:
/// - API key: the `key` query parameter or the `x-goog-api-key` header; any non-empty key is
///   accepted. Missing → `403 PERMISSION_DENIED` "The request is missing a valid API key.".
///   `Authorization: Bearer owner` marks a request privileged (admin): no key needed, `lookup` by
///   `localId[]`/`email[]`, `delete`/`update` by `localId`, `update` of `emailVerified`/`disableUser`,
///   `sendOobCode` with `returnOobLink`.
/// - Bodies: JSON (or a form); every key is converted to camelCase first. A body that is not a
///   JSON object → `400 INVALID_ARGUMENT` with reason `parseError`; a field of the wrong JSON type
///   → `400 INVALID_ARGUMENT`.
/// - Errors: `{"error":{"code":400,"message":"CODE" or "CODE : detail","errors":[{"message",
///   "reason":"invalid","domain":"global"}]}}` (AuthHubFirebase docs, FirebaseErrors: “Envelope”), no `status` on plain 400s.
/// - Emails are lower-cased; valid means one `@` with text on both sides; passwords need 6
///   characters (`WEAK_PASSWORD : Password should be at least 6 characters`).
/// - Tokens (AuthHubFirebase docs, FirebaseEndpoints: “Emulator tokens” and “ID-token verification”): ID tokens are unsigned JWTs (`{"alg":"none","typ":"JWT"}`, empty signature)
///   with `iss`, `aud`, `sub` = `user_id` = localId, `iat`, `exp` = `iat` + 3600, `auth_time`
///   (kept across refreshes and credential changes), `email`, `email_verified`, `name`/`picture`
///   when set, `firebase: {identities: {email: [...]}, sign_in_provider: "password"}`. Received ID
///   tokens are decoded (not verified) and refused when undecodable or for another `aud`
///   (`INVALID_ID_TOKEN`), the account is gone (`USER_NOT_FOUND`), issued before its
///   `validSince` (`TOKEN_EXPIRED`) or disabled (`USER_DISABLED`); `exp` is not checked.
///   Refresh tokens are standard base64 of `{"_AuthEmulatorRefreshToken":"DO NOT MODIFY",
///   "localId","provider","extraClaims","projectId"}` plus AuthHub's `issuedAt` and `authTime`,
///   so a token issued before a password/email change or reset is `TOKEN_EXPIRED` at `/v1/token`
///   (as in production). `/v1/token` returns the same refresh token.
/// - `validSince` (epoch seconds) is bumped by a password or email change and by a password
///   reset; tokens issued in that same second stay valid.
/// - Email privacy (`enableImprovedEmailPrivacy`) is off by default; the config helper turns it on.
/// - oob codes expire after one hour (`EXPIRED_OOB_CODE`); used codes are deleted.
/// - Second factors (TOTP; facts and error codes on `FirebaseMFA`): Identity Platform v2,
///   `POST /identitytoolkit.googleapis.com/v2/accounts/<op>?key=…` with `mfaEnrollment:start`
///   (`{idToken, totpEnrollmentInfo: {}}` → `{totpSessionInfo: {sharedSecretKey (base32),
///   verificationCodeLength: 6, hashingAlgorithm: "SHA1", periodSec: 30, sessionInfo,
///   finalizeEnrollmentTime}}`; the email must be verified, `UNVERIFIED_EMAIL`),
///   `mfaEnrollment:finalize` (`{idToken, displayName?, totpVerificationInfo: {sessionInfo,
///   verificationCode}}` → `{idToken, refreshToken}`; adds `{mfaEnrollmentId, displayName,
///   totpInfo: {}, enrolledAt}` to `mfaInfo`), `mfaEnrollment:withdraw` (`{idToken,
///   mfaEnrollmentId}` → `{idToken, refreshToken}`, or `{}` for an account marked by
///   `:endSessionsOnMFAWithdraw`) and `mfaSignIn:finalize` (`{mfaPendingCredential, mfaEnrollmentId,
///   totpVerificationInfo: {verificationCode}}` → `{idToken, refreshToken}` whose ID token has
///   `firebase.sign_in_second_factor: "totp"` and `firebase.second_factor_identifier`). Codes are
///   checked with AuthHubFactors' `TOTP` at the emulator's clock (±1 step); a wrong or replayed
///   code is `INVALID_CODE`. Accounts with factors (enrolled, or seeded with `mfaInfo`) get
///   `{kind, localId, email, mfaPendingCredential, mfaInfo}` and no tokens from password sign-in;
///   the credential is the emulator's own (unknown, used, older than 10 minutes or older than a
///   password change → `INVALID_MFA_PENDING_CREDENTIAL`). Phone factors (`mfaSignIn:start`,
///   `phoneEnrollmentInfo`) answer 501; a seeded factor without a TOTP secret cannot finish a
///   sign-in (`MFA_ENROLLMENT_NOT_FOUND`).
/// - Recent sign-in: `accounts:delete` and `accounts:update` changing the password or the email,
///   called with an ID token whose `auth_time` is more than 300 s before the emulator's clock (or
///   for an account marked by the `:requireRecentLogin` hook), answer
///   `CREDENTIAL_TOO_OLD_LOGIN_AGAIN` (see `FirebaseService.recentLoginWindow` for the figure).
/// - Anonymous sign-up (a body without email and password) is `ADMIN_ONLY_OPERATION`.
/// - Never raised, because nothing here switches them on: `OPERATION_NOT_ALLOWED` at sign-up,
///   `PASSWORD_LOGIN_DISABLED`, `TOO_MANY_ATTEMPTS_TRY_LATER`,
///   `PASSWORD_DOES_NOT_MEET_REQUIREMENTS` (no sign-in switch, rate limit or password policy).
/// - Lookups report `passwordHash` as the opaque `UkVEQUNURUQ=`; passwords are kept only as
///   PBKDF2 hashes. Nothing is logged but method, path and status.
///
/// Emulator-only helpers (no key, no auth; another project id than ``projectId`` is a 404):
/// - `DELETE /emulator/v1/projects/{projectId}/accounts` → `{}` (every account and oob code)
/// - `GET /emulator/v1/projects/{projectId}/oobCodes` → `{"oobCodes":[{email, oobCode, oobLink,
///   requestType}]}`, links `http://HOST:PORT/emulator/action?mode=…&lang=en&oobCode=…&apiKey=fake-api-key[&continueUrl=…]`
/// - `GET|PATCH /emulator/v1/projects/{projectId}/config` → `{"signIn":{"allowDuplicateEmails"},
///   "emailPrivacyConfig":{"enableImprovedEmailPrivacy"}}`
/// - `GET /emulator/action?mode=…&oobCode=…[&newPassword=…]` applies a code as following its link
///   would, answering JSON instead of Firebase's HTML page.
/// - Not part of Firebase (AuthHub's seeding hook): `POST /emulator/v1/projects/{projectId}/accounts`
///   `{email, password, displayName?, photoUrl?, emailVerified?, disabled?, mfaInfo?}` → `{localId}`.
/// - Not part of Firebase: `POST /emulator/v1/projects/{projectId}/accounts/{localId}:requireRecentLogin`
///   `[{"required": bool}]` → `{localId, recentLoginRequired}` marks the account so its next
///   sensitive change is `CREDENTIAL_TOO_OLD_LOGIN_AGAIN` until it signs in again.
/// - Not part of Firebase: `POST /emulator/v1/projects/{projectId}/accounts/{localId}:endSessionsOnMFAWithdraw`
///   `[{"enabled": bool}]` → `{localId, mfaWithdrawEndsSessions}` makes the account's
///   `mfaEnrollment:withdraw` answer `{}` (no tokens, which Identity Platform's reply allows) and
///   end its sessions (`validSince` bumped).
public struct FirebaseEmulatorModule: EmulatorModule {
    /// `firebase`.
    public let name = "firebase"
    /// The production hosts as path prefixes, plus the emulator's own `/emulator`.
    public let pathPrefixes = [
        "/identitytoolkit.googleapis.com",
        "/securetoken.googleapis.com",
        "/www.googleapis.com/identitytoolkit",
        "/emulator",
    ]
    /// The project every API key maps to.
    public let projectId: String

    /// The emulated project's default id, `authhub-dev`.
    public static let defaultProjectId = "authhub-dev"

    /// Creates the module.
    /// - Parameter projectId: the id of the one project served (default `authhub-dev`).
    public init(projectId: String = FirebaseEmulatorModule.defaultProjectId) {
        self.projectId = projectId
    }

    /// Identity Toolkit v1 ops served, with their legacy v3 names (AuthHubFirebase docs, FirebaseEndpoints: “Hosts and API key”).
    static let operations: [(v1: String, v3: String)] = [
        ("signUp", "signupNewUser"), ("signInWithPassword", "verifyPassword"), ("sendOobCode", "getOobConfirmationCode"),
        ("resetPassword", "resetPassword"), ("update", "setAccountInfo"), ("lookup", "getAccountInfo"),
        ("delete", "deleteAccount"),
    ]

    /// Ops Firebase has that answer 501 here, with their legacy v3 names.
    static let unimplemented: [(v1: String, v3: String)] = [
        ("createAuthUri", "createAuthUri"), ("signInWithIdp", "verifyAssertion"),
        ("signInWithCustomToken", "verifyCustomToken"), ("signInWithEmailLink", "emailLinkSignin"),
    ]

    /// Registers the Firebase routes: one route collection whose unforeseen errors answer
    /// `500 INTERNAL` in the Google API error envelope.
    public func register(routes: EmulatorRouteBuilder, environment: EmulatorEnvironment) {
        let service = FirebaseService(environment: environment, projectId: projectId)
        let firebase = RouteCollection(failures: FirebaseFailure.self)
        let v1 = firebase.group("identitytoolkit.googleapis.com/v1")
        let v3 = firebase.group("www.googleapis.com/identitytoolkit/v3/relyingparty")
        for (op, legacy) in Self.operations {
            let handler: @Sendable (FirebaseService.Call, Request) async throws -> JSONValue = { call, request in
                switch op {
                case "signUp": try await service.signUp(call)
                case "signInWithPassword": try await service.signInWithPassword(call)
                case "sendOobCode": try await service.sendOobCode(call, request: request)
                case "resetPassword": try await service.resetPassword(call)
                case "update": try await service.update(call)
                case "lookup": try await service.lookup(call)
                default: try await service.delete(call)
                }
            }
            v1.post("accounts:\(op)") { request, _ in try await service.api(request) { try await handler($0, request) } }
            v3.post(RouterPath(legacy)) { request, _ in try await service.api(request) { try await handler($0, request) } }
        }
        for (op, legacy) in Self.unimplemented {
            v1.post("accounts:\(op)") { request, _ in try await service.notImplemented(request, operation: "accounts:\(op)") }
            v3.post(RouterPath(legacy)) { request, _ in try await service.notImplemented(request, operation: legacy) }
        }
        let v2 = firebase.group("identitytoolkit.googleapis.com/v2/accounts")
        let mfa: [(String, @Sendable (FirebaseService.Call) async throws -> JSONValue)] = [
            ("mfaEnrollment:start", { try await service.startMFAEnrollment($0) }),
            ("mfaEnrollment:finalize", { try await service.finalizeMFAEnrollment($0) }),
            ("mfaEnrollment:withdraw", { try await service.withdrawMFA($0) }),
            ("mfaSignIn:finalize", { try await service.finalizeMFASignIn($0) }),
        ]
        for (op, handler) in mfa {
            v2.post(RouterPath(op)) { request, _ in try await service.api(request) { try await handler($0) } }
        }
        v2.post("mfaSignIn:start") { request, _ in
            try await service.notImplemented(request, operation: "mfaSignIn:start (phone second factors)")
        }
        firebase.post("securetoken.googleapis.com/v1/token") { request, _ in try await service.api(request) { try await service.token($0) } }
        let project = firebase.group("emulator/v1/projects/:projectId")
        project.delete("accounts") { request, context in try await service.wipeAccounts(request, context: context) }
        project.post("accounts") { request, context in try await service.seedAccount(request, context: context) }
        project.get("oobCodes") { request, context in try await service.listOobCodes(request, context: context) }
        project.get("config") { request, context in try await service.getConfig(request, context: context) }
        project.patch("config") { request, context in try await service.patchConfig(request, context: context) }
        project.post("accounts/:accountAction") { request, context in try await service.accountAction(request, context: context) }
        firebase.get("emulator/action") { request, _ in try await service.action(request) }
        routes.addRoutes(firebase)
    }

    /// The Google API error envelope (AuthHubFirebase docs, FirebaseErrors: “Envelope”) with code 404 and status `NOT_FOUND`.
    public func notFoundBody() -> JSONValue {
        [
            "error": [
                "code": 404,
                "message": "Not Found",
                "errors": [["message": "Not Found", "domain": "global", "reason": "notFound"]],
                "status": "NOT_FOUND",
            ]
        ]
    }
}
