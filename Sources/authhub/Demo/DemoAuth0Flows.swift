import AuthHub
import AuthHubAuth0
import AuthHubEmulator
import AuthHubFactors
import AuthHubOIDC
import Foundation

/// The Auth0 and generic-OIDC rows of `authhub demo`: each flow of the providers, through the
/// libraries, against the in-process emulator. The demo plays the user (and the browser) through
/// the emulator's test hooks; the libraries do the rest.
enum DemoAuth0Flows {
    static let password = "demo: correct horse battery staple"

    static func run(hub: AuthHub, emulator: RunningEmulator, transport: any HTTPTransport, into report: inout DemoReport) async {
        guard let auth0 = try? hub.provider("auth0", as: Auth0Provider.self) else { return }
        let browser = URLSessionTransport(defaultTimeout: .seconds(10), followRedirects: false)
        let email = "ada+\(UUID().uuidString.prefix(8).lowercased())@example.com"
        let mfaEmail = "mfa+" + email
        var firstRefreshToken: Secret<String>?

        await report.record(provider: "auth0", flow: "sign-up, then password sign-in") {
            guard case .signedIn(let session) = try await hub.signUp(SignUpRequest(email: email, password: Secret(password)), provider: "auth0")
            else { throw DemoFailure("sign-up asked for verification") }
            guard session.claims["email"] == .string(email) else { throw DemoFailure("the ID token names another user") }
            firstRefreshToken = session.refreshToken
        }
        await report.record(provider: "auth0", flow: "user info") {
            let info = try await hub.userInfo(provider: "auth0")
            guard info.email == email else { throw DemoFailure("userinfo names another user") }
        }
        await report.record(provider: "auth0", flow: "refresh with rotation") {
            let renewed = try await hub.refresh(provider: "auth0")
            guard let old = firstRefreshToken, renewed.refreshToken != old else { throw DemoFailure("the refresh token did not rotate") }
            do {
                _ = try await auth0.authentication.renew(refreshToken: old)
                throw DemoFailure("the rotated-away refresh token was accepted again")
            } catch let error as AuthError where error.code == .refreshTokenInvalid {}
        }
        await report.record(provider: "auth0", flow: "web auth (PKCE, loopback, ID token)") {
            let session = try await auth0.webAuth.signIn(open: { url in try await actAsBrowser(url, user: email, browser: browser) },
                                                         timeout: .seconds(30))
            guard session.claims["email"] == .string(email) else { throw DemoFailure("the ID token names another user") }
        }
        await report.record(provider: "auth0", flow: "MFA with a TOTP code") {
            let secret = Base32.encode(SystemRandom().bytes(20))
            try await seed(mfaEmail, extra: ["totp_secret": .string(secret)], emulator: emulator, transport: browser)
            do {
                _ = try await hub.signIn(.password(identifier: mfaEmail, password: Secret(password)), provider: "auth0", account: "mfa")
                throw DemoFailure("no second factor was asked for")
            } catch let error as AuthError where error.code == .mfaRequired {
                let code = try TOTP(secret: Secret(try Base32.decode(secret))).code(at: Date())
                let requirement = try error.mfa.orThrow("mfa_required without an MFA token")
                _ = try await hub.signIn(.mfa(requirement: requirement, response: .otp(code)), provider: "auth0", account: "mfa")
            }
        }
        await report.record(provider: "auth0", flow: "passkey sign-up, then login") {
            let authenticator = try SoftwarePasskeyAuthenticator(store: InMemoryPasskeyCredentialStore())
            let api = auth0.authentication
            let signup = try await api.passkeySignupChallenge(userProfile: ["email": .string("pk+" + email)])
            _ = try await api.signup(passkey: try await authenticator.makeCredential(signup.options), challenge: signup)
            let login = try await api.passkeyLoginChallenge()
            let credentials = try await api.login(passkey: try await authenticator.getAssertion(login.options), challenge: login)
            guard auth0.session(from: credentials).claims["email"] == .string("pk+" + email) else {
                throw DemoFailure("the passkey signed in another user")
            }
        }
        // A user of its own (the default account's refresh-token family was revoked on purpose by the
        // reuse check above, and the MFA user already has a TOTP authenticator).
        let accountEmail = "me+" + email
        let myAccount = auth0.myAccount(credentials: Auth0CredentialsManager(provider: auth0, store: hub.store, account: "me"))
        await report.record(provider: "auth0", flow: "My Account: enroll TOTP (QR code), list, delete") {
            try await seed(accountEmail, extra: [:], emulator: emulator, transport: browser)
            _ = try await hub.signIn(.password(identifier: accountEmail, password: Secret(password)), provider: "auth0", account: "me")
            let flow = FactorFlow(Auth0EnrollmentFactor.totp(myAccount))
            guard case .challenge(let challenge) = await flow.start(), case .qrCode(let uri, _) = challenge.prompt else {
                throw failure(await flow.state.error, "no QR code")
            }
            _ = try QRCode(encoding: uri.revealed())
            let code = try OTPAuthURI(parsing: uri).totp().code(at: Date())
            guard case .completed(let method) = await flow.confirm(.code(code)) else {
                throw failure(await flow.state.error, "the TOTP enrollment did not complete")
            }
            guard try await myAccount.authenticationMethods().contains(where: { $0.id == method.id }) else {
                throw DemoFailure("the new TOTP method is not listed")
            }
            try await myAccount.deleteAuthenticationMethod(id: method.id)
            guard try await !myAccount.authenticationMethods().contains(where: { $0.id == method.id }) else {
                throw DemoFailure("the deleted TOTP method is still listed")
            }
        }
        await report.record(provider: "auth0", flow: "My Account: enroll a passkey, sign in with it") {
            let authenticator = try SoftwarePasskeyAuthenticator(store: InMemoryPasskeyCredentialStore())
            let flow = FactorFlow(Auth0EnrollmentFactor.passkey(myAccount, authenticator: authenticator))
            guard case .challenge = await flow.start() else { throw failure(await flow.state.error, "no passkey options") }
            guard case .completed = await flow.confirm(.none) else {
                throw failure(await flow.state.error, "the passkey enrollment did not complete")
            }
            let api = auth0.authentication
            let login = try await api.passkeyLoginChallenge()
            let credentials = try await api.login(passkey: try await authenticator.getAssertion(login.options), challenge: login)
            guard auth0.session(from: credentials).claims["email"] == .string(accountEmail) else {
                throw DemoFailure("the enrolled passkey signed in another user")
            }
        }
        await report.record(provider: "auth0", flow: "sign out (revoke)") {
            // A live session first: the reuse check above revoked the stored one's whole family.
            let session = try await hub.signIn(.password(identifier: email, password: Secret(password)), provider: "auth0")
            if let error = try await hub.signOut(provider: "auth0") { throw error }
            do {
                _ = try await auth0.authentication.renew(refreshToken: try session.refreshToken.orThrow("no refresh token"))
                throw DemoFailure("the revoked refresh token still works")
            } catch let error as AuthError where error.code == .refreshTokenInvalid {}
        }

        await report.record(provider: "auth0", flow: "organization sign-in (org_id checked)") {
            let orgEmail = "org+" + email
            try await seed(orgEmail, extra: [:], emulator: emulator, transport: browser)
            let name = "demo-" + UUID().uuidString.prefix(8).lowercased()
            let created = try await browser.send(.post, emulator.url("/auth0/__emulator/organizations"), headerFields: [.contentType: "application/json"], body: try JSONEncoder().encode(JSONValue.object(["name": .string(name), "members": [.string(orgEmail)]])))
            let organization: String = try ((try? JSONValue.parse(created.body))?["id"]?.stringValue).orThrow("the organization was not created")
            let session = try await hub.signInWithBrowser(provider: "auth0", account: "org", options: BrowserSignInOptions(organization: organization),
                                                          timeout: .seconds(30)) { url in
                try await actAsBrowser(url, user: orgEmail, browser: browser)
            }
            guard session.claims["org_id"] == .string(organization), session.claims["org_name"] == .string(name) else {
                throw DemoFailure("the ID token names no or another organization")
            }
        }
        await report.record(provider: "auth0", flow: "federated logout ends the browser session") {
            let ssoEmail = "sso+" + email
            try await seed(ssoEmail, extra: [:], emulator: emulator, transport: browser)
            let cookie = Mutex<String?>(nil)
            _ = try await hub.signInWithBrowser(provider: "auth0", account: "sso", timeout: .seconds(30)) { url in
                let authorize = try await browser.send(.get, url, headerFields: [HTTPField.Name.constant("X-AuthHub-Emulator-User"): ssoEmail])
                cookie.withLock { $0 = authorize.headerFields["Set-Cookie"]?.split(separator: ";").first.map(String.init) }
                let location = try authorize.headerFields["Location"].flatMap(URL.init(string:)).orThrow("/authorize did not redirect")
                Task.detached { _ = try? await browser.send(.get, location) }
            }
            let browserCookie = try cookie.withLock { $0 }.orThrow("no browser session cookie")
            let authorize = try auth0.webAuth.start(redirectURI: "http://127.0.0.1:9/callback").url
            let silent = try await browser.send(.get, authorize, headerFields: [.cookie: browserCookie])
            guard silent.status == 302 else { throw DemoFailure("the browser session did not sign in silently") }
            let result = try await hub.signOut(provider: "auth0", account: "sso", browser: BrowserSignOut(federated: true))
            let logout = try result.browserSignOutURL.orThrow("no logout URL")
            _ = try await browser.send(.get, logout, headerFields: [.cookie: browserCookie])
            let again = try await browser.send(.get, authorize, headerFields: [.cookie: browserCookie])
            guard again.status == 200 else { throw DemoFailure("after the federated logout the browser session still signs in") }
        }
        await report.record(provider: "auth0", flow: "token (renewed when it expires within min-ttl)") {
            let tokenEmail = "tok+" + email
            try await seed(tokenEmail, extra: [:], emulator: emulator, transport: browser)
            let manager = try hub.manager(provider: "auth0", account: "token")
            var signedIn = try await hub.signIn(.password(identifier: tokenEmail, password: Secret(password)), provider: "auth0", account: "token")
            guard try await hub.session(provider: "auth0", account: "token", minTTL: 60).accessToken == signedIn.accessToken else {
                throw DemoFailure("a valid token was renewed needlessly")
            }
            signedIn.expiresAt = Date().addingTimeInterval(30)
            let expiring = try await manager.store(signedIn)
            let token = try await hub.session(provider: "auth0", account: "token", minTTL: 60)
            guard token.accessToken != expiring.accessToken, token.version > expiring.version else {
                throw DemoFailure("a token expiring within min-ttl was not renewed first")
            }
        }

        await report.record(provider: "auth0", flow: "device sign-in (code approved on another device)") {
            // The device asks for a code and polls; the user approves on the tenant (the emulator's
            // approve hook stands in for the activation page); the first poll, one interval (5 s)
            // later, gets the tokens.
            let flow = try hub.deviceSignIn(provider: "auth0", account: "device")
            let code = try await flow.start()
            let approve = try JSONEncoder().encode(JSONValue.object(["user_code": .string(code.userCode), "email": .string(email)]))
            let approved = try await browser.send(.post, emulator.url("/auth0/__emulator/device/approve"),
                                                  headerFields: [.contentType: "application/json"], body: approve)
            guard approved.status == 200 else { throw DemoFailure("approving the code answered HTTP \(approved.status)") }
            let session = try await flow.waitForApproval()
            guard session.claims["email"] == .string(email) else { throw DemoFailure("the ID token names another user") }
            guard try await hub.manager(provider: "auth0", account: "device").current()?.accessToken == session.accessToken else {
                throw DemoFailure("the device's session was not stored")
            }
        }

        guard let oidc = try? hub.provider("oidc", as: OIDCProvider.self) else { return }
        await report.record(provider: "oidc", flow: "browser sign-in (discovery, PKCE, ID token), refresh") {
            let session = try await oidc.signInWithBrowser(timeout: .seconds(30)) { url in
                try await actAsBrowser(url, user: email, browser: browser)
            }
            guard session.claims["email"] == .string(email) else { throw DemoFailure("the ID token names another user") }
            let renewed = try await oidc.refresh(session, scope: nil)
            guard renewed.accessToken != session.accessToken else { throw DemoFailure("refresh returned the same access token") }
        }
    }

