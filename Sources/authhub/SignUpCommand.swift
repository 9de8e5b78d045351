import ArgumentParser
import AuthHub
import Foundation

/// `authhub signup`: creates an email/password account and stores the session when the provider
/// signs the new user in at once.
struct SignUpCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signup",
        abstract: "Create an account with an email address and a password.",
        discussion: "The password is read from --password, the first line of standard input (--password-stdin) or a prompt."
    )

    @OptionGroup var options: GlobalOptions
    @OptionGroup var session: SessionOptions
    @Option(name: .long, help: "Email address.") var email: String
    @Option(name: .long, help: "Password (prefer --password-stdin: arguments are visible to other users).") var password: String?
    @Flag(name: .long, help: "Read the password from the first line of standard input.") var passwordStdin = false
    @Option(name: .long, help: "Display name.") var name: String?
    @Flag(name: .long, help: "Print the session summary as JSON.") var json = false

    func validate() throws {
        if password != nil && passwordStdin { throw ValidationError("Give --password or --password-stdin, not both.") }
    }

    func run() async throws {
        let hub = HubLoader.load(options)
        do {
            let providerID = try hub.manager(provider: session.provider, account: session.account).key.provider
            let secret = password ?? HubLoader.readLine(prompt: passwordStdin ? nil : "Choose a password:")
            guard let secret, !secret.isEmpty else { throw AuthError(.userCancelled, message: "No password was entered.") }
            let result = try await hub.signUp(SignUpRequest(email: email, password: Secret(secret), displayName: name),
                                              provider: providerID, account: session.account)
            switch result {
            case .signedIn(let created):
                let summary = SessionSummary(created, now: Date())
                print(json ? CLI.json(summary) : "Account created; signed in.\n" + summary.text)
            case .verificationRequired(let address):
                print("Account created. Verify \(address) (a message was sent), then run `authhub login`.")
            }
        } catch {
            CLI.fail(AuthError.wrap(error).message)
        }
    }
}

/// `authhub reset-password`: asks the provider to send a password-reset message.
struct ResetPasswordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset-password", abstract: "Send a password-reset message to an email address.")

    @OptionGroup var options: GlobalOptions
    @OptionGroup var session: SessionOptions
    @Option(name: .long, help: "Email address of the account.") var email: String

    func run() async throws {
        let hub = HubLoader.load(options)
        do {
            let providerID = try hub.manager(provider: session.provider, account: session.account).key.provider
            try await hub.sendPasswordReset(email: email, provider: providerID)
            print("If \(email) has an account, a password-reset message is on its way.")
        } catch {
            CLI.fail(AuthError.wrap(error).message)
        }
    }
}
