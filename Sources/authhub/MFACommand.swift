import ArgumentParser
import AuthHub
import AuthHubAuth0
import AuthHubFactors
import Foundation

/// `authhub mfa`: the signed-in user's authentication methods through Auth0's My Account API —
/// list, enroll (TOTP with a QR code drawn in the terminal, push, email, phone, recovery code,
/// passkey, password) and delete. The commands drive the library's headless flows
/// (``Auth0EnrollmentFactor`` on ``FactorFlow``, ``Auth0AuthenticationMethodsFlow``).
struct MFACommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mfa",
        abstract: "List, enroll and delete authentication methods (Auth0 My Account API).",
        discussion: """
            Works on the session stored by `authhub login`; tokens for the My Account API are obtained with its refresh token.             For every provider (Firebase, Openfort, Turnkey, OpenID Connect with AuthHub-held factors, and Auth0 too),             `authhub account methods|enroll|remove|password|profile|sessions` does the same through the provider-neutral account API.
            """,
        subcommands: [MFAListCommand.self, MFAEnrollCommand.self, MFADeleteCommand.self]
    )
}

/// What the `mfa` subcommands share: the Auth0 provider, a credentials manager over the stored
/// session, the My Account client and the step-up handler.
struct MyAccountContext {
    let hub: AuthHub
    let auth0: Auth0Provider
    let credentials: Auth0CredentialsManager
    let api: Auth0MyAccountAPI
    let manager: SessionManager

    init(options: GlobalOptions, session: SessionOptions) async throws {
        hub = HubLoader.load(options)
        manager = try hub.manager(provider: session.provider, account: session.account)
        let id = manager.key.provider
        guard let auth0 = try? hub.provider(id, as: Auth0Provider.self) else {
            let type = (try? hub.provider(id).type) ?? "?"
            throw AuthError(.unsupported, message: "`authhub mfa` manages Auth0 authentication methods; provider '\(id)' is of type '\(type)': use `authhub account methods`, `account enroll` and `account remove`, which work for every provider.",
                            provider: id)
        }
        guard try await manager.current() != nil else {
            throw AuthError(.noSession, message: CLI.notSignedInMessage(manager.key, options, session), provider: id)
        }
        self.auth0 = auth0
        credentials = try Auth0CredentialsManager(manager: manager)
        api = Auth0MyAccountAPI(provider: auth0, credentials: credentials)
    }

    /// Step-up for the CLI: an MFA requirement is answered with a one-time code (from `otp` or the
    /// prompt) and the new session stored; a missing scope drops the cached My Account token so a
    /// fresh one is exchanged. Anything else cannot be fixed here.
    func reauthenticationHandler(otp: String?) -> ReauthenticationHandler {
        let auth0 = self.auth0, manager = self.manager, credentials = self.credentials, audience = api.audience
        return { error in
            switch error.code {
            case .mfaRequired:
                guard let requirement = error.mfa else { throw error }
                let typed = otp ?? HubLoader.readLine(prompt: "This change needs a second factor. Enter the code from your authenticator app:")
                guard let typed, !typed.isEmpty else { throw AuthError(.userCancelled, message: "No MFA code was entered.") }
                _ = try await manager.signIn(method: "mfa") { _ in try await auth0.signIn(mfa: requirement, .otp(Secret(typed))) }
            case .insufficientScope:
                try await credentials.clear(forAudience: audience, scope: error.details["requiredScope"])
            default:
                throw error
            }
        }
    }

    /// The one line for a flow that still needs the user to sign in again.
    static func reauthenticationMessage(_ error: AuthError) -> String {
        let scope = error.details["requiredScope"].map { " (needs \($0))" } ?? ""
        return "\(error.message)\(scope); sign in again with `authhub login`"
    }
}

/// `authhub mfa list`.
struct MFAListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List your authentication methods.")

    @OptionGroup var options: GlobalOptions
    @OptionGroup var session: SessionOptions
    @Flag(name: .long, help: "Print the methods (and enabled factor types) as JSON.") var json = false

    func run() async throws {
        do {
            let context = try await MyAccountContext(options: options, session: session)
            let flow = Auth0AuthenticationMethodsFlow(api: context.api, reauthenticate: context.reauthenticationHandler(otp: nil))
            let state = await flow.load()
            guard let overview = state.overview else { MFAOutput.fail(state.error, reauthentication: state.name == "reauthenticationRequired") }
            if json {
                let factors: [JSONValue] = overview.factors.map { ["type": .string($0.type), "usage": .array($0.usage.map(JSONValue.string))] }
                CLI.out(CLI.json(JSONValue.object(["authentication_methods": .array(overview.methods.map(\.json)), "factors": .array(factors)])))
                return
            }
            CLI.out(MFAOutput.table(overview.methods))
            if !overview.enrollable.isEmpty { CLI.out("\nCan enroll: \(overview.enrollable.map(CLI.shown).joined(separator: ", "))") }
        } catch {
            CLI.fail(AuthError.wrap(error).message)
        }
    }
}

