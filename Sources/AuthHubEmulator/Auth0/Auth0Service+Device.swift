import enum AuthHub.JSONValue
import Foundation
import HTTPTypes
import Hummingbird

/// The Device Authorization Flow (OAuth 2.0 Device Authorization Grant, RFC 8628) as an Auth0
/// tenant serves it; the facts relied on are in the DocC article <doc:Auth0DeviceAuthorization>.
///
/// - `POST /oauth/device/code` opens an authorization (``Auth0DeviceAuthorization``);
/// - the user enters the code at `/activate`, logs in with the tenant's login page and approves
///   or denies the device on a consent page (or a test does it with the emulator-only hooks);
/// - the device polls `POST /oauth/token` with the grant ``deviceCodeGrant`` meanwhile.
///
/// Every time comes from the emulator's injected clock, so tests move expiry and polling
/// intervals forward without waiting.
extension Auth0Service {
    /// The device-code grant type (RFC 8628, section 3.4).
    static let deviceCodeGrant = "urn:ietf:params:oauth:grant-type:device_code"
    /// How long a device code and its user code live, in seconds (Auth0's documented example
    /// reply: `expires_in: 900`).
    static let deviceCodeLifetime: TimeInterval = 900
    /// The polling interval handed out, in seconds (Auth0's example reply and RFC 8628's default: 5).
    static let deviceInterval: TimeInterval = 5
    /// How much a `slow_down` adds to the interval (RFC 8628, section 3.5: 5 seconds).
    static let slowDownIncrement: TimeInterval = 5

    // MARK: - POST /oauth/device/code

    /// `POST /oauth/device/code` `{client_id, scope?, audience?}` (form or JSON): a new device
    /// authorization → `200 {device_code, user_code, verification_uri, verification_uri_complete,
    /// expires_in, interval}`. `client_id` is required (else `400 invalid_request`), as on the
    /// tenant's other endpoints; a request without `scope` gets the tenant's default scope
    /// (`openid profile email`), like a login request without one. The `device_code` is 32 random
    /// bytes (base64url); the user code 8 letters of RFC 8628's 20 consonants, shown `XXXX-XXXX`.
    ///
    /// As on Auth0, the device flow is for public clients: a request carrying client credentials
    /// (`client_secret`, or HTTP Basic authentication) is refused with `403 unauthorized_client`, and
    /// so is one from a registered client whose `grant_types` lack the device code grant. (A client
    /// registered as confidential, `token_endpoint_auth_method` other than `none`, authenticates
    /// instead: ``authenticateClient(_:_:)``.)
    func deviceAuthorization(_ request: Request) async throws -> Response {
        let parameters = try await Auth0Parameters.body(of: request)
        let (clientId, settings) = try await authenticateClient(request, parameters)
        if settings?.isConfidential != true,
           parameters.string("client_secret") != nil || request.headers[.authorization]?.lowercased().hasPrefix("basic ") == true {
            throw Auth0Failure.oauth("unauthorized_client", "The device flow is for public clients: send no client credentials.",
                                     status: .forbidden)
        }
        if let settings, !settings.allows(grantType: Self.deviceCodeGrant) {
            throw Auth0ClientSettings.grantNotAllowed(Self.deviceCodeGrant)
        }
        let scopes = Auth0Grant.scopes(parameters.string("scope") ?? Self.defaultScope)
        let audience = parameters.string("audience")
        let deviceCode = randomToken()
        let digest = Auth0Tenant.digest(deviceCode)
        let issuedAt = now
        var userCode: String?
        // A fresh user code must not be one that is still live; ten draws of 34.5 bits each make
        // a clash past them practically impossible, but the loop stays bounded all the same.
        for _ in 0..<10 where userCode == nil {
            let candidate = Auth0DeviceAuthorization.generateUserCode(environment.random.bytes(16))
            let authorization = Auth0DeviceAuthorization(
                clientId: clientId, scopes: scopes, audience: audience, userCode: candidate,
                expiresAt: issuedAt.addingTimeInterval(Self.deviceCodeLifetime), interval: Self.deviceInterval
            )
            let stored = await state.update(Auth0Tenant.key) { tenant -> Bool in
                tenant.purge(now: issuedAt)
                guard tenant.userCodes[candidate] == nil else { return false }
                tenant.deviceCodes[digest] = authorization
                tenant.userCodes[candidate] = digest
                return true
            }
            if stored { userCode = candidate }
        }
        guard let userCode else { throw Auth0Failure.internalError }
        let verification = await issuer(for: request) + "activate"
        let shown = Auth0DeviceAuthorization.displayed(userCode)
        return EmulatorResponse.json([
            "device_code": .string(deviceCode),
            "user_code": .string(shown),
            "verification_uri": .string(verification),
            "verification_uri_complete": .string(verification + "?user_code=" + Self.formEncode(shown)),
            "expires_in": .number(Self.deviceCodeLifetime),
            "interval": .number(Self.deviceInterval),
        ], headers: [.cacheControl: "no-store"])
    }

