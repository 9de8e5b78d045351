import ArgumentParser
import AuthHub
import AuthHubFactors
import Foundation

/// `authhub account`: the signed-in user's own account through the hub's account API, the same for
/// every provider (``AccountProvider``): sign-in methods, enrolling and removing factors, the
/// password, the name and email, deleting the account. (`authhub mfa` stays: Auth0's My Account
/// API in full, push and passwords included.)
struct AccountCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "account",
        abstract: "Manage your account: sign-in methods, factors, password, profile.",
        discussion: "Works on the session stored by `authhub login`, with every provider that offers it (`authhub account capabilities`).",
        subcommands: [AccountCapabilitiesCommand.self, AccountMethodsCommand.self, AccountEnrollCommand.self, AccountRemoveCommand.self,
                      AccountPasswordCommand.self, AccountProfileCommand.self, AccountSessionsCommand.self]
    )
}

/// What the `account` subcommands share: the hub and the session's key, checked signed in.
struct AccountContext {
    let hub: AuthHub
    let provider: String
    let account: String

    init(options: GlobalOptions, session: SessionOptions, needsSession: Bool = true) async throws {
        hub = HubLoader.load(options)
        let manager = try hub.manager(provider: session.provider, account: session.account)
        provider = manager.key.provider
        account = session.account
        if needsSession, try await manager.current() == nil {
            throw AuthError(.noSession, message: CLI.notSignedInMessage(manager.key, options, session), provider: provider)
        }
    }

    /// Runs `body`; an error is one line, and one that signing in again fixes says so.
    static func run(_ body: () async throws -> Void) async {
        do {
            try await body()
        } catch {
            let error = AuthError.wrap(error)
            CLI.fail(error.requiresReauthentication ? "\(error.message) Sign in again (`authhub login`), then repeat." : error.message)
        }
    }
}

/// `authhub account capabilities`.
struct AccountCapabilitiesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "capabilities", abstract: "What you can do with your account here.")

    @OptionGroup var options: GlobalOptions
    @OptionGroup var session: SessionOptions

    func run() async throws {
        await AccountContext.run {
            let context = try await AccountContext(options: options, session: session, needsSession: false)
            let capabilities = try context.hub.accountCapabilities(provider: context.provider).sorted()
            CLI.out(capabilities.isEmpty ? "Provider '\(CLI.shown(context.provider))' offers no account management." : capabilities.map(\.rawValue).joined(separator: "\n"))
        }
    }
}

/// `authhub account methods`.
struct AccountMethodsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "methods", abstract: "List your sign-in methods and factors.")

    @OptionGroup var options: GlobalOptions
    @OptionGroup var session: SessionOptions
    @Flag(name: .long, help: "Print the methods as JSON.") var json = false

    func run() async throws {
        await AccountContext.run {
            let context = try await AccountContext(options: options, session: session)
            let methods = try await context.hub.accountMethods(provider: context.provider, account: context.account)
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
                encoder.dateEncodingStrategy = .iso8601
                // Names and details come from the provider: escaped for the terminal as every --json output.
                CLI.out(CLI.jsonEscaped(String(decoding: try encoder.encode(methods), as: UTF8.self)))
                return
            }
            CLI.out(Self.table(methods))
        }
    }

    /// The methods as an aligned table (no secrets: ids, kinds, labels, dates).
    static func table(_ methods: [AccountMethod]) -> String {
        guard !methods.isEmpty else { return "No sign-in methods." }
        let day = ISO8601DateFormatter()
        day.formatOptions = [.withFullDate]
        let rows = [["ID", "KIND", "NAME", "USE", "ADDED"]] + methods.map { method in
            [method.id, method.kind.rawValue + (method.isConfirmed ? "" : " (unconfirmed)"), method.label,
             method.usage.map(\.rawValue).sorted().joined(separator: ","), method.createdAt.map(day.string) ?? "-"].map(CLI.shown)
        }
        return CLI.table(rows)
    }
}

/// What `authhub account enroll` adds.
enum AccountEnrollmentKind: String, ExpressibleByArgument, CaseIterable {
    case totp, passkey, email, phone, recoveryCodes = "recovery-codes"
}

