import enum AuthHub.JSONValue
import struct AuthHub.Secret
import AuthHubFactors
import Foundation
import HTTPTypes
import Hummingbird

extension Auth0Service {
    /// The emulator-only header that completes `GET /authorize` without the login page: its
    /// value is the email (or username) of an existing user of the requested connection, and the
    /// reply is at once the 302 to `redirect_uri?code=…&state=…`. It stands for a finished
    /// Universal Login, so neither password nor second factor is asked.
    static let loginHookHeader = "X-AuthHub-Emulator-User"
    /// The query-parameter form of ``loginHookHeader`` (`authhub_emulator_user=<email>`), for
    /// clients that can add authorize parameters but not headers.
    static let loginHookParameter = "authhub_emulator_user"
    /// Emulator-only: `authhub_emulator_deny=1` makes `/authorize` answer as if the user declined,
    /// redirecting with `error=access_denied`.
    static let denyHookParameter = "authhub_emulator_deny"

    /// The largest `max_age` accepted (ten years, in seconds); more is `invalid_request`.
    static let maximumMaxAge = 315_360_000
    /// The `prompt` values Auth0 accepts (space-separated).
    static let promptValues: Set<String> = ["none", "login", "consent", "select_account"]

    /// `GET /authorize` (AuthHubAuth0 docs, Auth0Endpoints: “Authorize URL”).
    ///
    /// With `request_uri` (RFC 9126), the parameters are those pushed to `/oauth/par` by the same
    /// `client_id` (``takePushedRequest(_:clientId:)``: single use, 30 s; other query parameters are
    /// ignored but for the emulator hooks); an unusable `request_uri` is a JSON `400
    /// invalid_request`, and so is a request without one from a client registered with
    /// `require_pushed_authorization_requests`. The parameters are then checked
    /// (``validatedAuthorize(_:clientId:tenant:)``).
    ///
    /// Checks, in order: `client_id` and `redirect_uri` (missing or not allowed → a JSON 400,
    /// since there is nowhere safe to redirect); then, redirecting errors back to `redirect_uri`
    /// with `error`, `error_description` and `state` (AuthHubAuth0 docs, Auth0Endpoints: “Callback parsing”): `response_type=code`,
    /// `code_challenge` and `code_challenge_method=S256` (PKCE is required), `max_age` (a
    /// non-negative integer of at most ``maximumMaxAge`` digits-only seconds, else
    /// `invalid_request`), `prompt` (values of ``promptValues``; `none` alone), `organization`
    /// (an organization id `org_…` or name; unknown → `invalid_request`), `invitation` (a
    /// pending ticket of that organization, only with `organization`; else `invalid_request`) and
    /// `dpop_jkt` (RFC 9449, section 10: a JWK SHA-256 thumbprint, 43 base64url characters, else
    /// `invalid_request` "Invalid dpop_jkt"; kept with the code, whose exchange must then prove that key).
    ///
    /// Then, the first that applies:
    /// 1. the emulator-only hooks (``denyHookParameter``, ``loginHookHeader``);
    /// 2. the browser session (``Auth0LoginSession``, cookie `auth0`): unless `prompt=login` or
    ///    `max_age=0`, a live session whose `auth_time` is no older than `max_age` completes at
    ///    once (302 with a code; the ID token's `auth_time` is the session's login time). With
    ///    `organization`, the session's user must be a member (or the invitee of `invitation`,
    ///    which then makes them one); otherwise the session is not used. `screen_hint` does not
    ///    matter here (AuthHubAuth0 docs, Auth0Endpoints: “Authorize URL” table: "redirects straight back");
    /// 3. `prompt=none` → `login_required`;
    /// 4. the HTML login page, or the sign-up page with `screen_hint=signup` (AuthHubAuth0 docs, Auth0Endpoints: “Authorize URL” table).
    func authorize(_ request: Request) async throws -> Response {
        var parameters = Auth0Parameters.query(of: request)
        let clientId = try parameters.required("client_id")
        let tenant = await state.get(Auth0Tenant.key)
        if let requestURI = parameters.string("request_uri") {
            guard let pushed = await takePushedRequest(requestURI, clientId: clientId) else {
                throw Auth0Failure.invalidRequest("Invalid request_uri: it is unknown, expired, already used or another client's.")
            }
            var stored = pushed.parameters
            // The emulator-only hooks still come from the query (they are not Auth0 parameters).
            for hook in [Self.loginHookParameter, Self.denyHookParameter] where stored.values[hook] == nil {
                stored.values[hook] = parameters.values[hook]
            }
            parameters = stored
        } else if tenant.clients[clientId]?.requirePushedAuthorizationRequests == true {
            throw Auth0Failure.invalidRequest("This client requires pushed authorization requests: send a request_uri of /oauth/par.")
        }
        let authorize: Auth0AuthorizeRequest
        let prompts: Set<String>
        do {
            (authorize, prompts) = try validatedAuthorize(parameters, clientId: clientId, tenant: tenant)
        } catch {
            guard let redirectURI = error.redirectURI else { throw Auth0Failure.oauth(error.error, error.description, status: .badRequest) }
            return Self.redirect(to: redirectURI, with: [("error", error.error), ("error_description", error.description), ("state", error.state)])
        }
        let maxAge = authorize.maxAge
        func refuse(_ error: String, _ description: String) -> Response {
            Self.redirect(to: authorize.redirectURI, with: [("error", error), ("error_description", description), ("state", authorize.state)])
        }
        if parameters.string(Self.denyHookParameter) != nil {
            return refuse("access_denied", "User did not authorize the request")
        }
        let presentedCookie = Auth0LoginSession.cookieValue(in: request.headers[.cookie])
        let hookHeader = HTTPField.Name(Self.loginHookHeader).flatMap { request.headers[$0] }
        if let name = hookHeader ?? parameters.string(Self.loginHookParameter) {
            guard let user = tenant.user(login: name, connection: authorize.connection) else {
                return refuse("access_denied", "Wrong email or password.")
            }
            guard let response = await finishLogin(authorize, user: user, transaction: nil, replacing: presentedCookie) else {
                return refuse("access_denied", Self.notAMember)
            }
            return response
        }
        let mustLogIn = prompts.contains("login") || maxAge == 0
        if !mustLogIn, let cookie = presentedCookie, let found = await sessionLogin(cookie: cookie, for: authorize) {
            return await completeLogin(authorize, user: found.user, authTime: found.authTime, sessionId: found.sessionId)
        }
        if prompts.contains("none") {
            return refuse("login_required", "Login required")
        }
        let transaction = randomToken()
        let expiresAt = now.addingTimeInterval(Self.loginLifetime)
        await state.update(Auth0Tenant.key) { tenant in
            tenant.purge(now: expiresAt.addingTimeInterval(-Self.loginLifetime))
            tenant.logins[Auth0Tenant.digest(transaction)] = Auth0LoginTransaction(request: authorize, expiresAt: expiresAt)
        }
        var page = Auth0LoginPage.Options(captcha: tenant.botDetection)
        page.signup = authorize.signup
        return Auth0LoginPage.response(transaction: transaction, page, status: .ok)
    }

