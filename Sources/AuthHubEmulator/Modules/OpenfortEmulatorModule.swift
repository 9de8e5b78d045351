import enum AuthHub.JSONValue
import Hummingbird

/// The Openfort share of the emulator, under `/openfort`, standing in for
/// `https://api.openfort.io` (AuthHubOpenfort docs, OpenfortEndpoints: “Base URL and headers”): the auth API arrives as
/// `/openfort/iam/v2/auth/…` and the user API as `/openfort/iam/v2/me`. Point a client's
/// `backendUrl` at `http://HOST:PORT/openfort`.
///
/// The v2 (better-auth) API of AuthHubOpenfort docs, OpenfortEndpoints: “Endpoints”, “OAuth redirect”, “Sessions”; AuthHubOpenfort docs, OpenfortErrors, `POST` unless noted, every route needing
/// `x-project-key`; "Bearer" = `Authorization: Bearer <session token>`:
/// - `sign-up/email` `{email, password, name, image?}` → `{token, user}` (`token: null` when the
///   project requires email verification); errors `VALIDATION_ERROR`, `INVALID_EMAIL`,
///   `PASSWORD_TOO_SHORT`/`_LONG` (400), `USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL` (422). A Bearer of
///   an anonymous user upgrades that user in place (same id).
/// - `sign-in/email` `{email, password}` → `{redirect: false, token, url: null, user}`;
///   `INVALID_EMAIL_OR_PASSWORD` (401), `EMAIL_NOT_VERIFIED` (403, when verification is required).
/// - `sign-in/anonymous` → `{token, user}` (`isAnonymous: true`, email `temp@<id>.com`).
/// - `email-otp/send-verification-otp` `{email, type}` (`sign-in`|`email-verification`|
///   `forget-password`) → `{success: true}`; `forget-password/email-otp` `{email}` → `{success: true}`.
/// - `sign-in/email-otp` `{email, otp}` → `{token, user}` (creates the user when new);
///   `email-otp/verify-email` `{email, otp}` → `{status: true, token, user}`;
///   `email-otp/check-verification-otp` `{email, type, otp}` → `{success: true}` (code kept);
///   `email-otp/reset-password` `{email, otp, password}` → `{status: true}`. OTP errors (400):
///   `INVALID_OTP` (none pending or wrong), `OTP_EXPIRED` (after 5 minutes); after 3 wrong codes
///   `TOO_MANY_ATTEMPTS` (403).
/// - `sign-in/social` `{provider, callbackURL, disableRedirect?, errorCallbackURL?, loginHint?}` →
///   `{url, redirect: !disableRedirect}`; `{provider: apple|google, idToken: {token}}` →
///   `{redirect: false, token, url: null, user}`. `link-social` (Bearer) → `{url, redirect, status}`
///   (with `idToken`: linked at once, `url: ""`). `unlink-account` (Bearer) `{providerId,
///   accountId?}` → `{status: true}`; `ACCOUNT_NOT_FOUND`, `FAILED_TO_UNLINK_LAST_ACCOUNT`.
///   Unknown provider → `PROVIDER_NOT_FOUND` (404); ID token for another provider →
///   `ID_TOKEN_NOT_SUPPORTED`; no `callbackURL` → `CALLBACK_URL_REQUIRED`.
/// - `change-email` (Bearer) `{newEmail, callbackURL?}` → `{status: true, message}`: an unverified
///   address is replaced at once (`"Email updated"`), a verified one once the link sent to the new
///   address is followed (`"Verification email sent"`); the same or a taken address →
///   `EMAIL_CAN_NOT_BE_UPDATED`.
/// - `GET get-session` (Bearer) → `{session, user}`, or JSON `null` (200) for a missing, unknown,
///   expired or signed-out token. `sign-out` (Bearer) → `{success: true}` (no session →
///   `FAILED_TO_GET_SESSION`). `GET list-accounts` (Bearer) → `[{provider, accountId, createdAt,
///   updatedAt}]`. `GET /openfort/iam/v2/me` (Bearer) → AuthUserResponse (epoch-ms times,
///   `linkedAccounts`). Routes needing a session answer `401 UNAUTHORIZED` without one.
/// - `send-verification-email` `{email, callbackURL?}` → `{status: true}` (`EMAIL_ALREADY_VERIFIED`
///   for a verified user); `GET verify-email?token=…[&callbackURL=…]` → `{status: true, user}` or a
///   302 to `callbackURL` (`?error=INVALID_TOKEN|TOKEN_EXPIRED` on failure; without a callbackURL
///   those are 400 JSON errors).
/// - `request-password-reset` and `forget-password` `{email, redirectTo?}` → `{status: true,
///   message}`; `GET reset-password/{token}?callbackURL=…` (the emailed link, opened by a browser,
///   so no key is needed) → 302 `callbackURL?token=…` or `?error=INVALID_TOKEN` (no callbackURL →
///   `CALLBACK_URL_REQUIRED`); `reset-password` `{newPassword, token}` → `{status: true}`
///   (`INVALID_TOKEN` for unknown, used or expired tokens).
///
/// Conventions (the spec is silent):
/// - `x-project-key` must be `pk_test_<uuid>` or `pk_live_<uuid>`; missing or otherwise →
///   `401 {"code":"INVALID_PROJECT_KEY"}`. The publishable key is not tied to a project: one
///   project serves every key.
/// - Errors use the flat shape `{"code","message"}` (AuthHubOpenfort docs, OpenfortErrors shape 1); a body that is not a JSON object
///   is `400 BODY_MUST_BE_AN_OBJECT`, a missing or mistyped field `400 VALIDATION_ERROR`.
/// - Session tokens are 32 random letters/digits (`<token>.<signature>` and percent-encoded
///   Bearers are accepted too). Sessions last 7 days; get-session extends one older than a day
///   to 7 days from now, keeping the token. Expiry uses the emulator clock.
/// - Emails are lower-cased and need `local@domain.tld`; passwords 8…128 characters.
/// - Verification and reset tokens are opaque (32 letters/digits), single-use, valid 1 hour;
///   OTPs are 6 digits, valid 5 minutes, single-use. Password resets keep existing sessions.
/// - Social accounts use the provider email as `accountId`. Signing in with a social account whose
///   email matches an existing user links it to that user (trusted providers); a new user is
///   created verified with `name` = email. A Bearer of an anonymous user on `sign-in/social` (or
///   `link-social`) turns the anonymous user into that social user (same id).
/// - ID tokens: the emulator accepts the subject token `emulator:<email>` for `apple` and `google`;
///   anything else is `400 INVALID_TOKEN`.
/// - Email verification is not required by default (toggle with the config hook).
///
/// Emulator hooks (not Openfort; no key):
/// - `GET /openfort/__emulator/otp?email=…[&type=…]` → `{email, otp, type}` newest pending, or 404.
/// - `GET /openfort/__emulator/tokens?email=…` → `{email, verification_token?, reset_token?}`, or 404.
/// - `POST /openfort/__emulator/users` `{email, password, name?, emailVerified?}` → the User.
/// - `GET|PATCH /openfort/__emulator/config` `{requireEmailVerification}`.
/// - `GET /openfort/__emulator/oauth/authorize?provider=…&state=…[&email=…][&authhub_emulator_deny=1]`
///   (the `url` OAuth start returns): acts as the social provider and redirects (302) at once to
///   `callbackURL?access_token=<session token>&user_id=<id>`, or with `authhub_emulator_deny=1` to
///   `errorCallbackURL` (else `callbackURL`) `?error=access_denied`; a failed link gives
///   `?error=SOCIAL_ACCOUNT_ALREADY_LINKED`. An unknown/expired state (10 minutes) is
///   `400 INVALID_STATE`.
///
/// Not served: the legacy `/iam/v1` API (AuthHubOpenfort docs, OpenfortEndpoints: “Legacy v1”), phone, SIWE, provider-token refresh
/// and session admin routes (404).
public struct OpenfortEmulatorModule: EmulatorModule {
    public let name = "openfort"
    public let pathPrefixes = ["/openfort"]