/// `authhub account enroll <kind>`.
struct AccountEnrollCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enroll",
        abstract: "Add a factor.",
        discussion: """
            totp: scan the QR code (or type the key) in an authenticator app, then enter its code. \
            email / phone: a code is sent (--email / --phone); enter it. recovery-codes: printed once; \
            save them. passkey: created by the software authenticator in --passkey-store. Codes come \
            from --code or are prompted for (three tries).
            """
    )

    @OptionGroup var options: GlobalOptions
    @OptionGroup var session: SessionOptions
    @Argument(help: "totp, passkey, email, phone or recovery-codes.") var kind: AccountEnrollmentKind
    @Option(name: .long, help: "The email address to enroll (email).") var email: String?
    @Option(name: .long, help: "The phone number to enroll, + and digits (phone).") var phone: String?
    @Option(name: .long, help: "A name for the new factor.") var name: String?
    @Option(name: .long, help: "The code to confirm with (otherwise prompted).") var code: String?
    @Option(name: .long, help: "Passkey: the software authenticator's credential directory.") var passkeyStore = ".authhub/passkeys"
    @Flag(name: .long, help: "TOTP: do not draw the QR code.") var noQr = false
    @Flag(name: .long, help: "Draw the QR code light-on-dark (for terminals with a dark background).") var invert = false

    func validate() throws {
        if (email != nil) != (kind == .email) { throw ValidationError(kind == .email ? "email needs --email." : "--email goes with `enroll email`.") }
        if (phone != nil) != (kind == .phone) { throw ValidationError(kind == .phone ? "phone needs --phone." : "--phone goes with `enroll phone`.") }
        if code != nil && ![.totp, .email, .phone].contains(kind) { throw ValidationError("--code goes with totp, email or phone.") }
    }

    var request: MethodEnrollmentRequest {
        switch kind {
        case .totp: .totp
        case .passkey: .passkey
        case .email: .emailCode(email: email ?? "")
        case .phone: .phoneCode(phoneNumber: phone ?? "")
        case .recoveryCodes: .recoveryCodes
        }
    }

    func run() async throws {
        await AccountContext.run {
            let context = try await AccountContext(options: options, session: session)
            let challenge = try await context.hub.startMethodEnrollment(request, options: MethodEnrollmentOptions(name: name),
                                                                        provider: context.provider, account: context.account)
            try show(challenge.prompt)
            var tries = 0
            while true {
                do {
                    let method = try await context.hub.confirmMethodEnrollment(challenge, response: try await answer(challenge.prompt),
                                                                               provider: context.provider, account: context.account)
                    CLI.out("Added \(CLI.shown(method.map { "\($0.kind) (\($0.id))" } ?? challenge.kind.rawValue)).")
                    return
                } catch let error as AuthError where error.code == .invalidMFACode && code == nil && tries < 2 {
                    tries += 1
                    CLI.stderr("\(error.message) Try again.")
                }
            }
        }
    }

    /// Shows the prompt (once: a wrong code is asked for again, the QR code is not drawn again).
    private func show(_ prompt: MethodEnrollmentChallenge.Prompt) throws {
        switch prompt {
        case .totp(let uri, let secret):
            // The enrollment secret is shown on purpose: the user must move it into an authenticator.
            if !noQr {
                let drawing = try QRCode(encoding: uri.revealed(), errorCorrection: .medium).terminalRendering(quietZone: 2, inverted: invert)
                CLI.stdoutLine(String(drawing.dropLast()))
            }
            CLI.stdoutLine("Key for manual entry: \(secret.revealed())")
        case .recoveryCodes(let codes):
            CLI.stdoutLine("Recovery codes (shown once; store them somewhere safe):")
            for code in codes { CLI.stdoutLine("  \(code.revealed())") }
        case .passkey(let creation):
            CLI.stderr("Creating a passkey for \(CLI.shown(creation.user.name)) at \(CLI.shown(creation.relyingParty.id))…")
        case .codeSent:
            break
        }
    }

    /// The user's answer to the prompt.
    private func answer(_ prompt: MethodEnrollmentChallenge.Prompt) async throws -> MethodEnrollmentResponse {
        switch prompt {
        case .totp:
            return .code(Secret(try typedCode(prompt: "Enter the code your authenticator app shows:")))
        case .codeSent(let destination):
            return .code(Secret(try typedCode(prompt: "A code was sent to \(CLI.shown(destination)). Enter it:")))
        case .recoveryCodes:
            return .acknowledged
        case .passkey(let creation):
            let store = try FilePasskeyCredentialStore(directory: URL(fileURLWithPath: passkeyStore, isDirectory: true))
            return .passkey(try await SoftwarePasskeyAuthenticator(store: store).makeCredential(creation))
        }
    }

    private func typedCode(prompt: String) throws -> String {
        if let code { return code }
        guard let typed = HubLoader.readLine(prompt: prompt), !typed.isEmpty else {
            throw AuthError(.userCancelled, message: "No code was entered.")
        }
        return typed
    }
}

/// `authhub account remove <id>`.
struct AccountRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a sign-in method or factor.")

    @OptionGroup var options: GlobalOptions
    @OptionGroup var session: SessionOptions
    @Argument(help: "The method id, as `authhub account methods` shows it.") var id: String

    func run() async throws {
        await AccountContext.run {
            let context = try await AccountContext(options: options, session: session)
            try await context.hub.deleteMethod(id: id, provider: context.provider, account: context.account)
            CLI.out("Removed \(CLI.shown(id)).")
        }
    }
}