    // MARK: - POST /oauth/token, device-code grant

    /// `403 authorization_pending` (Auth0's documented body).
    static let authorizationPending = Auth0Failure.oauth("authorization_pending", "User has yet to authorize device code.", status: .forbidden)
    /// `403 access_denied`: the user pressed Deny.
    static let deviceAccessDenied = Auth0Failure.oauth(
        "access_denied", "User cancelled the confirmation prompt or consent page.", status: .forbidden
    )
    /// `403 expired_token`: the device code is past its `expires_in`.
    static let deviceCodeExpired = Auth0Failure.oauth("expired_token", "The device code has expired.", status: .forbidden)
    /// `403 invalid_grant`: an unknown or spent device code, or one issued to another client.
    static let invalidDeviceCode = Auth0Failure.invalidGrant("Invalid or expired device code.")

    /// `429 slow_down` naming the interval the device should have kept (Auth0's documented body).
    static func slowDown(interval: TimeInterval) -> Auth0Failure {
        .oauth("slow_down", "You are polling faster than the specified interval of \(Int(interval)) seconds.", status: .tooManyRequests)
    }

    private enum DevicePollOutcome: Sendable {
        case approved(Auth0Grant)
        case refused(Auth0Failure)
    }

    /// The device-code grant `{grant_type, client_id, device_code}`, checked in this order:
    /// 1. an unknown or spent `device_code`, or one issued to another `client_id`:
    ///    `403 invalid_grant` (the authorization is left as it was);
    /// 2. at or past its expiry: `403 expired_token`;
    /// 3. polled sooner than its interval after the previous poll: `429 slow_down`, and the
    ///    interval grows by 5 s for every later poll (RFC 8628, section 3.5);
    /// 4. by the user's decision: `403 authorization_pending` while pending, `403 access_denied`
    ///    after Deny (every time), or — once approved — the tokens, exactly as the tenant's other
    ///    grants issue them (``issue(_:request:dpop:extra:)``: an ID token for `openid`, a refresh token
    ///    for `offline_access`), after which the device code is spent.
    func deviceCodeGrant(_ parameters: Auth0Parameters, clientId: String, request: Request, dpop: Auth0DPoPProof?) async throws -> Response {
        let deviceCode = try parameters.required("device_code")
        guard deviceCode.utf8.count <= Auth0LoginSession.maximumCookieLength else { throw Self.invalidDeviceCode }
        let digest = Auth0Tenant.digest(deviceCode)
        let at = now
        let outcome: DevicePollOutcome = await state.update(Auth0Tenant.key) { tenant in
            guard let authorization = tenant.deviceCodes[digest], authorization.clientId == clientId else {
                return .refused(Self.invalidDeviceCode)
            }
            guard at < authorization.expiresAt else { return .refused(Self.deviceCodeExpired) }
            if let last = authorization.lastPoll, at.timeIntervalSince(last) < authorization.interval {
                tenant.deviceCodes[digest]?.interval = authorization.interval + Self.slowDownIncrement
                tenant.deviceCodes[digest]?.lastPoll = at
                return .refused(Self.slowDown(interval: authorization.interval))
            }
            tenant.deviceCodes[digest]?.lastPoll = at
            switch authorization.status {
            case .pending:
                return .refused(Self.authorizationPending)
            case .denied:
                return .refused(Self.deviceAccessDenied)
            case .approved(let userId, let authTime):
                tenant.deviceCodes[digest] = nil
                tenant.userCodes[authorization.userCode] = nil
                return .approved(Auth0Grant(
                    userId: userId, clientId: clientId, scopes: authorization.scopes, audience: authorization.audience,
                    nonce: nil, authTime: authTime
                ))
            }
        }
        switch outcome {
        case .refused(let failure): throw failure
        case .approved(let grant): return try await issue(grant, request: request, dpop: dpop)
        }
    }

