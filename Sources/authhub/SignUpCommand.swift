import ArgumentParser
import AuthHub
import Foundation

/// `authhub signup`: creates an email/password account and stores the session when the provider
/// signs the new user in at once.
struct SignUpCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signup",
        abstract: "Create an account with an email address and a password (or a passkey).",
        discussion: """
            The password is read from --password, the first line of standard input (--password-stdin) or a prompt. \
            A provider whose accounts use passkeys (Turnkey) creates one with the software passkey authenticator \
            in --passkey-store instead, and takes no password.
            """
    )

    @OptionGroup var options: GlobalOptions
    @OptionGroup var session: SessionOptions
    @Option(name: .long, help: "Email address.") var email: String
    @Option(name: .long, help: "Password (prefer --password-stdin: arguments are visible to other users).") var password: String?
    @Flag(name: .long, help: "Read the password from the first line of standard input.") var passwordStdin = false
    @Option(name: .long, help: "Display name.") var name: String?
    @Flag(name: .long, help: "Print the session summary as JSON.") var json = false
    @Option(name: .long, help: "The software passkey authenticator's credential directory (passkey providers).")
    var passkeyStore = ".authhub/passkeys"

    func validate() throws {
        if password != nil && passwordStdin { throw ValidationError("Give --password or --password-stdin, not both.") }
    }

    func run() async throws {
        let hub = HubLoader.load(options, passkeyStore: passkeyStore)
        do {
            let providerID = try hub.manager(provider: session.provider, account: session.account).key.provider
            if try hub.provider(providerID) is any PasskeySignUpProvider {
                guard password == nil, !passwordStdin else {
                    throw AuthError(.invalidRequest, message: "'\(providerID)' creates accounts with a passkey: give no password.")
                }
                let created = try await hub.signUpWithPasskey(email: email, displayName: name, provider: providerID, account: session.account)
                let summary = SessionSummary(created, now: Date())
                CLI.out(json ? CLI.json(summary) : "Account created with a new passkey (kept in \(passkeyStore)); signed in.\n" + summary.text)
                return
            }
            let secret = password ?? HubLoader.readLine(prompt: passwordStdin ? nil : "Choose a password:")
            guard let secret, !secret.isEmpty else { throw AuthError(.userCancelled, message: "No password was entered.") }
            let result = try await hub.signUp(SignUpRequest(email: email, password: Secret(secret), displayName: name),
                                              provider: providerID, account: session.account)
            switch result {
            case .signedIn(let created):
                let summary = SessionSummary(created, now: Date())
                CLI.out(json ? CLI.json(summary) : "Account created; signed in.\n" + summary.text)
            case .verificationRequired(let address):
                CLI.out("Account created. Verify \(address) (a message was sent), then run `authhub login`.")
            }
        } catch {
            CLI.fail(AuthError.wrap(error).message)
        }
    }
}

/// `authhub reset-password`: asks the provider to send a password-reset message, or with `--code`
/// sets the new password with the message's code.
struct ResetPasswordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset-password", abstract: "Send a password-reset message, or finish the reset with its code.",
        discussion: """
            authhub reset-password --email E sends the message. authhub reset-password --code C sets the new \
            password (read from --password-stdin or typed at the prompt, never echoed) with the code or link token \
            from the message; Openfort's emailed one-time codes also need --email. Firebase and Openfort finish \
            resets here; Auth0 finishes them on its own page (the link in the message).
            """)

    @OptionGroup var options: GlobalOptions
    @OptionGroup var session: SessionOptions
    @Option(name: .long, help: "Email address of the account.") var email: String?
    @Option(name: .long, help: "The code (or link token) from the password-reset message.") var code: String?
    @Flag(name: .long, help: "With --code: read the new password from the first line of standard input.") var passwordStdin = false

    func validate() throws {
        if code == nil {
            guard email != nil else { throw ValidationError("Give --email to send a reset message, or --code to finish a reset.") }
            if passwordStdin { throw ValidationError("--password-stdin goes with --code.") }
        } else if code?.isEmpty == true {
            throw ValidationError("--code must not be empty.")
        }
    }

    func run() async throws {
        let hub = HubLoader.load(options)
        do {
            let providerID = try hub.manager(provider: session.provider, account: session.account).key.provider
            guard let code else {
                let email = self.email ?? ""
                try await hub.sendPasswordReset(email: email, provider: providerID)
                CLI.out("If \(email) has an account, a password-reset message is on its way; finish with "
                      + CLI.suggest("reset-password", options, session, then: "--code CODE") + ".")
                return
            }
            let typed = HubLoader.readLine(prompt: passwordStdin ? nil : "New password:")
            guard let typed, !typed.isEmpty else { throw AuthError(.userCancelled, message: "No new password was entered.") }
            try await hub.confirmPasswordReset(provider: providerID, email: email, code: Secret(code), newPassword: Secret(typed))
            CLI.out("Password changed. Sign in with the new one: " + CLI.suggest("login", options, session))
        } catch {
            CLI.fail(AuthError.wrap(error).message)
        }
    }
}

/// `authhub verify-email`: sends the signed-in user a verification message, or with `--code`
/// confirms the address.
struct VerifyEmailCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify-email", abstract: "Send an email-verification message, or confirm the address with its code.")

    @OptionGroup var options: GlobalOptions
    @OptionGroup var session: SessionOptions
    @Option(name: .long, help: "The code (or link token) from the verification message.") var code: String?

    func run() async throws {
        let hub = HubLoader.load(options)
        do {
            let manager = try hub.manager(provider: session.provider, account: session.account)
            if let code {
                let renewed = try await hub.confirmEmailVerification(provider: manager.key.provider, account: session.account,
                                                                     code: Secret(code))
                CLI.out("Email address verified." + (renewed == nil ? "" : " The session was renewed."))
                return
            }
            guard try await manager.current() != nil else { CLI.failNotSignedIn(manager.key, options, session) }
            try await hub.sendEmailVerification(provider: manager.key.provider, account: session.account)
            CLI.out("A verification message is on its way; finish with " + CLI.suggest("verify-email", options, session, then: "--code CODE") + ".")
        } catch {
            CLI.fail(AuthError.wrap(error).message)
        }
    }
}

/// `authhub delete-account`: deletes the signed-in user's account at the provider, after a
/// confirmation, and removes the session.
struct DeleteAccountCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete-account",
        abstract: "Delete the signed-in user's account at the provider (asks for confirmation; --yes skips it).")

    @OptionGroup var options: GlobalOptions
    @OptionGroup var session: SessionOptions
    @Flag(name: .long, help: "Do not ask for confirmation.") var yes = false

    func run() async throws {
        let hub = HubLoader.load(options)
        do {
            let manager = try hub.manager(provider: session.provider, account: session.account)
            guard let stored = try await manager.current() else { CLI.failNotSignedIn(manager.key, options, session) }
            let who = CLI.shown(stored.claims["email"]?.stringValue ?? stored.userID ?? "this user")
            if !yes {
                let typed = HubLoader.readLine(prompt: "This deletes the account \(who) at \(manager.key.provider) for good. Type DELETE to confirm:",
                                               secret: false)
                guard typed?.trimmingCharacters(in: .whitespaces) == "DELETE" else {
                    CLI.fail("not deleted: the confirmation was not DELETE")
                }
            }
            try await hub.deleteAccount(provider: manager.key.provider, account: session.account)
            CLI.out("Account \(who) deleted; signed out.")
        } catch {
            CLI.fail(AuthError.wrap(error).message)
        }
    }
}
