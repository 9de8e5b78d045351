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

    /// `GET /authorize` (spec §1.2).
    ///
    /// Checks, in order: `client_id` and `redirect_uri` (missing or not allowed → a JSON 400,
    /// since there is nowhere safe to redirect); then, redirecting errors back to `redirect_uri`
    /// with `error`, `error_description` and `state` (§1.4): `response_type=code`,
    /// `code_challenge` and `code_challenge_method=S256` (PKCE is required), `prompt=none`
    /// (→ `login_required`: the emulator keeps no browser session). Then it either completes
    /// through the emulator-only hooks or serves the HTML login page.
    func authorize(_ request: Request) async -> Response {
        await Self.guarded {
            let parameters = Auth0Parameters.query(of: request)
            let clientId = try parameters.required("client_id")
            let redirectURI = try parameters.required("redirect_uri")
            let tenant = await state.get(Auth0Tenant.key)
            guard tenant.redirectAllowed(redirectURI, for: clientId) else {
                throw Auth0Failure.invalidRequest(
                    "Callback URL mismatch. The redirect_uri is not in the list of allowed callback URLs of the client."
                )
            }
            let stateValue = parameters.string("state")
            func refuse(_ error: String, _ description: String) -> Response {
                Self.redirect(to: redirectURI, with: [("error", error), ("error_description", description), ("state", stateValue)])
            }
            guard let responseType = parameters.string("response_type") else {
                return refuse("invalid_request", "Missing required parameter: response_type")
            }
            guard responseType == "code" else {
                return refuse("unsupported_response_type", "Unsupported response type: \(responseType)")
            }
            guard let challenge = parameters.string("code_challenge") else {
                return refuse("invalid_request", "Missing required parameter: code_challenge")
            }
            guard parameters.string("code_challenge_method") == "S256" else {
                return refuse("invalid_request", "code_challenge_method must be S256")
            }
            guard challenge.count == 43, challenge.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
                return refuse("invalid_request", "Invalid code_challenge")
            }
            let authorize = Auth0AuthorizeRequest(
                clientId: clientId, redirectURI: redirectURI, state: stateValue, nonce: parameters.string("nonce"),
                scopes: Auth0Grant.scopes(parameters.string("scope") ?? Self.defaultScope),
                audience: parameters.string("audience"),
                connection: parameters.string("connection") ?? Auth0Tenant.defaultConnection,
                codeChallenge: challenge
            )
            if parameters.string(Self.denyHookParameter) != nil {
                return refuse("access_denied", "User did not authorize the request")
            }
            let hookHeader = HTTPField.Name(Self.loginHookHeader).flatMap { request.headers[$0] }
            if let name = hookHeader ?? parameters.string(Self.loginHookParameter) {
                guard let user = tenant.user(login: name, connection: authorize.connection) else {
                    return refuse("access_denied", "Wrong email or password.")
                }
                return await completeLogin(authorize, user: user)
            }
            if parameters.string("prompt") == "none" {
                return refuse("login_required", "Login required")
            }
            let transaction = randomToken()
            let expiresAt = now.addingTimeInterval(Self.loginLifetime)
            await state.update(Auth0Tenant.key) { tenant in
                tenant.purge(now: expiresAt.addingTimeInterval(-Self.loginLifetime))
                tenant.logins[Auth0Tenant.digest(transaction)] = Auth0LoginTransaction(request: authorize, expiresAt: expiresAt)
            }
            return Auth0LoginPage.response(transaction: transaction, email: nil, error: nil, askOTP: false, status: .ok)
        }
    }

    /// `POST /u/login`: the login page's form (`transaction`, `email`, `password`, and `otp` for
    /// users with a confirmed TOTP authenticator). Wrong input re-renders the page with the
    /// error; success redirects like the hooks do. A user who must use MFA but has not enrolled
    /// yet is let through: enrollment inside the login page is not emulated.
    func loginForm(_ request: Request) async -> Response {
        await Self.guarded {
            let parameters = try await Auth0Parameters.body(of: request)
            guard let transaction = parameters.string("transaction"),
                  let login = await state.get(Auth0Tenant.key).logins[Auth0Tenant.digest(transaction)], login.expiresAt > now
            else {
                return Auth0LoginPage.error("This login page has expired. Start the sign-in again.")
            }
            let email = parameters.string("email")
            func retry(_ message: String, askOTP: Bool = false) -> Response {
                Auth0LoginPage.response(transaction: transaction, email: email, error: message, askOTP: askOTP, status: .badRequest)
            }
            guard let email, let password = parameters.string("password") else { return retry("Enter your email and password.") }
            let tenant = await state.get(Auth0Tenant.key)
            guard let user = tenant.user(login: email, connection: login.request.connection), let hash = user.passwordHash,
                  hash.matches(password)
            else { return retry("Wrong email or password.") }
            if let totp = user.totp, totp.confirmed {
                guard let otp = parameters.string("otp") else { return retry("Enter the code from your authenticator app.", askOTP: true) }
                let at = now
                let accepted = await state.update(Auth0Tenant.key) { tenant -> Bool in
                    guard let current = tenant.users[user.userId]?.totp,
                          let step = try? current.totp.verify(Secret(otp), at: at, after: current.lastStep)
                    else { return false }
                    tenant.users[user.userId]?.totp?.lastStep = step
                    return true
                }
                guard accepted else { return retry("Invalid otp_code.", askOTP: true) }
            }
            let digest = Auth0Tenant.digest(transaction)
            await state.update(Auth0Tenant.key) { tenant in tenant.logins[digest] = nil }
            return await completeLogin(login.request, user: user)
        }
    }

    /// `GET /v2/logout?[federated&]returnTo=…&client_id=…` (spec §1.6): the emulator keeps no
    /// browser session, so it only redirects to `returnTo` when the client may use that URL (the
    /// same rule as callbacks), answers 200 with a short page when there is no `returnTo`, and a
    /// JSON 400 for a `returnTo` the client may not use.
    func logout(_ request: Request) async -> Response {
        await Self.guarded {
            let parameters = Auth0Parameters.query(of: request)
            guard let returnTo = parameters.string("returnTo") else {
                return Auth0LoginPage.message("You are logged out.")
            }
            let clientId = try parameters.required("client_id")
            guard await state.get(Auth0Tenant.key).redirectAllowed(returnTo, for: clientId) else {
                throw Auth0Failure.invalidRequest("The returnTo URL is not in the list of allowed logout URLs of the client.")
            }
            return Response(status: .found, headers: [.location: returnTo, .cacheControl: "no-store"])
        }
    }

    /// Issues an authorization code for `user` and redirects to `redirect_uri?code=…&state=…`.
    func completeLogin(_ authorize: Auth0AuthorizeRequest, user: Auth0User) async -> Response {
        let code = randomToken()
        let grant = Auth0Grant(
            userId: user.userId, clientId: authorize.clientId, scopes: authorize.scopes, audience: authorize.audience,
            nonce: authorize.nonce, authTime: now
        )
        let entry = Auth0AuthorizationCode(
            grant: grant, redirectURI: authorize.redirectURI, codeChallenge: authorize.codeChallenge,
            expiresAt: now.addingTimeInterval(Self.codeLifetime)
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