    /// The browser's part: Universal Login finishes for `user` (the emulator's test hook), and the
    /// redirect is delivered to the loopback receiver.
    /// The flow's own error when it has one, else a demo failure saying what did not happen.
    static func failure(_ error: AuthError?, _ otherwise: String) -> any Error {
        error.map { $0 as any Error } ?? DemoFailure(otherwise)
    }

    static func actAsBrowser(_ url: URL, user: String, browser: any HTTPTransport) async throws {
        let authorize = try await browser.send(.get, url, headerFields: [HTTPField.Name.constant("X-AuthHub-Emulator-User"): user])
        guard authorize.status == 302, let location = authorize.headerFields["Location"].flatMap(URL.init(string:)) else {
            throw DemoFailure("/authorize answered HTTP \(authorize.status) without a redirect")
        }
        Task.detached { _ = try? await browser.send(.get, location) }
    }

    /// Creates a user through the emulator's `POST /auth0/__emulator/users` hook.
    static func seed(_ email: String, extra: [String: JSONValue], emulator: RunningEmulator, transport: any HTTPTransport) async throws {
        var body: [String: JSONValue] = ["email": .string(email), "password": .string(password)]
        body.merge(extra) { _, new in new }
        let reply = try await transport.send(.post, emulator.url("/auth0/__emulator/users"), headerFields: [.contentType: "application/json"], body: try JSONEncoder().encode(JSONValue.object(body)))
        guard reply.status == 201 else { throw DemoFailure("seeding a user answered HTTP \(reply.status)") }
    }
}

extension Optional {
    /// The value, or a demo failure saying what was missing.
    func orThrow(_ what: String) throws -> Wrapped {
        guard let self else { throw DemoFailure(what) }
        return self
    }
}