    /// The checks of `/authorize` on its parameters (also those of a pushed request, at
    /// `/oauth/par` and when its `request_uri` is used): see ``authorize(_:)`` for the order.
    /// - Throws: ``Auth0AuthorizeRefusal``, with the redirect URI to send it to once that is known to be allowed.
    func validatedAuthorize(
        _ parameters: Auth0Parameters, clientId: String, tenant: Auth0Tenant
    ) throws(Auth0AuthorizeRefusal) -> (Auth0AuthorizeRequest, prompts: Set<String>) {
        guard let redirectURI = parameters.string("redirect_uri") else {
            throw Auth0AuthorizeRefusal(error: "invalid_request", description: "Missing required parameter: redirect_uri")
        }
        guard tenant.redirectAllowed(redirectURI, for: clientId) else {
            throw Auth0AuthorizeRefusal(
                error: "invalid_request",
                description: "Callback URL mismatch. The redirect_uri is not in the list of allowed callback URLs of the client."
            )
        }
        let stateValue = parameters.string("state")
        func refuse(_ error: String, _ description: String) -> Auth0AuthorizeRefusal {
            Auth0AuthorizeRefusal(error: error, description: description, redirectURI: redirectURI, state: stateValue)
        }
        guard let responseType = parameters.string("response_type") else {
            throw refuse("invalid_request", "Missing required parameter: response_type")
        }
        guard responseType == "code" else {
            throw refuse("unsupported_response_type", "Unsupported response type: \(responseType)")
        }
        guard let challenge = parameters.string("code_challenge") else {
            throw refuse("invalid_request", "Missing required parameter: code_challenge")
        }
        guard parameters.string("code_challenge_method") == "S256" else {
            throw refuse("invalid_request", "code_challenge_method must be S256")
        }
        guard challenge.count == 43, challenge.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            throw refuse("invalid_request", "Invalid code_challenge")
        }
        var maxAge: Int?
        if let text = parameters["max_age"]?.stringValue {
            guard let value = Self.maxAge(text) else {
                throw refuse("invalid_request", "max_age must be a non-negative integer of at most \(Self.maximumMaxAge) seconds")
            }
            maxAge = value
        }
        var prompts = Set<String>()
        if let prompt = parameters.string("prompt") {
            prompts = Set(prompt.split(separator: " ").map(String.init))
            guard prompt.count <= 100, prompts.isSubset(of: Self.promptValues) else {
                throw refuse("invalid_request", "Unsupported prompt value")
            }
            guard !prompts.contains("none") || prompts.count == 1 else {
                throw refuse("invalid_request", "prompt=none cannot be combined with other prompt values")
            }
        }
        var organization: Auth0OrganizationClaim?
        if let reference = parameters.string("organization") {
            guard reference.count <= 100, let found = tenant.organization(reference) else {
                throw refuse("invalid_request", "parameter organization is invalid")
            }
            organization = found.claim
        }
        let invitation = parameters.string("invitation")
        if let invitation {
            guard let organization, invitation.count <= Auth0LoginSession.maximumCookieLength,
                  tenant.invitation(invitation, organizationId: organization.id, now: now) != nil
            else { throw refuse("invalid_request", "The invitation is invalid or has expired") }
        }
        let dpopJKT = parameters.string("dpop_jkt")
        if let dpopJKT {
            guard dpopJKT.utf8.count == 43, Auth0CompactJWS.isBase64URL(Substring(dpopJKT)) else {
                throw refuse("invalid_request", "Invalid dpop_jkt")
            }
        }
        let authorize = Auth0AuthorizeRequest(
            clientId: clientId, redirectURI: redirectURI, state: stateValue, nonce: parameters.string("nonce"),
            scopes: Auth0Grant.scopes(parameters.string("scope") ?? Self.defaultScope),
            audience: parameters.string("audience"),
            connection: parameters.string("connection") ?? Auth0Tenant.defaultConnection,
            codeChallenge: challenge, maxAge: maxAge, organization: organization, invitation: invitation,
            signup: parameters.string("screen_hint") == "signup", dpopJKT: dpopJKT
        )
        return (authorize, prompts)
    }

    /// Auth0's refusal for a user who is not a member of the requested organization.
    static let notAMember = "user is not part of the organization"

    /// `max_age` as hostile input: 1…10 ASCII digits, at most ``maximumMaxAge``.
    static func maxAge(_ text: String) -> Int? {
        guard (1...10).contains(text.utf8.count), text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              let value = Int(text), value <= maximumMaxAge
        else { return nil }
        return value
    }

    /// The user, login time and session id of the live session of `cookie`, when it may complete `authorize`
    /// without asking for credentials (its `auth_time` is within `max_age`; for an organization,
    /// its user is a member or the invitee, who then becomes one). Marks the session used.
    func sessionLogin(cookie: String, for authorize: Auth0AuthorizeRequest) async -> (user: Auth0User, authTime: Date, sessionId: String)? {
        let at = now
        let digest = Auth0Tenant.digest(cookie)
        return await state.update(Auth0Tenant.key) { tenant -> (user: Auth0User, authTime: Date, sessionId: String)? in
            guard var session = tenant.sessions[digest], session.isAlive(at: at), let user = tenant.users[session.userId] else {
                return nil
            }
            if let maxAge = authorize.maxAge, at.timeIntervalSince(session.authTime) > TimeInterval(maxAge) { return nil }
            if let organization = authorize.organization {
                guard tenant.admit(user.email, to: organization.id, invitation: authorize.invitation, now: at) else { return nil }
                session.organizations.insert(organization.id)
            }
            session.lastUsed = at
            tenant.sessions[digest] = session
            return (user: user, authTime: session.authTime, sessionId: session.sessionId)
        }
    }

    /// Completes a login in which the user just gave credentials (login page, sign-up page or the
    /// login hook): admits the user to the requested organization (or answers nil when they may
    /// not join it), spends the login transaction, replaces the browser session the request
    /// carried by a new one (`auth_time` now) and redirects with a code and the session cookie
    /// (or, for the login step of the device verification flow, shows the consent page with it).
    func finishLogin(
        _ authorize: Auth0AuthorizeRequest, user: Auth0User, transaction: String?, replacing old: String?
    ) async -> Response? {
        let cookie = randomToken()
        let sessionId = randomToken(bytes: 16)
        let at = now
        let admitted = await state.update(Auth0Tenant.key) { tenant -> Bool in
            if let organization = authorize.organization {
                guard tenant.admit(user.email, to: organization.id, invitation: authorize.invitation, now: at) else { return false }
            }
            if let transaction { tenant.logins[Auth0Tenant.digest(transaction)] = nil }
            if let old { tenant.sessions[Auth0Tenant.digest(old)] = nil }
            tenant.sessions[Auth0Tenant.digest(cookie)] = Auth0LoginSession(
                sessionId: sessionId, userId: user.userId, authTime: at, lastUsed: at, organizations: Set(authorize.organization.map { [$0.id] } ?? [])
            )
            return true
        }
        guard admitted else { return nil }
        var response: Response
        if let deviceCode = authorize.deviceCode {
            response = await deviceConsentPage(deviceDigest: deviceCode, user: user, authTime: at)
        } else {
            response = await completeLogin(authorize, user: user, authTime: at, sessionId: sessionId)
        }
        response.headers[.setCookie] = Auth0LoginSession.setCookie(cookie, secure: await isSecure)
        return response
    }

    /// Whether the emulator is served over HTTPS (its cookies then get `Secure; SameSite=None`).
    var isSecure: Bool {
        get async { await state.baseURL?.scheme?.lowercased() == "https" }
    }

    /// The largest password the pages check (longer ones are wrong: hashing megabytes is work
    /// an attacker could make the emulator do).
    static let maximumPasswordLength = 1_024

    /// `POST /u/login`: the login page's form (`transaction`, `email`, `password`; `otp` for
    /// users with a TOTP authenticator; `captcha` when bot detection is on). Wrong input
    /// re-renders the page with the error; success starts a browser session (cookie `auth0`,
    /// see ``finishLogin(_:user:transaction:replacing:)``) and redirects like the hooks do.
    ///
    /// Steps, in order: the CAPTCHA (with bot detection on, the `captcha` checkbox "I am not a
    /// robot" must be ticked), the password, the organization (a non-member who is not the
    /// invitee sees "user is not part of the organization"), then the second factor:
    /// - a user with a confirmed TOTP authenticator gives its code (`otp`);
    /// - a user with `mfa_required` and no confirmed authenticator must enroll: the page shows a
    ///   fresh TOTP secret (base32) and its `otpauth://` URI (kept on the user as a pending
    ///   authenticator, the same one `/mfa/associate` would create), and the login completes
    ///   only when the form is posted again with a valid `otp` for it; the authenticator is then
    ///   confirmed, so later logins ask for its code. (A user whose only confirmed second factor
    ///   is SMS or email is let through: out-of-band factors are not emulated on the page.)
    func loginForm(_ request: Request) async throws -> Response {
        guard case let (parameters, transaction, login, tenant, email)? = try await postedPage(request) else {
            return Auth0LoginPage.error("This login page has expired. Start the sign-in again.")
        }
        func retry(_ message: String, status: HTTPResponse.Status = .badRequest, askOTP: Bool = false,
                   enrollment: Auth0LoginPage.Enrollment? = nil) -> Response {
            var page = Auth0LoginPage.Options(email: email, error: message, askOTP: askOTP, captcha: tenant.botDetection)
            page.enrollment = enrollment
            return Auth0LoginPage.response(transaction: transaction, page, status: status)
        }
        if tenant.botDetection, parameters.string(Auth0LoginPage.captchaField) == nil {
            return retry(Auth0LoginPage.captchaMessage)
        }
        guard let email, let password = parameters.string("password") else { return retry("Enter your email and password.") }
        guard password.utf8.count <= Self.maximumPasswordLength,
              let user = tenant.user(login: email, connection: login.request.connection), let hash = user.passwordHash,
              hash.matches(password)
        else { return retry("Wrong email or password.") }
        if let organization = login.request.organization,
           !tenant.mayAdmit(user.email, to: organization.id, invitation: login.request.invitation, now: now) {
            return retry(Self.notAMember, status: .forbidden)
        }
        let otp = parameters.string("otp").map { String($0.prefix(32)) }
        if let totp = user.totp, totp.confirmed {
            guard let otp else { return retry("Enter the code from your authenticator app.", askOTP: true) }
            guard await acceptOTP(otp, userId: user.userId) else { return retry("Invalid otp_code.", askOTP: true) }
        } else if user.mfaRequired, !user.oob.contains(where: \.confirmed) {
            guard let pending = try await pendingTOTP(for: user) else { return retry("Wrong email or password.") }
            let uri = try OTPAuthURI(totp: pending, account: user.email, issuer: Self.totpIssuer)
            let enrollment = Auth0LoginPage.Enrollment(secret: Base32.encode(pending.secret.revealed()), uri: uri.string.revealed())
            guard let otp else {
                return retry("Scan the code with your authenticator app, then enter the code it shows.", status: .ok,
                             enrollment: enrollment)
            }
            guard await acceptOTP(otp, userId: user.userId) else { return retry("Invalid otp_code.", enrollment: enrollment) }
        }
        guard let response = await finishLogin(login.request, user: user, transaction: transaction,
                                               replacing: Auth0LoginSession.cookieValue(in: request.headers[.cookie]))
        else { return retry(Self.notAMember, status: .forbidden) }
        return response
    }

    /// The issuer named in `otpauth://` URIs of the emulator's TOTP authenticators.
    static let totpIssuer = "AuthHub Emulator"

    /// Verifies `otp` against the user's TOTP authenticator (confirmed or pending) at the
    /// emulator's clock, refusing a replayed time step; on success records the step and confirms
    /// the authenticator.
    func acceptOTP(_ otp: String, userId: String) async -> Bool {
        let at = now
        return await state.update(Auth0Tenant.key) { tenant -> Bool in
            guard var current = tenant.users[userId]?.totp,
                  let step = try? current.totp.verify(Secret(otp), at: at, after: current.lastStep)
            else { return false }
            current.lastStep = step
            current.confirmed = true
            tenant.users[userId]?.totp = current
            return true
        }
    }

    /// The user's pending (unconfirmed) TOTP authenticator, created with a fresh 20-byte secret
    /// when the user has none; nil when the user is gone.
    func pendingTOTP(for user: Auth0User) async throws -> TOTP? {
        let candidate = try TOTP(secret: Secret(environment.random.bytes(20)))
        let candidateId = "totp|dev_" + randomToken(bytes: 12)
        return await state.update(Auth0Tenant.key) { tenant -> TOTP? in
            guard let stored = tenant.users[user.userId] else { return nil }
            if let existing = stored.totp { return existing.totp }
            tenant.users[user.userId]?.totp = Auth0TOTPAuthenticator(id: candidateId, totp: candidate, confirmed: false, lastStep: nil)
            return candidate
        }
    }

    /// `POST /u/signup`: the sign-up page's form (`transaction`, `email`, `password`; `captcha`
    /// when bot detection is on), served by `/authorize` with `screen_hint=signup`. The user is
    /// created in the connection of the `/authorize` request with the same rules as
    /// `POST /dbconnections/signup` (email syntax, the password policy, `user_exists`), whose
    /// error is shown on the page; for an organization, the email must be a member's or the
    /// invitee's (checked before the user is created). Then it completes like a login: a new
    /// browser session and the redirect with a code.
    func signupForm(_ request: Request) async throws -> Response {
        guard case let (parameters, transaction, login, tenant, email)? = try await postedPage(request) else {
            return Auth0LoginPage.error("This sign-up page has expired. Start the sign-in again.")
        }
        func retry(_ message: String, status: HTTPResponse.Status = .badRequest) -> Response {
            var page = Auth0LoginPage.Options(email: email, error: message, captcha: tenant.botDetection)
            page.signup = true
            return Auth0LoginPage.response(transaction: transaction, page, status: status)
        }
        if tenant.botDetection, parameters.string(Auth0LoginPage.captchaField) == nil {
            return retry(Auth0LoginPage.captchaMessage)
        }
        guard let email, let password = parameters.string("password") else { return retry("Enter your email and a password.") }
        guard password.utf8.count <= Self.maximumPasswordLength else { return retry("The password is too long.") }
        if let organization = login.request.organization,
           !tenant.mayAdmit(email.lowercased(), to: organization.id, invitation: login.request.invitation, now: now) {
            return retry(Self.notAMember, status: .forbidden)
        }
        let user: Auth0User
        do {
            let fields: [String: JSONValue] = [
                "email": .string(email), "password": .string(password), "connection": .string(login.request.connection),
            ]
            user = try await store(try newUser(from: Auth0Parameters(fields), passwordRequired: true), emailVerified: false)
        } catch let failure as Auth0Failure {
            return retry(Self.pageMessage(failure), status: failure.status)
        }
        guard let response = await finishLogin(login.request, user: user, transaction: transaction,
                                               replacing: Auth0LoginSession.cookieValue(in: request.headers[.cookie]))
        else { return retry(Self.notAMember, status: .forbidden) }
        return response
    }

    /// A posted login or sign-up page: its fields, its transaction and the pending login it
    /// answers, the tenant, and the typed email (at most 320 characters); `nil` when the
    /// transaction is missing, too long, unknown or expired.
    private func postedPage(
        _ request: Request
    ) async throws -> (Auth0Parameters, transaction: String, Auth0LoginTransaction, Auth0Tenant, email: String?)? {
        let parameters = try await Auth0Parameters.body(of: request)
        let tenant = await state.get(Auth0Tenant.key)
        guard let transaction = parameters.string("transaction"), transaction.count <= Auth0LoginSession.maximumCookieLength,
              let login = tenant.logins[Auth0Tenant.digest(transaction)], login.expiresAt > now
        else { return nil }
        return (parameters, transaction, login, tenant, parameters.string("email").map { String($0.prefix(320)) })
    }

    /// The text a page shows for a database-connection refusal: its `description` when it is a
    /// string, else its `message` and `policy` (a PasswordStrengthError's description is an object).
    static func pageMessage(_ failure: Auth0Failure) -> String {
        if let description = failure.body["description"]?.stringValue { return description }
        let message = failure.body["message"]?.stringValue ?? "The sign-up failed."
        guard let policy = failure.body["policy"]?.stringValue else { return message }
        return message + ": " + policy
    }

    /// `GET /v2/logout?[federated&]returnTo=…&client_id=…` (AuthHubAuth0 docs, Auth0Endpoints: “Logout”): ends the browser session
    /// of the `auth0` cookie (deletes it server-side and answers a `Set-Cookie` that clears it),
    /// then redirects to `returnTo` when the client may use that URL (the same rule as
    /// callbacks), answers 200 with a short page when there is no `returnTo`, and a JSON 400 for
    /// a `returnTo` the client may not use (the session is then left alone). `federated` does the
    /// same: the emulator has no upstream identity provider to log out of.
    ///
    /// OpenID Connect Back-Channel Logout 1.0: before answering, for every client that received
    /// tokens within the ended session (``Auth0LoginSession/clients``) and has
    /// `oidc_logout.backchannel_logout_urls`, a logout token (`sub`: the session's user, `sid`: its
    /// ``Auth0LoginSession/sessionId``) is POSTed to each URL and the deliveries recorded
    /// (``deliverLogoutTokens(to:subject:sessionId:issuer:overrides:type:)``); each is bounded by
    /// 5 s and none can fail the logout.
    func logout(_ request: Request) async throws -> Response {
        let parameters = Auth0Parameters.query(of: request)
        var response: Response
        if let returnTo = parameters.string("returnTo") {
            let clientId = try parameters.required("client_id")
            guard await state.get(Auth0Tenant.key).redirectAllowed(returnTo, for: clientId) else {
                throw Auth0Failure.invalidRequest("The returnTo URL is not in the list of allowed logout URLs of the client.")
            }
            response = Response(status: .found, headers: [.location: returnTo, .cacheControl: "no-store"])
        } else {
            response = Auth0LoginPage.message("You are logged out.")
        }
        if let cookie = Auth0LoginSession.cookieValue(in: request.headers[.cookie]) {
            let digest = Auth0Tenant.digest(cookie)
            let at = now
            let ended = await state.update(Auth0Tenant.key) { tenant -> (Auth0LoginSession, [Auth0BackchannelTarget])? in
                guard let session = tenant.sessions.removeValue(forKey: digest), session.isAlive(at: at) else { return nil }
                return (session, Self.backchannelTargets(of: session, in: tenant))
            }
            if case let (session, targets)? = ended, !targets.isEmpty {
                _ = try? await deliverLogoutTokens(
                    to: targets, subject: session.userId, sessionId: session.sessionId, issuer: await issuer(for: request)
                )
            }
        }
        response.headers[.setCookie] = Auth0LoginSession.clearCookie(secure: await isSecure)
        return response
    }

    /// Issues an authorization code for `user` and redirects to `redirect_uri?code=…&state=…`.
    /// The grant carries `authTime` (when the user gave credentials), the organization and the
    /// browser session's id (the ID token's `sid`).
    func completeLogin(_ authorize: Auth0AuthorizeRequest, user: Auth0User, authTime: Date, sessionId: String) async -> Response {
        let code = randomToken()
        var grant = Auth0Grant(
            userId: user.userId, clientId: authorize.clientId, scopes: authorize.scopes, audience: authorize.audience,
            nonce: authorize.nonce, authTime: authTime
        )
        grant.organization = authorize.organization
        grant.sessionId = sessionId
        let entry = Auth0AuthorizationCode(
            grant: grant, redirectURI: authorize.redirectURI, codeChallenge: authorize.codeChallenge,
            expiresAt: now.addingTimeInterval(Self.codeLifetime), dpopJKT: authorize.dpopJKT
        )
        await state.update(Auth0Tenant.key) { tenant in tenant.codes[Auth0Tenant.digest(code)] = entry }
        return Self.redirect(to: authorize.redirectURI, with: [("code", code), ("state", authorize.state)])
    }

    /// A 302 to `base` with `items` appended to its query (items with a nil value are left out).
    static func redirect(to base: String, with items: [(String, String?)]) -> Response {
        let query = items.compactMap { name, value in value.map { "\(name)=\(formEncode($0))" } }.joined(separator: "&")
        let separator = base.contains("?") ? (base.hasSuffix("?") || base.hasSuffix("&") ? "" : "&") : "?"
        return Response(status: .found, headers: [.location: base + separator + query, .cacheControl: "no-store"])
    }

    /// Percent-encodes everything but RFC 3986 unreserved characters.
    static func formEncode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.unicodeScalars.map { scalar -> String in
            if scalar.isASCII, allowed.contains(scalar) { return String(scalar) }
            return String(scalar).utf8.map { String(format: "%%%02X", $0) }.joined()
        }.joined()
    }
}

/// A refusal of an authorization request: redirected to `redirectURI` (with `state`) once that is
/// known to be allowed, otherwise shown as a JSON `400`.
struct Auth0AuthorizeRefusal: Error, Sendable {
    var error: String
    var description: String
    var redirectURI: String? = nil
    var state: String? = nil
}
