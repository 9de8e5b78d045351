import enum AuthHub.JSONValue
import Hummingbird

/// The Auth0 share of the emulator, under `/auth0`.
///
/// A tenant's paths hang off the domain (AuthHubAuth0 docs, Auth0Endpoints: “Conventions”), so with the domain
/// `http://127.0.0.1:PORT/auth0` in providers.json the SDK's `/oauth/token` arrives here as
/// `/auth0/oauth/token`, `/.well-known/jwks.json` as `/auth0/.well-known/jwks.json`, the My Account
/// API as `/auth0/me/v1/…` and the Management API as `/auth0/api/v2/…`. The issuer of its ID
/// tokens is `http://127.0.0.1:PORT/auth0/` (with the trailing slash, AuthHubAuth0 docs, Auth0Endpoints: “ID-token validation”).
///
/// Authentication API routes (AuthHubAuth0 docs, Auth0Endpoints: “Web Auth”, “ID-token validation”, “Authentication API”, “Models”):
/// - `GET /auth0/.well-known/openid-configuration`, `GET /auth0/.well-known/jwks.json` (an RS256
///   key generated per emulator instance, or a P-256 ES256 key with `init(idTokenSigningAlgorithm: .es256)`)
/// - `GET /auth0/authorize` (authorization code + PKCE S256; HTML login page posting to
///   `POST /auth0/u/login`, or with `screen_hint=signup` the sign-up page posting to
///   `POST /auth0/u/signup`), `GET /auth0/v2/logout` (ends the browser session; redirects to an
///   allowed `returnTo`)
/// - Universal Login behaviours: a browser session (cookie `auth0`, `HttpOnly`, `Path=/auth0`,
///   `Secure; SameSite=None` only over HTTPS; kept server-side by digest with the user,
///   `auth_time` and organizations) started by a successful login or sign-up page (and by the
///   `X-AuthHub-Emulator-User` hook), which later `/authorize` requests use without asking again
///   (`auth_time` stays the original login's; `prompt=none` succeeds), unless `prompt=login`,
///   `max_age=0` or an older `auth_time` than `max_age` (0…315360000; else `invalid_request`);
///   Organizations (`organization=<id or name>`, `invitation=<ticket>`; ID tokens carry `org_id`
///   and `org_name`, kept through refreshes); a user with `mfa_required` and no authenticator
///   enrolls a TOTP authenticator on the login page; with bot detection on, the pages show a
///   CAPTCHA checkbox and the password grants answer `401 requires_verification`
/// - `POST /auth0/oauth/token`: `password`, `…/password-realm`, `authorization_code`,
///   `refresh_token` (rotation with reuse detection; SSO session transfer with the
///   `urn:{host}:session_transfer` audience), `…/mfa-otp`, `…/mfa-recovery-code`,
///   `…/passwordless/otp`, `urn:okta:params:oauth:grant-type:webauthn`, `…/mfa-oob`,
///   `urn:ietf:params:oauth:grant-type:token-exchange` (see below),
///   `urn:ietf:params:oauth:grant-type:device_code` (see below)
/// - `POST /auth0/dbconnections/signup`, `GET /auth0/userinfo`, `POST /auth0/oauth/revoke`
/// - `POST /auth0/dbconnections/change_password` (no email is sent)
/// - `GET /auth0/mfa/authenticators`, `POST /auth0/mfa/associate` (TOTP, or OOB with the `sms` or
///   `email` channel), `POST /auth0/mfa/challenge` (`otp`, or `oob` with `binding_method: "prompt"`)
///   and the `…/mfa-oob` grant `{mfa_token, oob_code, binding_code}`. Authenticators list as
///   `{id, authenticator_type, oob_channel?, name?, active, type}` with `type` `otp`, `phone`
///   (SMS), `email` or `recovery-code`; OOB names are masked (`XXXXXXXX0100`, `a***@example.com`);
///   `mfa_requirements.challenge` names the same types. An `oob_code` is single-use and bound to
///   its MFA token; five wrong binding codes drop it.
/// - `POST /auth0/passwordless/start`, `POST /auth0/otp/challenge` (DB-connection OTP)
/// - `POST /auth0/passkey/challenge`, `POST /auth0/passkey/register` and the
///   `urn:okta:params:oauth:grant-type:webauthn` grant (RP ID `localhost`, origins
///   `https://localhost` / `http://localhost`)
/// - Device Authorization Flow (RFC 8628; facts in the DocC article “Auth0 device authorization”):
///   `POST /auth0/oauth/device/code` `{client_id, scope?, audience?}` → `{device_code, user_code
///   (XXXX-XXXX, 20 consonants), verification_uri: <issuer>activate, verification_uri_complete:
///   <issuer>activate?user_code=…, expires_in: 900, interval: 5}`; the verification page
///   `GET /auth0/activate[?user_code=…]` and its form `POST /auth0/activate` (enter the code → the
///   login page → Approve/Deny → done; a live browser session skips the login page; every page
///   carries its own token); the device-code grant answers `403 authorization_pending`,
///   `429 slow_down` (polled sooner than the interval, which then grows by 5 s), `403 access_denied`,
///   `403 expired_token`, `403 invalid_grant` (unknown, spent or another client's code), then the
///   tokens once. The discovery document names `device_authorization_endpoint`.
///
/// Confidential clients and pushed authorization requests (DocC article “Auth0 confidential
/// clients and PAR”):
/// - Client authentication at `/oauth/token`, `/oauth/revoke`, `/oauth/par` and
///   `/oauth/device/code` for a client registered with a `token_endpoint_auth_method` (see the
///   registration hook below): `client_secret_post` (`client_secret` in the body),
///   `client_secret_basic` (`Authorization: Basic base64(urlencode(id):urlencode(secret))`) or
///   `private_key_jwt` (`client_assertion_type=urn:ietf:params:oauth:client-assertion-type:jwt-bearer`
///   and `client_assertion`, a JWT signed RS256, RS384 or PS256 — the registered credential's alg —
///   with `iss` = `sub` = client id, `aud` = the issuer `http://127.0.0.1:PORT/auth0/`, `exp` at most
///   5 minutes ahead (and after `iat`), `jti` single-use). Checked before anything else of the
///   request: a wrong, missing or wrongly presented secret is `401 {"error":"access_denied",
///   "error_description":"Unauthorized"}` (no `WWW-Authenticate` challenge), a
///   refused assertion `401 invalid_client` naming the check. Unregistered clients and clients
///   registered without a method stay public: only `client_id`, as before.
/// - `POST /auth0/oauth/par` (RFC 9126; confidential clients only, else `401 invalid_client`): the
///   authorize parameters, validated as `/authorize` validates them (a refusal is a JSON
///   `400 {error, error_description}`; `request_uri` in the body is `400 invalid_request`) →
///   `201 {request_uri: "urn:ietf:params:oauth:request_uri:<random>", expires_in: 30}`.
///   `GET /auth0/authorize?client_id=…&request_uri=…` then uses the pushed parameters (other query
///   parameters ignored, but for the emulator hooks); an unknown, expired (30 s on the emulator's
///   clock), used or other client's `request_uri` is a JSON `400 invalid_request`, as is a request
///   without `request_uri` from a client registered with `require_pushed_authorization_requests`.
///   The discovery document names `pushed_authorization_request_endpoint`,
///   `token_endpoint_auth_methods_supported` and `token_endpoint_auth_signing_alg_values_supported`.
///
/// Token scope policy for the APIs below (``Auth0API``): a login or refresh-token grant whose
/// `audience` is the My Account audience `<issuer>me/` may be granted
/// `create:me:authentication_methods read:me:authentication_methods update:me:authentication_methods
/// delete:me:authentication_methods read:me:factors`, one with the Management audience
/// `<issuer>api/v2/` `read:current_user update:current_user_metadata update:current_user_identities`,
/// on top of the refresh-token family's scopes; a client registered with `api_scopes` gets only
/// those; a requested API scope that is not grantable is left out of the granted `scope`.
///
/// My Account API (AuthHubAuth0 docs, Auth0Endpoints: “My Account API”), bearer token for `<issuer>me/`, RFC 7807 errors
/// (`application/problem+json`; 401 "Unauthorized", 403 "Forbidden" with detail
/// `Insufficient scope; expected <scope>.`, 400 "Bad Request" with `validation_errors`, 404 "Not Found"):
/// - `GET /auth0/me/v1/authentication-methods[?type=…]`, `POST /auth0/me/v1/authentication-methods`
///   (201 + `Location: <issuer>me/v1/authentication-methods/<percent-encoded id>`; totp,
///   push-notification, email, phone, recovery-code, password, passkey)
/// - `GET`/`PATCH`/`DELETE /auth0/me/v1/authentication-methods/{id}` (ids percent-encoded, `%7C`)
/// - `POST /auth0/me/v1/authentication-methods/{id}/verify` (a wrong `otp_code` is 400 detail
///   `Invalid otp_code.`; an unknown or expired `auth_session` is 400 naming `auth_session`)
/// - `GET /auth0/me/v1/factors`
/// Enrolled methods are the Authentication API's own authenticators (TOTP for `mfa-otp`, OOB
/// email/SMS for `mfa-oob`, the recovery code, passkeys for the webauthn grant, the password).
///
/// Management API users (AuthHubAuth0 docs, Auth0Endpoints: “Management API users”), bearer token for `<issuer>api/v2/`, errors
/// `{statusCode, error, message, errorCode}`, a token reaches only its own user:
/// - `GET /auth0/api/v2/users/{id}` (`fields`, `include_fields`), `PATCH /auth0/api/v2/users/{id}`
///   (`user_metadata` only, merged; `null` removes a key)
/// - `POST /auth0/api/v2/users/{id}/identities` (`{link_with}` or `{provider, user_id}`; 201),
///   `DELETE /auth0/api/v2/users/{id}/identities/{provider}/{secondaryUserId}`
///
/// Token exchange (AuthHubAuth0 docs, Auth0Endpoints: “Token exchange”), emulator conventions:
/// - Apple (`http://auth0.com/oauth/token-type/apple-authz-code`) and Facebook
///   (`http://auth0.com/oauth/token-type/facebook-info-session-access-token`): the subject token
///   `emulator:<email>` signs in the user with that email in the `apple` or `facebook` connection
///   (user id `apple|…`/`facebook|…`, created on first use, `email_verified` true); `user_profile`
///   (a JSON-encoded string of an object, else `400 invalid_request`) sets `name`, `given_name`
///   and `family_name` from Apple's `{"name":{"firstName","lastName"}}` or Facebook's `name`,
///   `first_name`, `last_name`. Any other subject token is `403 invalid_grant` "Invalid subject_token.".
/// - Any other `subject_token_type`: only tokens registered with the hook below; another token
///   of a registered type is `403 invalid_grant`, a type never registered `400 invalid_request`.
/// - `actor_token` and `actor_token_type` go together (else `400 invalid_request`); with them no
///   refresh token is issued, and a registered actor token puts `act: {sub}` in the ID token.
///   `organization` is accepted and ignored.
///
/// Emulator-only test hooks (not part of Auth0):
/// - `POST /auth0/__emulator/users` seeds a user (body: the signup fields plus `email_verified`, `mfa_required`, `totp_secret`), `GET` lists them
/// - `POST /auth0/__emulator/clients` registers a client's allowed callback URLs and rotation, and
///   with `api_scopes: [String]` the only API scopes its tokens may be granted; with
///   `token_endpoint_auth_method` (`none` default | `client_secret_post` | `client_secret_basic` |
///   `private_key_jwt`), `client_secret` (32+ characters, the secret methods only),
///   `client_authentication_methods: {private_key_jwt: {credentials: [{credential_type:
///   "public_key", pem: <SPKI PEM of an RSA key of 2048+ bits>, alg: RS256|RS384|PS256, kid?}]}}`
///   (`private_key_jwt` only) and `require_pushed_authorization_requests: Bool` (confidential
///   clients only) a confidential client; every field is validated (400 `invalid_request` naming
///   it) and the reply never shows the secret
/// - `GET /auth0/__emulator/passwordless?email=…|phone_number=…` reads a pending passwordless code
/// - `POST /auth0/__emulator/token-exchange` `{subject_token_type, subject_token, email, connection?}`
///   makes the token-exchange grant accept that subject token (201 `{subject_token_type, email,
///   connection}`; `connection` defaults to `apple`/`facebook` for those types, else
///   `Username-Password-Authentication`; the user is created there on first use)
/// - `GET /auth0/__emulator/mfa-binding-code?oob_code=…` reads the binding code "sent" with an
///   `oob_code` of `/mfa/associate` or `/mfa/challenge`: `{binding_code, oob_channel}`, or 404
/// - `GET /auth0/__emulator/outbox?to=<email or phone number>` lists the codes the My Account email
///   and phone enrollments "sent" there, oldest first: `{messages:[{to, channel:"email"|"sms"|"voice",
///   code, purpose:"enrollment", sent_at}]}` (`to` required, else 400)
/// - `POST /auth0/__emulator/push/accept` `{id}` accepts a pending My Account push-notification
///   enrollment "on the device" → `{id, accepted:true}`, or 404
/// - `GET /auth0/authorize` with header `X-AuthHub-Emulator-User: <email>` or query
///   `authhub_emulator_user=<email>` skips the login page and redirects with a code at once,
///   starting a browser session like a finished login page would (`Set-Cookie: auth0=…`; a client
///   without a cookie jar just ignores it); `authhub_emulator_deny=1` redirects with
///   `error=access_denied`.
/// - `POST /auth0/__emulator/organizations` `{name, display_name?, members?: [email]}` → 201
///   `{id: "org_…", name, display_name?, members}` creates an organization (409 for a taken name)
/// - `POST /auth0/__emulator/organizations/{id}/invitations` `{email}` → 201 `{invitation_url,
///   ticket_id, organization_id, email, expires_at}` with `invitation_url` =
///   `<issuer>login?invitation=<ticket_id>&organization=<org_id>&organization_name=<name>`
/// - `POST /auth0/__emulator/attack-protection` `{bot_detection: Bool}` → `{bot_detection}`
///   turns bot detection on or off
/// - `POST /auth0/__emulator/device/approve` `{user_code, email, connection?}` approves a pending
///   device authorization as that user (as if they had logged in and pressed Approve now) →
///   `{user_code, status:"approved", user_id}`; `POST /auth0/__emulator/device/deny` `{user_code}`
///   denies it → `{user_code, status:"denied"}`; both 404 for an unknown, expired or decided code
///   (or an unknown user). Expiry and `slow_down` follow the emulator's injected clock
///   (``EmulatorConfiguration``), so tests move time instead of waiting.
/// - `POST /auth0/__emulator/dpop` `{nonce_required?: Bool, rotate_nonce?: Bool}` → `{nonce_required,
///   nonce}` switches DPoP nonce mode (`rotate_nonce` makes the current nonce stale); `GET` reads it.
/// - `POST /auth0/__emulator/logout-token` `{client_id, sub?, sid?, send?, claims?, typ?}` → `{logout_token}`
///   (or, with `send: true`, also `deliveries` to the client's back-channel logout URLs);
///   `GET /auth0/__emulator/backchannel-logouts[?client_id=…]` → `{deliveries: [...]}`
///
/// OpenID Connect Back-Channel Logout 1.0 (the DocC article “Auth0 back-channel logout” has the
/// details): ID tokens from a browser session carry its `sid`; a client registered with
/// `oidc_logout: {backchannel_logout_urls: [loopback http(s) URL]}` at `POST /auth0/__emulator/clients`
/// gets a logout token (`typ: logout+jwt`, signed with the tenant's key) POSTed as the form field
/// `logout_token` when a session in which it received tokens ends at `GET /auth0/v2/logout`, before
/// that request is answered; every delivery is recorded.
///
/// DPoP (RFC 9449; the DocC article “Auth0 DPoP” has the details): a `DPoP` proof (ES256 only,
/// advertised as `dpop_signing_alg_values_supported`) on `POST /auth0/oauth/token` binds the issued
/// tokens to its key (`token_type: "DPoP"`, `cnf.jkt` in the JWT access token, the refresh-token
/// family bound); `/authorize` takes `dpop_jkt`; `/userinfo`, the My Account API and the Management
/// API take a bound token only as `Authorization: DPoP` with a proof (`ath` checked).
public struct Auth0EmulatorModule: EmulatorModule {
    /// `auth0`.
    public let name = "auth0"
    /// `["/auth0"]`: the Auth0 domain is `http://HOST:PORT/auth0`.
    public let pathPrefixes = ["/auth0"]