    // MARK: - /activate

    /// `GET /activate[?user_code=…]`: the page that asks for the user code, prefilled with
    /// `user_code` (what `verification_uri_complete` carries), with a fresh page token.
    func activatePage(_ request: Request) async -> Response {
        let typed = Auth0Parameters.query(of: request).string("user_code")
            .map { String($0.prefix(Auth0DeviceAuthorization.maximumTypedLength)) }
        let token = await newActivation(.enterCode)
        return Auth0DevicePage.enterCode(transaction: token, userCode: typed, error: nil, status: .ok)
    }

    /// `POST /activate`: the code page's form (`transaction`, `user_code`) or the consent page's
    /// (`transaction`, `action=approve|deny`), told apart by what the page token was issued for.
    /// A missing, unknown or expired token answers an error page and changes nothing.
    ///
    /// - Code page: a wrong, expired or already decided code shows the page again with an error
    ///   (400). A right one shows the tenant's login page (``Auth0LoginPage``, posting to
    ///   `/auth0/u/login`, with its CAPTCHA and second-factor steps), whose success shows the
    ///   consent page and starts a browser session like any login; a browser that already has a
    ///   live session (cookie `auth0`) goes straight to the consent page as its user.
    /// - Consent page: spends the page token and records the decision → the done page, or an
    ///   error page when the code expired or was decided meanwhile.
    func activateForm(_ request: Request) async throws -> Response {
        let parameters = try await Auth0Parameters.body(of: request)
        let at = now
        guard let transaction = parameters.string("transaction"), transaction.utf8.count <= Auth0LoginSession.maximumCookieLength,
              let activation = await state.get(Auth0Tenant.key).activations[Auth0Tenant.digest(transaction)],
              activation.expiresAt > at
        else { return Auth0LoginPage.error("This page has expired. Open the activation page again.") }
        switch activation.page {
        case .enterCode:
            return await enterCode(parameters, transaction: transaction, request: request)
        case .consent(let deviceDigest, let userId, _):
            let action = parameters.string("action")
            guard action == "approve" || action == "deny" else { return Auth0LoginPage.error("Choose Approve or Deny.") }
            let approve = action == "approve"
            let tokenDigest = Auth0Tenant.digest(transaction)
            let decided = await state.update(Auth0Tenant.key) { tenant -> Bool in
                guard case .consent(_, _, let authTime)? = tenant.activations.removeValue(forKey: tokenDigest)?.page,
                      let authorization = tenant.deviceCodes[deviceDigest], authorization.status == .pending,
                      at < authorization.expiresAt
                else { return false }
                tenant.deviceCodes[deviceDigest]?.status = approve ? .approved(userId: userId, authTime: authTime) : .denied
                return true
            }
            guard decided else { return Auth0LoginPage.error(Self.codeNoLongerValid) }
            return Auth0DevicePage.done(approved: approve)
        }
    }

    /// Wrong user codes one activation page takes before it is spent (the user opens the page again).
    static let wrongCodesPerPage = 5
    /// Wrong user codes the tenant takes in a minute before the code page refuses every entry, right
    /// or wrong, until the minute has passed (`429`): RFC 8628, section 5.1 asks the verification
    /// page to limit guessing, and a new page is free to get. 20⁸ user codes and 30 guesses a minute
    /// leave an attacker no chance within a code's 15 minutes.
    static let wrongCodesPerMinute = 30

    /// The error shown for a code that expired or was already used.
    static let codeNoLongerValid = "This code has expired or was already used. Start again on your device."