/// `authhub mfa delete <id>`.
struct MFADeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete an authentication method.")

    @OptionGroup var options: GlobalOptions
    @OptionGroup var session: SessionOptions
    @Argument(help: "The method id, as `authhub mfa list` shows it (e.g. totp|dev_…).") var id: String

    func run() async throws {
        do {
            let context = try await MyAccountContext(options: options, session: session)
            let flow = Auth0AuthenticationMethodsFlow(api: context.api, reauthenticate: context.reauthenticationHandler(otp: nil))
            let loaded = await flow.load()
            guard let overview = loaded.overview else { MFAOutput.fail(loaded.error, reauthentication: loaded.name == "reauthenticationRequired") }
            guard overview.methods.contains(where: { $0.id == id }) else {
                CLI.fail("no authentication method '\(id)'; `authhub mfa list` shows yours")
            }
            let state = await flow.delete(id: id)
            guard state.overview != nil else { MFAOutput.fail(state.error, reauthentication: state.name == "reauthenticationRequired") }
            CLI.out("Deleted \(CLI.shown(id)).")
        } catch {
            CLI.fail(AuthError.wrap(error).message)
        }
    }
}

/// What `authhub mfa enroll` can enroll.
enum EnrollmentKind: String, ExpressibleByArgument, CaseIterable {
    case totp, push, email, phone, recoveryCode = "recovery-code", passkey, password
}