    public init() {}

    /// Registers the Openfort routes: a route collection under `/openfort` whose unforeseen errors
    /// answer `500 INTERNAL_SERVER_ERROR`.
    public func register(routes: EmulatorRouteBuilder, environment: EmulatorEnvironment) {
        let service = OpenfortService(environment: environment)
        let openfort = RouteCollection(failures: OpenfortFailure.self)
        let auth = openfort.group("iam/v2/auth")
        let posts: [(String, @Sendable (Request) async throws -> JSONValue)] = [
            ("sign-up/email", service.signUp), ("sign-in/email", service.signInWithPassword),
            ("sign-in/anonymous", service.signInAnonymously),
            ("email-otp/send-verification-otp", service.sendVerificationOTP),
            ("forget-password/email-otp", service.forgetPasswordOTP),
            ("sign-in/email-otp", service.signInWithOTP), ("email-otp/verify-email", service.verifyEmailOTP),
            ("email-otp/check-verification-otp", service.checkVerificationOTP),
            ("email-otp/reset-password", service.resetPasswordWithOTP),
            ("sign-in/social", service.signInSocial), ("link-social", service.linkSocial),
            ("unlink-account", service.unlinkAccount), ("change-email", service.changeEmail), ("sign-out", service.signOut),
            ("send-verification-email", service.sendVerificationEmail),
            ("request-password-reset", service.requestPasswordReset), ("forget-password", service.requestPasswordReset),
            ("reset-password", service.resetPassword),
        ]
        for (path, handler) in posts {
            auth.post(RouterPath(path)) { request, _ in try await service.api(request) { try await handler(request) } }
        }
        auth.get("get-session") { request, _ in try await service.api(request) { await service.getSession(request) } }
        auth.get("list-accounts") { request, _ in try await service.api(request) { try await service.listAccounts(request) } }
        auth.get("verify-email") { request, _ in
            try OpenfortService.checkProjectKey(request)
            return try await service.verifyEmail(request)
        }
        auth.get("reset-password/:token") { request, context in
            // The emailed link is opened by a browser, which sends no project key.
            try await service.resetPasswordLanding(request, token: context.parameters.get("token") ?? "")
        }
        openfort.get("iam/v2/me") { request, _ in try await service.api(request) { try await service.me(request) } }

        let hooks = openfort.group("__emulator")
        hooks.get("otp") { request, _ in EmulatorResponse.json(try await service.pendingOTP(request)) }
        hooks.get("tokens") { request, _ in EmulatorResponse.json(try await service.pendingTokens(request)) }
        hooks.post("users") { request, _ in EmulatorResponse.json(try await service.seedUser(request)) }
        hooks.get("config") { _, _ in EmulatorResponse.json(await service.getConfig()) }
        hooks.patch("config") { request, _ in EmulatorResponse.json(try await service.patchConfig(request)) }
        hooks.get("oauth/authorize") { request, _ in try await service.authorize(request) }
        routes.addRoutes(openfort, atPath: "/openfort")
    }

    /// A flat better-auth error body (AuthHubOpenfort docs, OpenfortErrors, shape 1) with code `NOT_FOUND`.
    public func notFoundBody() -> JSONValue {
        ["code": "NOT_FOUND", "message": "Not Found"]
    }
}
