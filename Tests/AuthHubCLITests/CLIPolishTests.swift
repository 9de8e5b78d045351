import AuthHub
import AuthHubEmulator
import Foundation
import Testing
@testable import authhub

/// What a newcomer meets first: `authhub token`, one wording for "not signed in", hints that repeat
/// the user's own `--env`/`--config`, `logout` without a session or offline, an expired session,
/// network errors that name the host, an unknown log level, the waiting notice.
@Suite struct CLIPolishTests {
    static let password = "correct horse battery staple"

    static func config(domain: String) -> String {
        """
        {"defaultEnvironment": "dev", "environments": {"dev": {"defaultProvider": "auth0",
          "sessionStore": {"type": "file", "path": "sessions"},
          "providers": [{"id": "auth0", "type": "auth0", "domain": "\(domain)",
                         "clientId": "authhub-cli", "connection": "Username-Password-Authentication"}]}}}
        """
    }

    /// An emulator with one user, and a directory whose providers.json points at it.
    static func signedOut() async throws -> (RunningEmulator, URL) {
        let emulator = try await Emulator.start()
        let wire = URLSessionTransport(defaultTimeout: .seconds(30))
        _ = try await wire.send(.post, emulator.url("/auth0/__emulator/users"), headerFields: [.contentType: "application/json"], body: Data(#"{"email":"new@example.com","password":"\#(password)"}"#.utf8))
        return (emulator, try AuthHubBinary.directory(withConfig: config(domain: emulator.url("/auth0").absoluteString)))
    }

    static func login(in directory: URL) async throws {
        let login = try await AuthHubBinary.runDetached(["login", "--email", "new@example.com", "--password-stdin"],
                                                        in: directory, stdin: password + "\n")
        #expect(login.status == 0, "\(login.stderr)")
    }

    static func stored(in directory: URL) async throws -> Session? {
        try await FileSessionStore(directory: directory.appendingPathComponent("sessions")).load(SessionKey(provider: "auth0"))
    }

    @Test func tokenPrintsOnlyAValidAccessTokenRenewedWhenNeeded() async throws {
        let (emulator, directory) = try await Self.signedOut()
        defer { Task { await emulator.stop() } }
        let before = try await AuthHubBinary.runDetached(["token"], in: directory)
        #expect(before.status != 0 && before.stdout.isEmpty)
        #expect(before.stderr == "error: not signed in to auth0 (account default); run `authhub login`\n", "\(before.stderr)")

        try await Self.login(in: directory)
        let stored = try #require(try await Self.stored(in: directory))
        let token = try await AuthHubBinary.runDetached(["token"], in: directory)
        #expect(token.status == 0 && token.stdout == stored.accessToken.revealed() + "\n", "only the token, as stored")
        #expect(token.stderr.isEmpty)

        // A token that expires within min-ttl (here: already expired) is renewed first, and the renewed one is stored.
        var expiring = stored
        expiring.expiresAt = Date().addingTimeInterval(30)
        let store = try FileSessionStore(directory: directory.appendingPathComponent("sessions"))
        let saved = try await store.save(expiring, for: SessionKey(provider: "auth0"), expectedVersion: stored.version)
        let renewed = try await AuthHubBinary.runDetached(["token", "--min-ttl", "60"], in: directory)
        let after = try #require(try await Self.stored(in: directory))
        #expect(after.version > saved.version)
        #expect(renewed.status == 0, "\(renewed.stderr)")
        #expect(after.version > stored.version && renewed.stdout == after.accessToken.revealed() + "\n")
        #expect(renewed.stdout != token.stdout)

        let bad = try await AuthHubBinary.runDetached(["token", "--min-ttl=-1"], in: directory)
        #expect(bad.status != 0 && bad.stderr.contains("--min-ttl"))
        let help = try await AuthHubBinary.runDetached(["token", "--help"], in: directory)
        #expect(help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ").contains("the one command that prints a token"))
    }

    @Test func hintsRepeatTheUsersEnvConfigProviderAndAccount() async throws {
        let (emulator, directory) = try await Self.signedOut()
        defer { Task { await emulator.stop() } }
        try FileManager.default.moveItem(at: directory.appendingPathComponent("providers.json"),
                                         to: directory.appendingPathComponent("other.json"))
        let session = try await AuthHubBinary.runDetached(["session", "--config", "other.json", "--env", "dev", "--account", "work"],
                                                          in: directory)
        #expect(session.stderr == "error: not signed in to auth0 (account work); run `authhub login --account work --env dev --config other.json`\n",
                "\(session.stderr)")
        let refresh = try await AuthHubBinary.runDetached(["refresh", "--config", "other.json", "--provider", "auth0"], in: directory)
        #expect(refresh.stderr == "error: not signed in to auth0 (account default); run `authhub login --provider auth0 --config other.json`\n",
                "\(refresh.stderr)")
        let mfa = try await AuthHubBinary.runDetached(["mfa", "list", "--config", "other.json"], in: directory)
        #expect(mfa.stderr.contains("not signed in to auth0 (account default); run `authhub login --config other.json`"), "\(mfa.stderr)")

        try Data(#"{"defaultEnvironment": "dev", "environments": {"dev": {"providers": [{"id": "a", "type": "nope"}, {"id": "a", "type": "auth0"}]}}}"#.utf8)
            .write(to: directory.appendingPathComponent("bad.json"))
        let broken = try await AuthHubBinary.runDetached(["session", "--config", "bad.json", "--env", "dev"], in: directory)
        #expect(broken.stderr.contains("run `authhub validate --env dev --config bad.json` to list them"), "\(broken.stderr)")
    }

    @Test func logoutSaysWhenThereIsNothingAndWarnsOnceWhenOffline() async throws {
        let (emulator, directory) = try await Self.signedOut()
        let nothing = try await AuthHubBinary.runDetached(["logout"], in: directory)
        #expect(nothing.status == 0 && nothing.stdout == "Not signed in to auth0 (account default); nothing to sign out.\n", "\(nothing.stdout)")

        try await Self.login(in: directory)
        await emulator.stop()
        let offline = try await AuthHubBinary.runDetached(["logout"], in: directory)
        #expect(offline.status == 0 && offline.stdout == "Signed out.\n")
        let warnings = offline.stderr.split(separator: "\n").filter { $0.lowercased().contains("warning") || $0.contains("revocation") }
        #expect(warnings.count == 1, "one warning, not two: \(offline.stderr)")
        #expect(offline.stderr.contains("127.0.0.1:\(emulator.port)"), "the warning names the host: \(offline.stderr)")
        #expect(try await Self.stored(in: directory) == nil)
    }

    @Test func anExpiredSessionSaysSoAndSuggestsRefresh() async throws {
        let (emulator, directory) = try await Self.signedOut()
        defer { Task { await emulator.stop() } }
        try await Self.login(in: directory)
        let store = try FileSessionStore(directory: directory.appendingPathComponent("sessions"))
        var session = try #require(try await Self.stored(in: directory))
        session.expiresAt = Date().addingTimeInterval(-120)
        _ = try await store.save(session, for: SessionKey(provider: "auth0"), expectedVersion: session.version)
        let shown = try await AuthHubBinary.runDetached(["session"], in: directory)
        #expect(shown.status == 0 && shown.stdout.contains("expired"))
        #expect(shown.stderr == "The session has expired; run `authhub refresh` to renew it.\n", "\(shown.stderr)")
    }

    @Test func networkErrorsNameTheHostAndAnUnknownLogLevelIsReported() async throws {
        let port = try await { () async throws -> Int in
            let emulator = try await Emulator.start()
            let port = emulator.port
            await emulator.stop()
            return Int(port)
        }()
        let directory = try AuthHubBinary.directory(withConfig: Self.config(domain: "http://127.0.0.1:\(port)/auth0"))
        let login = try await AuthHubBinary.runDetached(["login", "--email", "a@example.com", "--password-stdin"], in: directory,
                                                        environment: ["AUTHHUB_LOG_LEVEL": "loud"], stdin: "pw\n")
        #expect(login.status != 0)
        #expect(login.stderr.contains("could not be reached at 127.0.0.1:\(port)"), "\(login.stderr)")
        #expect(login.stderr.contains("warning: AUTHHUB_LOG_LEVEL=loud is not a log level"), "\(login.stderr)")
    }

    @Test func aSlowRequestSaysItIsWaitingOnce() async throws {
        let lines = Mutex<[String]>([])
        /// Answers only once the notice was written (or after 10 s), so a busy machine cannot make
        /// the request finish before the notice's delay.
        struct Slow: HTTPTransport {
            let lines: Mutex<[String]>
            func send(_ request: HTTPRequest, body: Data?, timeout: Duration?) async throws -> HTTPReply {
                for _ in 0..<1000 where lines.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(10)) }
                return HTTPReply(status: 200)
            }
        }
        struct Fast: HTTPTransport {
            func send(_ request: HTTPRequest, body: Data?, timeout: Duration?) async throws -> HTTPReply { HTTPReply(status: 200) }
        }
        let url = URL(string: "https://auth.example.com:8443/x?code=secret")!
        let write: @Sendable (String) -> Void = { line in lines.withLock { $0.append(line) } }
        _ = try await WaitingNoticeTransport(Slow(lines: lines), delay: .milliseconds(100), write: write).send(.get, url)
        _ = try await WaitingNoticeTransport(Fast(), delay: .milliseconds(100), write: write).send(.get, url)
        try await Task.sleep(for: .milliseconds(300))  // a notice for the fast request would have come by now
        #expect(lines.withLock { $0 } == ["Waiting for auth.example.com:8443…"])
    }
}
