import ArgumentParser
import AuthHub
import Foundation
import HTTPTypes

/// `authhub session`: the stored session, with every token redacted.
struct SessionCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "session", abstract: "Show the stored session (tokens are never printed).")

    @OptionGroup var options: GlobalOptions
    @OptionGroup var session: SessionOptions

    @Flag(name: .long, help: "Print the session summary as JSON.")
    var json = false

    func run() async throws {
        let hub = HubLoader.load(options)
        do {
            let manager = try hub.manager(provider: session.provider, account: session.account)
            guard let stored = try await manager.current() else { CLI.failNotSignedIn(manager.key, options, session) }
            let summary = SessionSummary(stored, now: Date())
            CLI.out(json ? CLI.json(summary) : summary.text)
            if let left = summary.expiresInSeconds, left < 0 {
                CLI.stderr("The session has expired; run " + CLI.suggest(stored.canRenew ? "refresh" : "login", options, session)
                           + (stored.canRenew ? " to renew it." : " to sign in again (it cannot be renewed)."))
            }
        } catch {
            CLI.fail(AuthError.wrap(error).message)
        }
    }
}

/// `authhub refresh`: renews the stored session now.
struct RefreshCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refresh", abstract: "Renew the stored session with its refresh token.")

    @OptionGroup var options: GlobalOptions
    @OptionGroup var session: SessionOptions

    @Flag(name: .long, help: "Print the renewed session summary as JSON.")
    var json = false

    func run() async throws {
        let hub = HubLoader.load(options)
        do {
            let renewed = try await hub.refresh(provider: session.provider, account: session.account)
            // "Session renewed." only once the renewal is stored (else a one-line failure, non-zero).
            await HubLoader.storeUnsavedSessions()
            let summary = SessionSummary(renewed, now: Date())
            CLI.out(json ? CLI.json(summary) : "Session renewed.\n" + summary.text)
        } catch let error as AuthError where error.code == .noSession {
            CLI.failNotSignedIn(try hub.manager(provider: session.provider, account: session.account).key, options, session)
        } catch {
            CLI.fail(AuthError.wrap(error).message)
        }
    }
}

/// `authhub token`: prints the stored session's access token, renewed first when it expires within
/// `--min-ttl` — the one command meant to print a token, for scripts.
struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Print a valid access token (renewed first when needed) — the one command that prints a token.",
        discussion: """
            For scripts: curl -H "Authorization: Bearer $(authhub token)" https://api.example.com/. \
            The token is renewed first when it expires within --min-ttl seconds; concurrent invocations, \
            here or in other processes sharing the session store, renew it once. Only the token goes to \
            standard output; keep it out of logs and shell history. With --url (and --method, GET by \
            default) it prints the request's header lines instead — Authorization and, for a DPoP-bound \
            session (RFC 9449), a DPoP proof made for that method and URL — for curl's -H @-: \
            authhub token --method POST --url https://api.example.com/v1/things | curl -H @- -X POST https://api.example.com/v1/things
            """)

    @OptionGroup var options: GlobalOptions
    @OptionGroup var session: SessionOptions

    @Option(name: .long, help: "Renew first when the token expires within this many seconds (0…86400).")
    var minTTL: Int = 60

    @Option(name: .long, help: "Print the header lines for a request to this URL (Authorization, and DPoP for a DPoP-bound session).")
    var url: String?

    @Option(name: .long, help: "The request's method, with --url (default GET).")
    var method: String?

    func validate() throws {
        guard (0...86_400).contains(minTTL) else { throw ValidationError("--min-ttl must be between 0 and 86400 seconds.") }
        if method != nil, url == nil { throw ValidationError("--method goes with --url.") }
        if let method, method.isEmpty || method.utf8.count > 32 || !TokenSyntax.isTokenType(method) {
            throw ValidationError("--method must be an HTTP method such as GET or POST.")
        }
        if let url, Self.requestURL(url) == nil {
            throw ValidationError("--url must be an absolute http(s) URL with a host (http only for a loopback host).")
        }
    }

    /// An absolute http(s) URL with a host; http only for a loopback host (a token is not sent in the clear).
    static func requestURL(_ text: String) -> URL? {
        guard text.utf8.count <= 8_192, let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty,
              scheme == "https" || (scheme == "http" && ConfigValueFormat.isSecureOrLoopback(text)) else { return nil }
        return url
    }

    func run() async throws {
        let hub = HubLoader.load(options)
        do {
            let manager = try hub.manager(provider: session.provider, account: session.account)
            guard try await manager.current() != nil else { CLI.failNotSignedIn(manager.key, options, session) }
            let valid = try await manager.session(minTTL: TimeInterval(minTTL))
            // Renewed tokens are checked before they are stored; this refuses one stored before that
            // check existed (a CR/LF would add a header to `curl -H "Authorization: Bearer $(authhub token)"`).
            guard TokenSyntax.isVisibleASCII(valid.accessToken.revealed()), !valid.accessToken.isEmpty else {
                CLI.fail("the stored access token is not a visible-ASCII string, so it is not printed; run "
                         + CLI.suggest("login", options, session) + " to sign in again")
            }
            await HubLoader.storeUnsavedSessions()
            if let url, let target = Self.requestURL(url) {
                let method = HTTPRequest.Method(method?.uppercased() ?? "GET") ?? .get
                let fields = try valid.authorizationHeaders(method: method, url: target, nonce: hub.context.dpopNonces.nonce(for: target),
                                                            now: hub.context.clock.now, random: hub.context.random)
                for field in fields { CLI.stdoutLine(field.name.rawName + ": " + field.value) }
                return
            }
            if valid.isDPoPBound {
                CLI.stderr("note: this token is DPoP-bound: each request also needs a proof; use --url (and --method) to print both headers")
            }
            CLI.stdoutLine(valid.accessToken.revealed())
        } catch let error as AuthError where error.code == .noSession {
            CLI.failNotSignedIn(try hub.manager(provider: session.provider, account: session.account).key, options, session)
        } catch let error as AuthError where error.code == .sessionExpired || error.code == .refreshTokenInvalid {
            CLI.fail(error.message + "; run " + CLI.suggest("login", options, session))
        } catch {
            CLI.fail(AuthError.wrap(error).message)
        }
    }
}

