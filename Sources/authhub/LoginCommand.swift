import ArgumentParser
import AuthHub
import AuthHubFactors
import AuthHubOIDC
import Foundation

/// `authhub login`: signs in with a password or a passwordless code, answering an MFA challenge
/// when the provider asks for one, and stores the session.
struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Sign in and store the session.",
        discussion: """
            Guest: --guest. Password: --email (or --username) with --password, or the password on standard input \
            (--password-stdin, or typed at the prompt). Passwordless: --email or --phone with \
            --passwordless; the code is read from --code or standard input. When the provider asks \
            for a second factor, the one-time code is read from --otp, --recovery-code or standard input. \
            Passkey: --passkey (optionally with --email to look the account up); the software authenticator \
            keeps its keys in --passkey-store. A provider that signs in only with passkeys (Turnkey) needs \
            no --passkey: --email alone is enough. Device: --device shows a code and a link (and a QR \
            code) to approve on another device, then waits (RFC 8628; Auth0 and OpenID providers with a \
            device authorization endpoint); --audience and --scope apply.
            """
    )

    @OptionGroup var options: GlobalOptions
    @OptionGroup var session: SessionOptions

    @Option(name: .long, help: "Email address.") var email: String?
    @Option(name: .long, help: "Username (instead of an email address).") var username: String?
    @Option(name: .long, help: "Phone number, for passwordless SMS codes.") var phone: String?
    @Option(name: .long, help: "Password (prefer --password-stdin: arguments are visible to other users).") var password: String?
    @Flag(name: .long, help: "Read the password from the first line of standard input.") var passwordStdin = false
    @Option(name: .long, help: "Database connection (realm) for password sign-in.") var realm: String?
    @Flag(name: .long, help: "Sign in with a one-time code sent by email or SMS.") var passwordless = false
    @Option(name: .long, help: "A passwordless code already sent (no new one is sent); without it a code is sent and read from standard input.") var code: String?
    @Option(name: .long, help: "The one-time password of your authenticator app, if MFA is required.") var otp: String?
    @Option(name: .long, help: "An MFA recovery code, if MFA is required.") var recoveryCode: String?
    @Flag(name: .long, help: "Sign in as a guest (providers with guest accounts, e.g. Openfort).") var guest = false
    @Flag(name: .long, help: "Sign in with a passkey (the default for passkey-only providers such as Turnkey).") var passkey = false
    @Option(name: .long, help: "The software passkey authenticator's credential directory.") var passkeyStore = ".authhub/passkeys"
    @Flag(name: .long, help: "Sign in in a browser (RFC 8252 loopback redirect on 127.0.0.1).") var browser = false
    @Flag(name: .long, help: "With --browser: print the sign-in URL instead of opening a browser.") var noOpen = false
    @Option(name: .long, help: "With --browser: seconds to wait for the browser's redirect.") var timeout: Int = 300
    @Option(name: .long, help: "With --browser or --device: the API the access token is for (audience).") var audience: String?
    @Option(name: .long, help: "With --browser or --device: the scopes to ask for (space-separated; openid is added).") var scope: String?
    @Option(name: .long, help: "With --browser: the identity provider connection to use (Auth0), e.g. google-oauth2.") var connection: String?
    @Option(name: .long, help: "With --browser and --connection: scopes for the upstream identity provider (Auth0).") var connectionScope: String?
    @Option(name: .long, help: "With --browser: the organization (org_… id or name) to sign in to (Auth0).") var organization: String?
    @Option(name: .long, help: "With --browser: an invitation link to accept while signing in (Auth0).") var invitation: String?
    @Option(name: .long, help: "With --browser: prompt, e.g. login to ask for credentials even with a browser session.") var prompt: String?
    @Option(name: .long, help: "With --browser: screen_hint, e.g. signup to open the sign-up page (Auth0).") var screenHint: String?
    @Option(name: .long, help: "With --browser: ask for credentials again when the last sign-in is older than this many seconds.") var maxAge: Int?
    @Option(name: .long, help: "With --browser: the email or username to prefill (login_hint).") var loginHint: String?
    @Option(name: .customLong("param"), help: ArgumentHelp("With --browser: another authorization parameter, name=value (repeatable).", valueName: "name=value"))
    var parameters: [String] = []
    @Flag(name: .long, help: "Sign in by approving on another device: shows a code, a link and a QR code, then waits.") var device = false
    @Flag(name: .long, help: "With --device: do not draw the QR code.") var noQr = false
    @Flag(name: .long, help: "Print the session summary as JSON.") var json = false

    func validate() throws {
        guard (1...86_400).contains(timeout) else {
            throw ValidationError("--timeout must be between 1 and 86400 seconds.")
        }
        if guest {
            guard email == nil, username == nil, phone == nil, password == nil, !passwordStdin, !passwordless, !browser else {
                throw ValidationError("--guest takes no email, password, code or browser options.")
            }
            return
        }
        if passkey {
            guard username == nil, phone == nil, password == nil, !passwordStdin, !passwordless, !browser else {
                throw ValidationError("--passkey takes no password, code or browser options (only --email, to look the account up).")
            }
            return
        }
        if device {
            guard email == nil, username == nil, phone == nil, password == nil, !passwordStdin, !passwordless, !browser, !guest, !passkey
            else { throw ValidationError("--device signs in on another device: give no email, password, code, browser or passkey options.") }
            let browserOnly: [(String, Bool)] = [
                ("--connection", connection != nil), ("--connection-scope", connectionScope != nil), ("--organization", organization != nil),
                ("--invitation", invitation != nil), ("--prompt", prompt != nil), ("--screen-hint", screenHint != nil),
                ("--max-age", maxAge != nil), ("--login-hint", loginHint != nil), ("--param", !parameters.isEmpty), ("--no-open", noOpen),
            ]
            if let flag = browserOnly.first(where: \.1)?.0 { throw ValidationError("\(flag) goes with --browser, not --device.") }
            return
        }
        if noQr { throw ValidationError("--no-qr goes with --device.") }
        if browser {
            guard email == nil, username == nil, phone == nil, password == nil, !passwordStdin, !passwordless else {
                throw ValidationError("--browser signs in on the provider's own page: give no email, password or code options.")
            }
            guard timeout > 0 else { throw ValidationError("--timeout must be a positive number of seconds.") }
            do {
                try browserOptions().validate()
            } catch let error as AuthError {
                throw ValidationError(error.message)
            }
            return
        }
        if noOpen && passwordless {
            throw ValidationError("--no-open goes with --browser (or a password sign-in that may continue in the browser).")
        }
        let browserOnly: [(String, Bool)] = [
            ("--audience", audience != nil), ("--scope", scope != nil), ("--connection", connection != nil),
            ("--connection-scope", connectionScope != nil), ("--organization", organization != nil),
            ("--invitation", invitation != nil), ("--prompt", prompt != nil), ("--screen-hint", screenHint != nil),
            ("--max-age", maxAge != nil), ("--login-hint", loginHint != nil), ("--param", !parameters.isEmpty),
        ]
        if let flag = browserOnly.first(where: \.1)?.0 { throw ValidationError("\(flag) goes with --browser.") }
        if passwordless {
            guard (email == nil) != (phone == nil) else { throw ValidationError("--passwordless needs exactly one of --email or --phone.") }
        } else {
            guard email != nil || username != nil else {
                throw ValidationError("Give --email or --username (with a password), or --passwordless with --email or --phone.")
            }
            if password != nil && passwordStdin { throw ValidationError("Give --password or --password-stdin, not both.") }
        }
        if otp != nil && recoveryCode != nil { throw ValidationError("Give --otp or --recovery-code, not both.") }
    }

    func run() async throws {
        let hub = HubLoader.load(options, passkeyStore: passkeyStore)
        do {
            let manager = try hub.manager(provider: session.provider, account: session.account)
            let providerID = manager.key.provider
            let signedIn: Session
            if device {
                let stored = try await deviceSignIn(hub: hub, provider: providerID)
                let summary = SessionSummary(stored, now: Date())
                CLI.out(json ? CLI.json(summary) : "Signed in.\n" + summary.text)
                return
            }
            if browser {
                let stored = try await browserSignIn(hub: hub, provider: providerID)
                let summary = SessionSummary(stored, now: Date())
                CLI.out(json ? CLI.json(summary) : "Signed in.\n" + summary.text)
                return
            }
            let request = try await signInRequest(hub: hub, provider: providerID)
            do {
                signedIn = try await hub.signIn(request, provider: providerID, account: session.account)
            } catch let error as AuthError where error.code == .mfaRequired {
                signedIn = try await answerMFA(error, hub: hub, provider: providerID)
            } catch let error as AuthError where error.code == .captchaRequired {
                // Bot detection wants a person on the provider's own page: continue there.
                guard try hub.provider(providerID) is any BrowserSignInProvider else { throw error }
                CLI.stderr("\(providerID) wants to check that a person is signing in; continuing in the browser.")
                signedIn = try await browserSignIn(hub: hub, provider: providerID, loginHint: email ?? username)
            }
            let summary = SessionSummary(signedIn, now: Date())
            CLI.out(json ? CLI.json(summary) : "Signed in.\n" + summary.text)
        } catch let error as AuthError {
            CLI.fail(error.message)
        } catch {
            CLI.fail(AuthError.wrap(error).message)
        }
    }

    /// The per-sign-in options of the browser flags.
    /// - Throws: ``ValidationError`` for a malformed `--param` or `--invitation`.
    func browserOptions() throws -> BrowserSignInOptions {
        let parsed = try parameters.map { text -> BrowserSignInOptions.Parameter in
            guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
                throw ValidationError("--param takes name=value, not '\(text)'.")
            }
            return .init(String(text[..<equals]), String(text[text.index(after: equals)...]))
        }
        var invitationURL: URL?
        if let invitation {
            guard let url = URL(string: invitation), url.scheme != nil else {
                throw ValidationError("--invitation takes the invitation link (a URL with invitation and organization).")
            }
            invitationURL = url
        }
        return BrowserSignInOptions(scope: scope, audience: audience, connection: connection, connectionScope: connectionScope,
                                    organization: organization, invitationURL: invitationURL, prompt: prompt,
                                    screenHint: screenHint, maxAge: maxAge, loginHint: loginHint, parameters: parsed)
    }

    private func browserSignIn(hub: AuthHub, provider: String, loginHint: String? = nil) async throws -> Session {
        let noOpen = self.noOpen
        var options = try browserOptions()
        if let loginHint, options.loginHint == nil { options.loginHint = loginHint }
        return try await hub.signInWithBrowser(provider: provider, account: session.account, options: options,
                                               timeout: .seconds(timeout), open: { url in
            BrowserOpener.show(url, noOpen: noOpen, purpose: "to sign in")
        })
    }

    /// `--device`: shows the code, the link and a QR code of the complete link on standard error
    /// (standard output keeps the summary, or the JSON), then waits for the approval.
    private func deviceSignIn(hub: AuthHub, provider: String) async throws -> Session {
        let flow = try hub.deviceSignIn(provider: provider, account: session.account,
                                        options: DeviceSignInOptions(scope: scope.map(OIDCAuthorizationRequest.includingOpenID), audience: audience))
        let code = try await flow.start()
        CLI.stderr("To sign in, open \(CLI.shown(code.verificationURI.absoluteString)) on another device and enter the code:\n\n    \(CLI.shown(code.userCode))\n")
        if let complete = code.verificationURIComplete {
            CLI.stderr("Or open \(CLI.shown(complete.absoluteString))\(noQr ? "" : ", or scan:")")
            if !noQr, let drawing = try? QRCode(encoding: complete.absoluteString, errorCorrection: .medium).terminalRendering(quietZone: 2) {
                CLI.stderr(String(drawing.dropLast()))
            }
        }
        let minutes = max(1, Int((code.expiresAt.timeIntervalSinceNow / 60).rounded()))
        CLI.stderr("Waiting for the approval (the code expires in \(minutes) minute\(minutes == 1 ? "" : "s"); Ctrl-C stops)…")
        do {
            return try await flow.waitForApproval()
        } catch let error as AuthError where error.code == .accessDenied {
            throw error.with(message: "The sign-in was denied on the other device (\(provider): \(error.message))")
        } catch let error as AuthError where error.code == .timeout && error.providerCode == "expired_token" {
            throw error.with(message: "The code expired before the sign-in was approved; run the command again for a new code.")
        }
    }

    private func signInRequest(hub: AuthHub, provider: String) async throws -> SignInRequest {
        if guest { return .guest }
        if try usesPasskey(hub: hub, provider: provider) { return .passkey(identifier: email) }
        if passwordless {
            // A code given with --code was sent earlier: sending a new one now would replace it.
            if let code {
                guard !code.isEmpty else { throw AuthError(.userCancelled, message: "No code was entered.") }
                if let email { return .emailCode(email: email, code: Secret(code)) }
                return .smsCode(phoneNumber: phone ?? "", code: Secret(code))
            }
            let start: SignInStartRequest = email.map { .emailCode(email: $0) } ?? .smsCode(phoneNumber: phone ?? "")
            let challenge = try await hub.startSignIn(start, provider: provider)
            let typed = HubLoader.readLine(prompt: "A code was sent to \(challenge.destination). Enter it:")
            guard let typed, !typed.isEmpty else { throw AuthError(.userCancelled, message: "No code was entered.") }
            if let email { return .emailCode(email: email, code: Secret(typed), context: challenge.context) }
            return .smsCode(phoneNumber: phone ?? "", code: Secret(typed), context: challenge.context)
        }
        let secret: String?
        if let password {
            secret = password
        } else {
            secret = HubLoader.readLine(prompt: passwordStdin ? nil : "Password:")
        }
        guard let secret, !secret.isEmpty else { throw AuthError(.userCancelled, message: "No password was entered.") }
        return .password(identifier: email ?? username ?? "", password: Secret(secret), realm: realm)
    }

    /// True for `--passkey`, and for a provider that signs in with passkeys but not passwords when
    /// no password or code option was given.
    private func usesPasskey(hub: AuthHub, provider: String) throws -> Bool {
        if passkey { return true }
        guard password == nil, !passwordStdin, !passwordless, username == nil else { return false }
        let capabilities = try hub.provider(provider).capabilities
        return capabilities.contains(.passkey) && !capabilities.contains(.passwordSignIn)
    }

    /// Answers an ``AuthErrorCode/mfaRequired`` sign-in the same way for every provider: a recovery
    /// code (`--recovery-code`) or a one-time code (`--otp` or the prompt), then stores the session.
    private func answerMFA(_ error: AuthError, hub: AuthHub, provider: String) async throws -> Session {
        guard let requirement = error.mfa else { throw error }
        // AuthHub's own factors: a passkey answers when the user holds one and typed no code.
        if AuthHub.isHeldSecondStep(error), recoveryCode == nil, otp == nil, let step = hub.heldSecondStep(token: requirement.token),
           let options = step.passkey, step.kinds.first == .passkey, let authenticator = hub.context.passkeyAuthenticator {
            CLI.stderr("A second factor is required: using your passkey for \(CLI.shown(options.relyingPartyID)).")
            do {
                let assertion = try await authenticator.getAssertion(options)
                return try await hub.completeHeldSecondStep(token: requirement.token, response: .passkey(assertion))
            } catch let failed as AuthError where step.kinds.count > 1 && failed.code != .sessionExpired {
                // No usable passkey here: a code from the app or a recovery code instead.
                CLI.stderr("The passkey did not work (\(failed.message))")
            }
        }
        let response: MFAResponse
        if let recoveryCode {
            response = .recoveryCode(Secret(recoveryCode))
        } else {
            let typed = otp ?? HubLoader.readLine(prompt: "A second factor is required. Enter the code from your authenticator app:")
            guard let typed, !typed.isEmpty else { throw AuthError(.userCancelled, message: "No MFA code was entered.") }
            response = .otp(Secret(typed))
        }
        do {
            return try await hub.signIn(.mfa(requirement: requirement, response: response), provider: provider, account: session.account)
        } catch let wrong as AuthError where wrong.code == .invalidMFACode {
            throw wrong.with(message: recoveryCode == nil ? "The second-factor code is wrong or expired." : "The recovery code is wrong or already used.")
        }
    }
}