    /// The code page's step: checks the typed code, then shows the login page (or, with a live
    /// browser session, the consent page).
    private func enterCode(_ parameters: Auth0Parameters, transaction: String, request: Request) async -> Response {
        let typed = parameters.string("user_code").map { String($0.prefix(Auth0DeviceAuthorization.maximumTypedLength)) }
        let at = now
        let tenant = await state.get(Auth0Tenant.key)
        let recentWrong = tenant.wrongUserCodes.filter { $0 > at.addingTimeInterval(-60) }
        if recentWrong.count >= Self.wrongCodesPerMinute {
            let wait = max(1, Int((recentWrong.min().map { $0.addingTimeInterval(60).timeIntervalSince(at) } ?? 60).rounded(.up)))
            var response = Auth0DevicePage.enterCode(
                transaction: transaction, userCode: typed,
                error: "Too many wrong codes were entered. Try again in a minute.", status: .tooManyRequests
            )
            response.headers[.retryAfter] = String(wait)
            return response
        }
        guard let code = typed.flatMap(Auth0DeviceAuthorization.normalizedUserCode), let deviceDigest = tenant.userCodes[code],
              let authorization = tenant.deviceCodes[deviceDigest], authorization.status == .pending, at < authorization.expiresAt
        else {
            let tokenDigest = Auth0Tenant.digest(transaction)
            let pageSpent = await state.update(Auth0Tenant.key) { tenant -> Bool in
                tenant.wrongUserCodes.append(at)
                guard var activation = tenant.activations[tokenDigest] else { return true }
                activation.wrongCodes += 1
                if activation.wrongCodes >= Self.wrongCodesPerPage {
                    tenant.activations[tokenDigest] = nil
                    return true
                }
                tenant.activations[tokenDigest] = activation
                return false
            }
            if pageSpent {
                return Auth0LoginPage.error("Too many wrong codes on this page. Open the activation page again.")
            }
            return Auth0DevicePage.enterCode(
                transaction: transaction, userCode: typed,
                error: "Invalid or expired code. Check the code shown on your device and try again.", status: .badRequest
            )
        }
        if let cookie = Auth0LoginSession.cookieValue(in: request.headers[.cookie]) {
            let sessionDigest = Auth0Tenant.digest(cookie)
            let found = await state.update(Auth0Tenant.key) { tenant -> (Auth0User, Date)? in
                guard var session = tenant.sessions[sessionDigest], session.isAlive(at: at),
                      let user = tenant.users[session.userId]
                else { return nil }
                session.lastUsed = at
                tenant.sessions[sessionDigest] = session
                return (user, session.authTime)
            }
            if let found {
                return await deviceConsentPage(deviceDigest: deviceDigest, user: found.0, authTime: found.1)
            }
        }
        let login = randomToken()
        let expiresAt = min(at.addingTimeInterval(Self.loginLifetime), authorization.expiresAt)
        let authorize = Auth0AuthorizeRequest(
            clientId: authorization.clientId, redirectURI: "", state: nil, nonce: nil, scopes: authorization.scopes,
            audience: authorization.audience, connection: Auth0Tenant.defaultConnection, codeChallenge: "",
            deviceCode: deviceDigest
        )
        await state.update(Auth0Tenant.key) { tenant in
            tenant.logins[Auth0Tenant.digest(login)] = Auth0LoginTransaction(request: authorize, expiresAt: expiresAt)
        }
        return Auth0LoginPage.response(transaction: login, Auth0LoginPage.Options(captcha: tenant.botDetection), status: .ok)
    }

    /// The consent page for the device authorization `deviceDigest` and `user`, with a fresh page
    /// token; an error page when the authorization is gone, expired or already decided.
    func deviceConsentPage(deviceDigest: String, user: Auth0User, authTime: Date) async -> Response {
        let token = randomToken()
        let at = now
        let authorization = await state.update(Auth0Tenant.key) { tenant -> Auth0DeviceAuthorization? in
            guard let authorization = tenant.deviceCodes[deviceDigest], authorization.status == .pending,
                  at < authorization.expiresAt
            else { return nil }
            tenant.activations[Auth0Tenant.digest(token)] = Auth0DeviceActivation(
                page: .consent(deviceDigest: deviceDigest, userId: user.userId, authTime: authTime),
                expiresAt: min(at.addingTimeInterval(Self.loginLifetime), authorization.expiresAt)
            )
            return authorization
        }
        guard let authorization else { return Auth0LoginPage.error(Self.codeNoLongerValid) }
        return Auth0DevicePage.consent(
            transaction: token, userCode: authorization.userCode, clientId: authorization.clientId,
            scopes: authorization.scopes, email: user.email
        )
    }

