import ArgumentParser
import AuthHub
import AuthHubAsyncHTTPClient
import AuthHubPostgres
import AuthHubProviders
import Foundation

/// Options of the commands that work on one stored session.
struct SessionOptions: ParsableArguments {
    @Option(name: .long, help: "Provider id (default: the environment's defaultProvider).")
    var provider: String?

    @Option(name: .long, help: "Account key, to keep several sessions of one provider.")
    var account: String = SessionKey.defaultAccount
}

/// A summary of a session with no secret in it, for `session`, `login` and `refresh` output.
struct SessionSummary: Encodable {
    var provider: String
    var account: String
    var user: String?
    var email: String?
    var tokenType: String
    var expiresAt: String?
    var expiresInSeconds: Int?
    var scope: String?
    var hasRefreshToken: Bool
    var hasIDToken: Bool
    var version: UInt64

    init(_ session: Session, now: Date) {
        provider = session.providerID
        account = session.accountKey
        user = session.userID ?? session.claims["sub"]?.stringValue
        email = session.claims["email"]?.stringValue
        tokenType = session.tokenType
        expiresAt = session.expiresAt.map { ISO8601DateFormatter().string(from: $0) }
        expiresInSeconds = session.expiresAt.map { SessionTimeLimits.wholeSeconds(from: now, to: $0) }
        scope = session.scope
        hasRefreshToken = session.canRenew
        hasIDToken = session.idToken != nil
        version = session.version
    }

    /// Lines for a person: no token, ever.
    /// Every value from outside (claims, scope, token type) is escaped (``CLI/shown(_:)``).
    var text: String {
        let show = CLI.shown
        var lines = ["provider: \(show(provider))", "account:  \(show(account))"]
        if let user { lines.append("user:     \(show(user))\(email.map { " (\(show($0)))" } ?? "")") }
        if let expiresAt, let left = expiresInSeconds {
            lines.append("expires:  \(expiresAt) (\(left >= 0 ? "in \(left)s" : "expired \(-left)s ago"))")
        }
        if let scope { lines.append("scope:    \(show(scope))") }
        lines.append("tokens:   access (\(show(tokenType))) <redacted>\(hasIDToken ? ", id <redacted>" : "")\(hasRefreshToken ? ", refresh <redacted>" : "")")
        return lines.joined(separator: "\n")
    }
}

enum HubLoader {
    /// Every hub a command loaded: before the command exits 0, ``storeUnsavedSessions()`` writes back
    /// any renewed session a store refused (else the command fails, saying so).
    static let loaded = Mutex<[AuthHub]>([])

    /// Writes back every renewed session a loaded hub keeps only in memory; a one-line failure (and a
    /// non-zero exit) when a store still refuses one: a renewal that exists only in this process is
    /// lost when it exits, and with rotating refresh tokens the session with it.
    /// It also waits (bounded) for the background revocation of a session a sign-in replaced.
    static func storeUnsavedSessions() async {
        for hub in loaded.withLock({ $0 }) {
            do {
                try await hub.finishBackgroundWork()
            } catch {
                CLI.fail(AuthError.wrap(error).message + "; the renewal is lost when this command exits (sign in again if the next command says so)")
            }
        }
    }

    /// What every command that reads providers.json knows (`validate`, `schema` and `providers` too):
    /// every built-in provider plugin, the `postgres` session store (AuthHubPostgres's factory declares
    /// its fields and builds it) and the `async-http-client` transport (AuthHubAsyncHTTPClient builds it).
    static let registry = ProviderRegistry.builtIn.registering(storeFactory: PostgresSessionStoreFactory())
        .registering(transportFactory: AsyncHTTPClientTransportFactory())

    /// The hub of `providers.json`, or a one-line failure. Its transport is the one the environment
    /// names (`transport`, default `urlsession`), wrapped to say when a reply is slow on a terminal.
    /// - Parameter passkeyStore: the software passkey authenticator's credential directory, handed
    ///   to providers that sign in with a passkey (nil: no passkeys).
    static func load(_ options: GlobalOptions, passkeyStore: String? = nil) -> AuthHub {
        do {
            // The library's one loader: validation, `${VAR}`, the environment, the transport the file
            // names and relative store paths all resolve as for any app.
            let context = ProviderContext(passkeyAuthenticator: passkeyStore.map { CLIPasskeyAuthenticator(directory: $0) })
            let hub = try AuthHub.load(configPath: options.config, environment: options.env, registry: registry, context: context,
                                       wrapTransport: { WaitingNoticeTransport.isTerminal ? WaitingNoticeTransport($0) : $0 })
            loaded.withLock { $0.append(hub) }
            return hub
        } catch let error as AuthError {
            if let configuration = error.underlying as? ConfigurationError { fail(configuration, options) }
            CLI.fail(error.message)
        } catch {
            CLI.fail(AuthError.wrap(error).message)
        }
    }

    /// Fails with one line for a providers.json that does not load: the problem when there is one,
    /// else their count and where to see them.
    static func fail(_ error: ConfigurationError, _ options: GlobalOptions) -> Never {
        if error.problems.count == 1, let only = error.problems.first { CLI.fail("\(options.config): \(only)") }
        CLI.fail("\(options.config): \(error.problems.count) problems; run \(CLI.suggest("validate", options)) to list them")
    }

    /// Reads one line from standard input (piped or typed), without its newline. A `secret`
    /// (password, one-time or recovery code) is read with terminal echo off (``TerminalInput``).
    static func readLine(prompt: String?, secret: Bool = true) -> String? {
        TerminalInput.readLine(prompt: prompt, secret: secret)
    }
}