/// `authhub logout`: revokes (where the provider can) and removes the stored session; with
/// `--browser` also ends the provider's browser session (Auth0.swift's `clearSession()`: Auth0
/// `/v2/logout` without `federated`), with `--federated` the upstream identity provider's too
/// (`clearSession(federated: true)`).
struct LogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout", abstract: "Sign out: revoke the refresh token at the provider and remove the stored session.",
        discussion: """
            --browser also ends the provider's browser session (single sign-on), so that the next browser \
            sign-in asks for credentials again: it opens the provider's logout URL (Auth0 /v2/logout; OpenID \
            RP-Initiated Logout), or prints it with --no-open. --federated does the same and, with Auth0, \
            also signs out of the upstream identity provider (/v2/logout?federated).
            """)

    @OptionGroup var options: GlobalOptions
    @OptionGroup var session: SessionOptions

    @Flag(name: .long, help: "Also end the provider's browser session (opens its logout URL).") var browser = false
    @Flag(name: .long, help: "Also end the provider's browser session and the upstream identity provider's (Auth0 federated).")
    var federated = false
    @Flag(name: .long, help: "With --browser or --federated: print the logout URL instead of opening a browser.") var noOpen = false
    @Option(name: .long, help: "With --browser or --federated: where the provider sends the browser afterwards (a registered URL).")
    var returnTo: String?

    /// Whether the provider's browser session is ended too.
    var endsBrowserSession: Bool { browser || federated }

    func validate() throws {
        if !endsBrowserSession && (noOpen || returnTo != nil) {
            throw ValidationError("--no-open and --return-to go with --browser or --federated.")
        }
        if let returnTo, URL(string: returnTo)?.scheme == nil { throw ValidationError("--return-to takes an absolute URL.") }
    }

    func run() async throws {
        let hub = HubLoader.load(options)
        do {
            let manager = try hub.manager(provider: session.provider, account: session.account)
            var unreadable = false
            do {
                if try await manager.current() == nil && !endsBrowserSession {
                    CLI.out("Not signed in to \(manager.key.provider) (account \(manager.key.account)); nothing to sign out.")
                    return
                }
            } catch let error as AuthError where error.code == .storageFailure {
                unreadable = true
            }
            let browserSignOut = endsBrowserSession
                ? BrowserSignOut(returnTo: returnTo.flatMap(URL.init(string:)), federated: federated) : nil
            let result = try await hub.signOut(provider: session.provider, account: session.account, browser: browserSignOut)
            if let problem = result.revocationError {
                CLI.stderr(unreadable
                    ? "warning: the stored session could not be read (\(problem.message)); it was removed without revocation"
                    : "warning: the provider could not revoke the session (\(problem.message)); it was removed locally")
            }
            if let url = result.browserSignOutURL {
                BrowserOpener.show(url, noOpen: noOpen, purpose: "to end the provider's browser session")
            }
            CLI.out(result.hadSession ? "Signed out." : "Not signed in to \(manager.key.provider) (account \(manager.key.account)); "
                  + "ending the provider's browser session only.")
        } catch {
            CLI.fail(AuthError.wrap(error).message)
        }
    }
}