    /// Stores a new page of the verification flow and returns its token.
    private func newActivation(_ page: Auth0DeviceActivation.Page) async -> String {
        let token = randomToken()
        let at = now
        await state.update(Auth0Tenant.key) { tenant in
            tenant.purge(now: at)
            tenant.activations[Auth0Tenant.digest(token)] = Auth0DeviceActivation(
                page: page, expiresAt: at.addingTimeInterval(Self.loginLifetime)
            )
        }
        return token
    }

    // MARK: - Emulator-only hooks

    private enum DeviceDecision: Sendable {
        case decided(userId: String?)
        case noSuchCode
        case noSuchUser
    }

    /// `POST /auth0/__emulator/device/approve` `{user_code, email, connection?}` (emulator only):
    /// approves the pending device authorization of `user_code` (any case, dash optional) as
    /// the user with that email (or username) in `connection` (default
    /// `Username-Password-Authentication`), as if they had logged in and pressed Approve just
    /// now → `{user_code, status:"approved", user_id}`; 404 for an unknown, expired or already
    /// decided code, or an unknown user.
    func approveDevice(_ request: Request) async throws -> Response {
        let parameters = try await Auth0Parameters.body(of: request)
        let typed = try parameters.required("user_code")
        let email = try parameters.required("email")
        let connection = parameters.string("connection") ?? Auth0Tenant.defaultConnection
        return await decideDevice(typed) { tenant in
            tenant.user(login: email, connection: connection)?.userId
        }
    }

    /// `POST /auth0/__emulator/device/deny` `{user_code}` (emulator only): denies the pending
    /// device authorization of `user_code`, as if the user had pressed Deny →
    /// `{user_code, status:"denied"}`; 404 for an unknown, expired or already decided code.
    func denyDevice(_ request: Request) async throws -> Response {
        let typed = try await Auth0Parameters.body(of: request).required("user_code")
        return await decideDevice(typed, approveAs: nil)
    }

    /// Records the decision on the pending authorization of `typed`: approval as the user that
    /// `approveAs` finds, or denial when `approveAs` is nil.
    private func decideDevice(_ typed: String, approveAs: (@Sendable (Auth0Tenant) -> String?)?) async -> Response {
        let at = now
        let code = Auth0DeviceAuthorization.normalizedUserCode(typed)
        let decision = await state.update(Auth0Tenant.key) { tenant -> DeviceDecision in
            guard let code, let digest = tenant.userCodes[code], let authorization = tenant.deviceCodes[digest],
                  authorization.status == .pending, at < authorization.expiresAt
            else { return .noSuchCode }
            guard let approveAs else {
                tenant.deviceCodes[digest]?.status = .denied
                return .decided(userId: nil)
            }
            guard let userId = approveAs(tenant) else { return .noSuchUser }
            tenant.deviceCodes[digest]?.status = .approved(userId: userId, authTime: at)
            return .decided(userId: userId)
        }
        switch decision {
        case .noSuchCode:
            return EmulatorResponse.json(
                ["statusCode": 404, "error": "Not Found", "message": "No pending device authorization with this user_code."],
                status: .notFound
            )
        case .noSuchUser:
            return EmulatorResponse.json(["statusCode": 404, "error": "Not Found", "message": "No user with this email."], status: .notFound)
        case .decided(let userId):
            var body: [String: JSONValue] = [
                "user_code": .string(code.map(Auth0DeviceAuthorization.displayed) ?? typed),
                "status": .string(userId == nil ? "denied" : "approved"),
            ]
            if let userId { body["user_id"] = .string(userId) }
            return EmulatorResponse.json(.object(body))
        }
    }
}