/// `authhub mfa enroll <kind>`.
struct MFAEnrollCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "enroll",
        abstract: "Enroll an authentication method.",
        discussion: """
            totp: scan the QR code (or type the key) in an authenticator app, then enter its code. \
            push: scan the QR code in the Guardian app, accept, then press Enter. email / phone: a code \
            is sent (--email / --phone, --voice for a call); enter it. recovery-code: printed once; save it. \
            passkey: created by the software authenticator in --passkey-store. password: read from \
            standard input. Codes come from --code or are prompted for (three tries).
            """
    )

    @OptionGroup var options: GlobalOptions
    @OptionGroup var session: SessionOptions
    @Argument(help: "totp, push, email, phone, recovery-code, passkey or password.") var kind: EnrollmentKind
    @Option(name: .long, help: "The email address to enroll (email).") var email: String?
    @Option(name: .long, help: "The phone number to enroll, in international form (phone).") var phone: String?
    @Flag(name: .long, help: "Phone: send the code by a voice call instead of SMS.") var voice = false
    @Option(name: .long, help: "The code to confirm with (otherwise prompted).") var code: String?
    @Option(name: .long, help: "The one-time code to answer an MFA step-up with (otherwise prompted).") var otp: String?
    @Option(name: .long, help: "Passkey: the software authenticator's credential directory.") var passkeyStore = ".authhub/passkeys"
    @Flag(name: .long, help: "TOTP/push: do not draw the QR code.") var noQr = false
    @Flag(name: .long, help: "Draw the QR code light-on-dark (for terminals with a dark background).") var invert = false
    @Flag(name: .long, help: "Print the enrolled method as JSON.") var json = false

    func validate() throws {
        if (email != nil) != (kind == .email) { throw ValidationError(kind == .email ? "email needs --email." : "--email goes with `enroll email`.") }
        if (phone != nil) != (kind == .phone) { throw ValidationError(kind == .phone ? "phone needs --phone." : "--phone goes with `enroll phone`.") }
        if voice && kind != .phone { throw ValidationError("--voice goes with `enroll phone`.") }
        if code != nil && ![.totp, .email, .phone].contains(kind) { throw ValidationError("--code goes with totp, email or phone.") }
    }

    func run() async throws {
        do {
            let context = try await MyAccountContext(options: options, session: session)
            let flow = FactorFlow(try factor(context.api), reauthenticate: context.reauthenticationHandler(otp: otp))
            var state = await flow.start()
            var tries = 0
            while true {
                switch state {
                case .challenge(let challenge):
                    state = await flow.confirm(try respond(to: challenge))
                case .completed(let method):
                    CLI.out(json ? CLI.json(method.json) : "Enrolled \(CLI.shown(method.type ?? kind.rawValue)) (\(CLI.shown(method.id))).")
                    return
                case .failed(let error) where code == nil && tries < 2 && Self.canTryAgain(error, kind: kind):
                    tries += 1
                    CLI.stderr("\(error.message) Try again.")
                    state = await flow.retry()
                case .failed(let error):
                    MFAOutput.fail(error, reauthentication: false)
                case .reauthenticationRequired(let error):
                    MFAOutput.fail(error, reauthentication: true)
                case .idle, .loading, .confirming:
                    CLI.fail("the enrollment stopped in state \(state.name)")
                }
            }
        } catch {
            CLI.fail(AuthError.wrap(error).message)
        }
    }

    /// A wrong code (typed at the prompt) or a push not accepted yet may be tried again.
    static func canTryAgain(_ error: AuthError, kind: EnrollmentKind) -> Bool {
        error.code == .invalidMFACode || (kind == .push && error.statusCode == 400)
    }

    private func factor(_ api: Auth0MyAccountAPI) throws -> Auth0EnrollmentFactor {
        switch kind {
        case .totp: return .totp(api)
        case .push: return .pushNotification(api)
        case .email: return .email(email ?? "", api: api)
        case .phone: return .phone(phone ?? "", preferredMethod: voice ? "voice" : nil, api: api)
        case .recoveryCode: return .recoveryCode(api)
        case .password: return .password(api)
        case .passkey:
            let store = try FilePasskeyCredentialStore(directory: URL(fileURLWithPath: passkeyStore, isDirectory: true))
            return .passkey(api, authenticator: try SoftwarePasskeyAuthenticator(store: store))
        }
    }

    /// Shows the challenge and reads the user's answer.
    private func respond(to challenge: Auth0EnrollmentChallenge) throws -> Auth0EnrollmentResponse {
        switch challenge.prompt {
        case .qrCode(let uri, let manual):
            // The enrollment secret is shown on purpose: the user must move it into an authenticator.
            if !noQr {
                let drawing = try QRCode(encoding: uri.revealed(), errorCorrection: .medium).terminalRendering(quietZone: 2, inverted: invert)
                CLI.stdoutLine(String(drawing.dropLast()))
            }
            if let manual { CLI.stdoutLine("Key for manual entry: \(manual.revealed())") }
            if kind == .push {
                _ = HubLoader.readLine(prompt: "Scan the QR code with your authenticator app, accept the enrollment, then press Enter.",
                                       secret: false)
                return .none
            }
            return .code(Secret(try typedCode(prompt: "Enter the 6-digit code your authenticator app shows:")))
        case .codeSent:
            return .code(Secret(try typedCode(prompt: "A code was sent to \(email ?? phone ?? "you"). Enter it:")))
        case .recoveryCode(let code):
            CLI.stdoutLine("Recovery code (shown once; store it somewhere safe): \(code.revealed())")
            return .none
        case .passkey(let options):
            CLI.stderr("Creating a passkey for \(CLI.shown(options.user.name)) at \(CLI.shown(options.relyingParty.id))…")
            return .none
        case .password:
            guard let typed = HubLoader.readLine(prompt: "New password:"), !typed.isEmpty else {
                throw AuthError(.userCancelled, message: "No password was entered.")
            }
            return .password(Secret(typed))
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

enum MFAOutput {
    /// Fails with the flow's error, pointing at `authhub login` when signing in again is the fix.
    static func fail(_ error: AuthError?, reauthentication: Bool) -> Never {
        guard let error else { CLI.fail("the operation did not finish") }
        CLI.fail(reauthentication ? MyAccountContext.reauthenticationMessage(error) : error.message)
    }

    /// The methods as an aligned table (no secrets: ids, types, names, dates).
    static func table(_ methods: [Auth0AuthenticationMethod]) -> String {
        guard !methods.isEmpty else { return "No authentication methods enrolled." }
        let rows = [["ID", "TYPE", "NAME", "CREATED"]] + methods.map { method in
            [method.id, method.type ?? "?", method.name ?? method.json["phone_number"]?.stringValue ?? method.json["email"]?.stringValue ?? "-",
             method.json["created_at"]?.stringValue ?? "-"].map(CLI.shown)
        }
        return CLI.table(rows)
    }
}