/// `authhub account password`.
struct AccountPasswordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "password", abstract: "Change your password.",
        discussion: "The current and new password are read from the terminal with echo off (or from standard input, a line each)."
    )

    @OptionGroup var options: GlobalOptions
    @OptionGroup var session: SessionOptions
    @Flag(name: .long, help: "Do not ask for the current password (providers that check a recent sign-in instead).") var noCurrent = false

    func run() async throws {
        await AccountContext.run {
            let context = try await AccountContext(options: options, session: session)
            // Nothing is asked for when the provider cannot change it here.
            guard try context.hub.accountCapabilities(provider: context.provider).contains(.changePassword) else {
                throw AuthError(.unsupported, message: "Provider '\(context.provider)' does not support changing the password here.",
                                provider: context.provider)
            }
            let current = noCurrent ? nil : HubLoader.readLine(prompt: "Current password:").map(Secret.init)
            guard let new = HubLoader.readLine(prompt: "New password:"), !new.isEmpty else {
                throw AuthError(.userCancelled, message: "No new password was entered.")
            }
            try await context.hub.changePassword(current: current, new: Secret(new), provider: context.provider, account: context.account)
            CLI.out("Password changed.")
        }
    }
}

/// `authhub account profile --name … | --email …`.
struct AccountProfileCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "profile", abstract: "Change your name or email address.")

    @OptionGroup var options: GlobalOptions
    @OptionGroup var session: SessionOptions
    @Option(name: .long, help: "A new display name.") var name: String?
    @Option(name: .long, help: "A new email address.") var email: String?

    func validate() throws {
        guard (name == nil) != (email == nil) else { throw ValidationError("Give one of --name or --email.") }
    }

    func run() async throws {
        await AccountContext.run {
            let context = try await AccountContext(options: options, session: session)
            let change: AccountProfileChange = name.map(AccountProfileChange.name) ?? .email(email ?? "")
            switch try await context.hub.changeProfile(change, provider: context.provider, account: context.account) {
            case .changed: CLI.out("Profile changed.")
            case .verificationSent(let address): CLI.out("A verification link was sent to \(CLI.shown(address)); the change happens once it is followed.")
            }
        }
    }
}

/// `authhub account sessions`: the user's sessions with this provider in the store (this CLI's, and a
/// web app's browser sessions when it shares the store: PostgreSQL or a shared directory), through
/// the store's index by user; `--sign-out ACCOUNT`, `--sign-out-others` and `--everywhere` end them
/// (each revoked at the provider, as `authhub logout` does).
struct AccountSessionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "sessions", abstract: "List your sessions here; sign some or all of them out.")

    @OptionGroup var options: GlobalOptions
    @OptionGroup var session: SessionOptions
    @Option(name: .customLong("sign-out"), help: ArgumentHelp("Sign out the session with this account key.", valueName: "account"))
    var signOut: String?
    @Flag(name: .customLong("sign-out-others"), help: "Sign out every session of yours but this one.") var signOutOthers = false
    @Flag(name: .long, help: "Sign out every session of yours, this one too.") var everywhere = false
    @Flag(name: .long, help: "Print the sessions as JSON.") var json = false

    func validate() throws {
        guard [signOut != nil, signOutOthers, everywhere].filter({ $0 }).count <= 1 else {
            throw ValidationError("Choose one of --sign-out, --sign-out-others and --everywhere.")
        }
    }

    struct Row: Encodable {
        var account: String
        var device: String?
        var signedIn: Date?
        var current: Bool
    }

    func run() async throws {
        await AccountContext.run {
            let context = try await AccountContext(options: options, session: session)
            let hub = context.hub
            guard let me = try await hub.manager(provider: context.provider, account: context.account).current(), let user = me.userID else {
                throw AuthError(.unsupported, message: "This session names no user, so its other sessions cannot be found.", provider: context.provider)
            }
            var rows: [Row] = []
            for key in try await hub.sessionKeys(ofUser: user, provider: context.provider) {
                guard let stored = try? await hub.manager(provider: key.provider, account: key.account).current() else { continue }
                rows.append(Row(account: key.account, device: stored.extras[Session.browserDeviceExtra]?.stringValue, signedIn: stored.issuedAt,
                                current: key.account == context.account))
            }
            let targets: [Row]
            if let signOut {
                guard let row = rows.first(where: { $0.account == signOut }) else {
                    throw AuthError(.invalidRequest, message: "You have no session '\(CLI.shown(signOut))' here.", provider: context.provider)
                }
                targets = [row]
            } else if signOutOthers {
                targets = rows.filter { !$0.current }
            } else if everywhere {
                targets = rows
            } else {
                if json {
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
                    encoder.dateEncodingStrategy = .iso8601
                    CLI.out(CLI.jsonEscaped(String(decoding: try encoder.encode(rows), as: UTF8.self)))
                } else {
                    let day = ISO8601DateFormatter()
                    CLI.out(CLI.table([["ACCOUNT", "DEVICE", "SIGNED IN", ""]] + rows.map {
                        [$0.account, $0.device ?? "-", $0.signedIn.map(day.string) ?? "-", $0.current ? "(this one)" : ""].map(CLI.shown)
                    }))
                }
                return
            }
            for row in targets { _ = try await hub.signOut(provider: context.provider, account: row.account) }
            try await hub.finishBackgroundWork()
            CLI.out(targets.count == 1 ? "Signed out 1 session." : "Signed out \(targets.count) sessions.")
        }
    }
}