    /// The algorithm ID tokens are signed with (Auth0's RS256 unless set otherwise).
    public let idTokenSigningAlgorithm: Auth0EmulatorSigningAlgorithm

    /// Creates the module; every emulator that registers it gets its own tenant and signing key.
    /// - Parameter idTokenSigningAlgorithm: RS256 (Auth0's, the default) or ES256, for testing
    ///   clients against an OpenID provider that signs with a P-256 key.
    public init(idTokenSigningAlgorithm: Auth0EmulatorSigningAlgorithm = .rs256) {
        self.idTokenSigningAlgorithm = idTokenSigningAlgorithm
    }

    /// Registers the Auth0 routes, a route collection under `/auth0` whose unforeseen errors answer
    /// `500 server_error`, and starts generating this instance's signing key.
    public func register(routes: EmulatorRouteBuilder, environment: EmulatorEnvironment) {
        let service = Auth0Service(environment: environment, signingKey: Auth0SigningKey(algorithm: idTokenSigningAlgorithm))
        let auth0 = RouteCollection(failures: Auth0Failure.self)
        auth0.add(middleware: Auth0DPoPNonceMiddleware(state: environment.state))
        auth0.get(".well-known/openid-configuration") { request, _ in await service.discovery(request) }
        auth0.get(".well-known/jwks.json") { _, _ in try await service.jwks() }
        auth0.get("authorize") { request, _ in try await service.authorize(request) }
        auth0.post("u/login") { request, _ in try await service.loginForm(request) }
        auth0.post("u/signup") { request, _ in try await service.signupForm(request) }
        auth0.get("v2/logout") { request, _ in try await service.logout(request) }
        auth0.post("oauth/token") { request, _ in try await service.token(request) }
        auth0.post("oauth/revoke") { request, _ in try await service.revoke(request) }
        auth0.post("oauth/par") { request, _ in try await service.pushAuthorizationRequest(request) }
        auth0.post("oauth/device/code") { request, _ in try await service.deviceAuthorization(request) }
        auth0.get("activate") { request, _ in await service.activatePage(request) }
        auth0.post("activate") { request, _ in try await service.activateForm(request) }
        auth0.get("userinfo") { request, _ in try await service.userinfo(request) }
        auth0.post("dbconnections/signup") { request, _ in try await service.signup(request) }
        auth0.get("mfa/authenticators") { request, _ in try await service.listAuthenticators(request) }
        auth0.post("mfa/associate") { request, _ in try await service.associate(request) }
        auth0.post("mfa/challenge") { request, _ in try await service.challenge(request) }
        auth0.post("dbconnections/change_password") { request, _ in try await service.changePassword(request) }
        auth0.post("passwordless/start") { request, _ in try await service.passwordlessStart(request) }
        auth0.post("otp/challenge") { request, _ in try await service.otpChallenge(request) }
        auth0.post("passkey/challenge") { request, _ in try await service.passkeyChallenge(request) }
        auth0.post("passkey/register") { request, _ in try await service.passkeyRegister(request) }
        auth0.post("__emulator/users") { request, _ in try await service.seedUser(request) }
        auth0.get("__emulator/users") { _, _ in await service.listUsers() }
        auth0.post("__emulator/clients") { request, _ in try await service.registerClient(request) }
        auth0.get("__emulator/passwordless") { request, _ in try await service.passwordlessCode(request) }
        auth0.post("__emulator/token-exchange") { request, _ in try await service.registerExchangeToken(request) }
        auth0.get("__emulator/mfa-binding-code") { request, _ in try await service.mfaBindingCode(request) }
        auth0.get("__emulator/outbox") { request, _ in try await service.outbox(request) }
        auth0.get("__emulator/stats") { _, _ in await service.stats() }
        auth0.post("__emulator/push/accept") { request, _ in try await service.acceptPush(request) }
        auth0.post("__emulator/organizations") { request, _ in try await service.createOrganization(request) }
        auth0.post("__emulator/organizations/:id/invitations") { request, context in
            try await service.createInvitation(request, context: context)
        }
        auth0.post("__emulator/attack-protection") { request, _ in try await service.setAttackProtection(request) }
        auth0.post("__emulator/device/approve") { request, _ in try await service.approveDevice(request) }
        auth0.post("__emulator/device/deny") { request, _ in try await service.denyDevice(request) }
        auth0.get("__emulator/dpop") { request, _ in try await service.dpopSettings(request) }
        auth0.post("__emulator/dpop") { request, _ in try await service.dpopSettings(request) }
        auth0.post("__emulator/logout-token") { request, _ in try await service.logoutTokenHook(request) }
        auth0.get("__emulator/backchannel-logouts") { request, _ in await service.backchannelLogouts(request) }
        let methods = auth0.group("me/v1/authentication-methods")
        methods.get { request, _ in try await service.listMethods(request) }
        methods.post { request, _ in try await service.startEnrollment(request) }
        methods.get(":id") { request, context in try await service.getMethod(request, context: context) }
        methods.patch(":id") { request, context in try await service.updateMethod(request, context: context) }
        methods.delete(":id") { request, context in try await service.deleteMethod(request, context: context) }
        methods.post(":id/verify") { request, context in try await service.verifyEnrollment(request, context: context) }
        auth0.get("me/v1/factors") { request, _ in try await service.listFactors(request) }
        let users = auth0.group("api/v2/users")
        users.get(":id") { request, context in try await service.getUser(request, context: context) }
        users.patch(":id") { request, context in try await service.patchUser(request, context: context) }
        users.post(":id/identities") { request, context in try await service.linkIdentity(request, context: context) }
        users.delete(":id/identities/:provider/:secondary") { request, context in
            try await service.unlinkIdentity(request, context: context)
        }
        routes.addRoutes(auth0, atPath: RouterPath(Auth0Service.prefix))
    }

    /// Auth0's 404 for an unknown path, in the `{statusCode, error, message}` shape its APIs use
    /// for errors outside OAuth (AuthHubAuth0 docs, Auth0Endpoints: “Management API users”).
    public func notFoundBody() -> JSONValue {
        ["statusCode": 404, "error": "Not Found", "message": "Not Found"]
    }
}
