import AuthHub
import AuthHubEmulator
import AuthHubOIDC
import AuthHubProviders
import AuthHubTesting
import AuthHubWebCore
import Crypto
import _CryptoExtras
import Foundation
import JWTKit
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `web.*` (issue 33, item 5): AuthHub's web adapters against what users of each framework write
/// today, as requests per second under the same load. Every server runs in this process on
/// 127.0.0.1 (one app per side, each on its own port, every route at `/api/page` answering "ok"),
/// and one `wrk` process drives one of them at a time with the same request bytes; a sample is one
/// wrk run against the baseline's app and one against the subject's, alternating (BENCHMARKS.md).
///
/// - `web.vapor.bearer.{cached,uncached}`: `AuthHubBearerAuthenticator` + `AuthHubGuardMiddleware`
///   against a route calling vapor/jwt's `req.jwt.verify(as:)`, the same RS256 token.
/// - `web.hummingbird.bearer.{cached,uncached}`: `AuthHubBearerMiddleware` against a middleware
///   calling jwt-kit's `JWTKeyCollection.verify` directly.
/// - `web.{vapor,hummingbird}.session`: a page behind the session authenticator/middleware (a
///   signed-in session cookie from the real sign-in routes, against the in-process emulator)
///   against the same page without it, the same cookie sent to both.
enum WebBenchmarks {
    static let bearerNames = ["web.vapor.bearer.cached", "web.vapor.bearer.uncached", "web.hummingbird.bearer.cached",
                              "web.hummingbird.bearer.uncached"]
    static let sessionNames = ["web.vapor.session", "web.hummingbird.session"] + ["vapor", "hummingbird"].flatMap {
        ["web.\($0).session.layers.web-vs-hub", "web.\($0).session.layers.hub-vs-open"]
    } + ["web.vapor.session.layers.req-auth-vs-open", "web.vapor.session.layers.web-vs-req-auth",
         "web.vapor.session.layers.vapor-sessions-vs-open", "web.vapor.session.layers.guard-middleware", "web.vapor.session.layers.authhub-vs-vapor-sessions"]
    /// The request path of every app.
    static let path = "/api/page"

    static func run(_ options: BenchOptions) async throws -> [Row] {
        let names = bearerNames + sessionNames
        guard names.contains(where: options.wants) else { return [] }
        guard let wrkPath = Spawn.which("wrk") else {
            return names.filter(options.wants).map {
                Row.skipped($0, target: $0.hasSuffix("session") ? "≥ 0.90×" : "≥ 1.00×",
                            reason: "wrk is not installed (Benchmarks/run installs Debian's wrk)")
            }
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authhub-bench-web-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: directory) }
        let load = WrkLoad(binary: wrkPath, directory: directory, seconds: options.quick ? 1 : 2)
        var rows: [Row] = []
        if bearerNames.contains(where: options.wants) {
            let fixture = try await BearerFixture.make()
            rows += try await VaporWebBenchmarks.bearer(options, fixture: fixture, load: load)
            rows += try await HummingbirdWebBenchmarks.bearer(options, fixture: fixture, load: load)
        }
        if sessionNames.contains(where: options.wants) {
            let emulator = try await Emulator.start()
            do {
                let sessions = try await SessionFixture.make(emulator: emulator)
                rows += try await VaporWebBenchmarks.session(options, sessions: sessions, load: load)
                rows += try await HummingbirdWebBenchmarks.session(options, sessions: sessions, load: load)
                await emulator.stop()
            } catch {
                await emulator.stop()
                throw error
            }
        }
        return rows
    }

    /// One row: `samples` pairs of wrk runs against the baseline's and the subject's app, alternating,
    /// after one warm-up run of each; every request must be answered 200 "ok" (checked once before,
    /// then wrk's socket errors and ≥ 400 statuses counted in every run: any fails the row).
    static func row(_ name: String, options: BenchOptions, load: WrkLoad, headers: [(String, String)],
                    subject: Int, baseline: Int, baselineText: String, target: Double?, note: String = "",
                    path: String = WebBenchmarks.path, baselineHeaders: [(String, String)]? = nil,
                    extraCheck: () -> String? = { nil }) async throws -> Row {
        let script = try load.script(name: name, headers: headers)
        // The same request bytes on both sides unless the baseline needs its own (another cookie).
        let baselineScript = try baselineHeaders.map { try load.script(name: name + ".baseline", headers: $0) } ?? script
        let subjectURL = "http://127.0.0.1:\(subject)\(path)", baselineURL = "http://127.0.0.1:\(baseline)\(path)"
        try await expectOK(subjectURL, headers: headers, what: "\(name): the subject")
        try await expectOK(baselineURL, headers: baselineHeaders ?? headers, what: "\(name): the baseline")
        let failures = Tally(), requests = Tally()
        // The server process's own CPU time per request (user + system, this process only: wrk is a
        // child), per run: what a request costs the server, whatever else the machine runs.
        let cpu = Mutex<(subject: [Double], baseline: [Double])>(([], []))
        func measure(_ url: String, subject: Bool) async throws -> Double {
            let before = processCPUSeconds()
            let result = try await load.run(url: url, script: subject ? script : baselineScript)
            let perRequest = (processCPUSeconds() - before) / max(result.requests, 1) * 1e6
            cpu.withLock { if subject { $0.subject.append(perRequest) } else { $0.baseline.append(perRequest) } }
            failures.add(result.errors)
            requests.add(Int(result.requests))
            return result.requestsPerSecond
        }
        let result = try await paired(samples: options.samples, baseline: { try await measure(baselineURL, subject: false) },
                                      subject: { try await measure(subjectURL, subject: true) })
        let ratio = result.ratios.median
        let (subjectCPU, baselineCPU) = cpu.withLock { (Samples(values: $0.subject).median, Samples(values: $0.baseline).median) }
        var notes = [String(format: "%.0f req/s against %.0f req/s (medians); server CPU per request %.1f µs against %.1f µs (medians); %d failed requests of %d",
                            result.subject.median, result.baseline.median, subjectCPU, baselineCPU, failures.value, requests.value)]
        if !note.isEmpty { notes.append(note) }
        var verdict = failures.value == 0 && ratio >= (target ?? 0) ? (target == nil ? "info" : "pass") : "MISS"
        if let problem = extraCheck() {
            notes.append(problem)
            verdict = "MISS"
        }
        return Row(name: name, median: result.subject.median, min: result.subject.min, max: result.subject.max, unit: "req/s",
                   perSecond: result.subject.median, baseline: baselineText, baselineMedian: result.baseline.median, ratio: ratio,
                   target: target.map { "≥ " + String(format: "%.2f", $0) + "× baseline req/s" } ?? "report", verdict: verdict, allocsPerOp: nil,
                   baselineAllocsPerOp: nil, note: notes.joined(separator: "; "))
    }

    /// One request with `headers` must be answered 200 with the body "ok".
    static func expectOK(_ address: String, headers: [(String, String)], what: String) async throws {
        guard let url = URL(string: address) else { throw BenchFailure("\(what): bad URL") }
        var fields = HTTPFields()
        for (name, value) in headers {
            guard let field = HTTPField.Name(name) else { throw BenchFailure("\(what): bad header name") }
            fields.append(HTTPField(name: field, value: value))
        }
        let reply = try await URLSessionTransport(defaultTimeout: .seconds(10), followRedirects: false).send(.get, url, headerFields: fields)
        guard reply.status == 200, reply.body == Data("ok".utf8) else {
            throw BenchFailure("\(what) answered HTTP \(reply.status), not 200 \"ok\"")
        }
    }
}

/// User + system CPU seconds this process has used (its threads, not its children).
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// A thread-safe counter.
final class Tally: Sendable {
    private let count = Mutex(0)
    func add(_ value: Int) { count.withLock { $0 += value } }
    var value: Int { count.withLock { $0 } }
}

// MARK: - wrk

/// Drives an app with Debian's `wrk`: 2 threads, 16 keep-alive connections, `seconds` per run, the
/// request's headers (the token, the cookie) set by a Lua script in a private temporary directory
/// (never on a command line, never printed), the totals written by the script's `done` hook.
struct WrkLoad: Sendable {
    let binary: String
    let directory: URL
    let seconds: Int
    let threads = 2
    let connections = 16

    struct Result: Sendable {
        var requests: Double
        var seconds: Double
        /// Socket errors (connect, read, write, timeout) and responses with a status ≥ 400.
        var errors: Int
        var requestsPerSecond: Double { seconds > 0 ? requests / seconds : 0 }
    }

    /// `text` as a Lua string literal.
    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// A script sending `headers` with every request, then `code` (Lua: a `request()` of its own,
    /// for one); returns its path.
    func script(name: String, headers: [(String, String)], code: String = "") throws -> String {
        var lines = headers.map { "wrk.headers[\(Self.quoted($0.0))] = \(Self.quoted($0.1))" }
        if !code.isEmpty { lines.append(code) }
        lines.append("""
            done = function(summary, latency, requests)
              local e = summary.errors
              io.write(string.format("authhub-wrk %.0f %.0f %.0f %.0f %.0f %.0f %.0f\\n", summary.requests, summary.duration,
                e.connect, e.read, e.write, e.status, e.timeout))
            end
            """)
        let path = directory.appendingPathComponent(name + ".lua").path
        guard FileManager.default.createFile(atPath: path, contents: Data(lines.joined(separator: "\n").utf8),
                                             attributes: [.posixPermissions: 0o600]) else {
            throw BenchFailure("could not write the wrk script")
        }
        return path
    }

    /// One run against `url`.
    func run(url: String, script: String) async throws -> Result {
        let out = directory.appendingPathComponent("wrk-out.txt").path
        let status = await Spawn.runSuspending([binary, "--threads", "\(threads)", "--connections", "\(connections)",
                                                "--duration", "\(seconds)s", "--timeout", "5s", "--script", script, url], stdout: out)
        let text = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
        guard status == 0, let line = text.split(separator: "\n").first(where: { $0.hasPrefix("authhub-wrk ") }) else {
            throw BenchFailure("wrk failed (exit status \(status))")
        }
        let numbers = line.split(separator: " ").dropFirst().compactMap { Double($0) }
        guard numbers.count == 7 else { throw BenchFailure("wrk's summary could not be read") }
        return Result(requests: numbers[0], seconds: numbers[1] / 1_000_000, errors: Int(numbers[2...].reduce(0, +)))
    }
}

// MARK: - Fixtures

/// The access token's claims as the peers (vapor/jwt, jwt-kit) verify them: the same checks as
/// AuthHub's `AccessTokenVerifier` makes with `requiredScopes: ["read:things"]` — the signature
/// (jwt-kit: the header's `alg` and `kid` against the key), `iss`, `aud`, `exp` and `nbf` with
/// AuthHub's 60 s leeway, `iat` a date (decoding), and the scope.
struct PeerAccessClaims: JWTPayload {
    static let issuer = "https://issuer.bench.invalid/"
    static let audience = "https://api.bench.invalid"
    static let requiredScope = "read:things"

    var iss: IssuerClaim
    var sub: SubjectClaim
    var aud: AudienceClaim
    var exp: ExpirationClaim
    var iat: IssuedAtClaim?
    var nbf: NotBeforeClaim?
    var scope: String?

    func verify(using algorithm: some JWTAlgorithm) async throws {
        let now = Date()
        try exp.verifyNotExpired(currentDate: now.addingTimeInterval(-60))
        if let nbf { try nbf.verifyNotBefore(currentDate: now.addingTimeInterval(60)) }
        guard iss.value == Self.issuer else { throw JWTError.claimVerificationFailure(failedClaim: iss, reason: "another issuer") }
        try aud.verifyIntendedAudience(includes: Self.audience)
        guard let scope, scope.split(separator: " ").contains(where: { $0 == Self.requiredScope }) else {
            throw JWTError.claimVerificationFailure(failedClaim: nil, reason: "missing scope")
        }
    }
}

/// One RS256 access token (2048-bit key, `kid`), its JWKS, and AuthHub's verifier of it with the
/// JWKS cached (fetched once from a fixed document).
struct BearerFixture: Sendable {
    /// The token; never printed.
    let token: String
    let jwks: String
    let verifier: AccessTokenVerifier

    static func make() async throws -> BearerFixture {
        let backing = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let privateKey = try Insecure.RSA.PrivateKey(backing: backing)
        let primitives = try privateKey.publicKey.getKeyPrimitives()
        let jwks = """
            {"keys":[{"kty":"RSA","kid":"bench-key","use":"sig","alg":"RS256","n":"\(base64url(primitives.modulus))","e":"\(base64url(primitives.publicExponent))"}]}
            """
        let signer = JWTKeyCollection()
        await signer.add(rsa: privateKey, digestAlgorithm: .sha256, kid: "bench-key")
        let now = Date()
        let token = try await signer.sign(BenchAccessClaims(iss: IssuerClaim(value: PeerAccessClaims.issuer), sub: "bench-user",
                                                            aud: AudienceClaim(value: PeerAccessClaims.audience),
                                                            exp: ExpirationClaim(value: now.addingTimeInterval(24 * 3600)),
                                                            iat: IssuedAtClaim(value: now), scope: PeerAccessClaims.requiredScope),
                                          kid: "bench-key")
        guard let base = URL(string: PeerAccessClaims.issuer) else { throw BenchFailure("bad issuer URL") }
        let api = APIClient(provider: "bench", baseURL: base, transport: FixedDocumentTransport(body: Data(jwks.utf8)))
        let verifier = AccessTokenVerifier(issuer: PeerAccessClaims.issuer, audience: PeerAccessClaims.audience,
                                           keys: JWKSCache(jwksURI: PeerAccessClaims.issuer + "jwks", api: api), clock: SystemClock())
        _ = try await verifier.verify(Secret(token))  // fetches the JWKS once
        return BearerFixture(token: token, jwks: jwks, verifier: verifier)
    }

    /// AuthHub's authenticator of the token: scope `read:things` required; its verified-token cache
    /// on (the default capacity) or off (`verifiedTokenCapacity: 0`).
    func authenticator(cached: Bool) -> BearerTokenAuthenticator {
        BearerTokenAuthenticator(verifiers: ["bench": verifier], requiredScopes: [PeerAccessClaims.requiredScope],
                                 verifiedTokenCapacity: cached ? BearerTokenAuthenticator.defaultVerifiedTokenCapacity : 0)
    }

    /// The request headers of the bearer rows (both sides).
    var headers: [(String, String)] { [("Authorization", "Bearer " + token)] }
}

/// The emulator's Auth0 tenant with one user; a hub per framework signs in through its app's routes.
struct SessionFixture: Sendable {
    let emulator: RunningEmulator
    let email = "web-bench@example.com"
    static let emulatorUser = HTTPField.Name("X-AuthHub-Emulator-User")

    static func make(emulator: RunningEmulator) async throws -> SessionFixture {
        let fixture = SessionFixture(emulator: emulator)
        let seeded = try await URLSessionTransport(defaultTimeout: .seconds(10))
            .send(.post, emulator.url("/auth0/__emulator/users"), headerFields: [.contentType: "application/json"],
                  body: Data(#"{"email":"\#(fixture.email)","password":"correct horse battery staple"}"#.utf8))
        guard seeded.status == 201 else { throw BenchFailure("the emulator did not take the user (HTTP \(seeded.status))") }
        return fixture
    }

    /// A hub on the emulator's Auth0 tenant (in-memory store), its requests counted by `transport`.
    func hub(transport: CountingTransport) throws -> AuthHub {
        let config = """
            {"defaultEnvironment": "bench", "environments": {"bench": {"defaultProvider": "auth0", "sessionStore": {"type": "memory"},
              "providers": [{"id": "auth0", "type": "auth0", "domain": "\(emulator.url("/auth0").absoluteString)", "clientId": "authhub-web"}]}}}
            """
        let environment = try ConfigLoader(registry: .builtIn, environmentVariables: [:])
            .load(data: Data(config.utf8), environment: "bench", file: "<bench>")
        return try AuthHub(environment: environment, registry: .builtIn, context: ProviderContext(transport: transport))
    }

    /// The web configuration of an app listening on `port` (plain-HTTP loopback: development cookies).
    static func configuration(port: Int) throws -> WebSignInConfiguration {
        guard let base = URL(string: "http://127.0.0.1:\(port)") else { throw BenchFailure("bad app URL") }
        return WebSignInConfiguration(publicBaseURL: base)
    }

    /// Signs in through the app's own routes as a browser would: `GET /auth/login` (the pre-session
    /// cookie), the emulator's authorize endpoint approving the user (`X-AuthHub-Emulator-User`),
    /// `GET /auth/callback` (the session cookie). Returns the session cookie's value.
    func signIn(appPort port: Int, cookieName: String) async throws -> String {
        guard let base = URL(string: "http://127.0.0.1:\(port)"),
              let login = URL(string: "http://127.0.0.1:\(port)/auth/login?provider=auth0&returnTo=\(WebBenchmarks.path)"),
              let userField = Self.emulatorUser else { throw BenchFailure("bad sign-in URL") }
        let browser = CookieBrowser()
        let started = try await browser.send(.get, login)
        guard started.status == 302, let authorize = started.headerFields[.location].flatMap({ URL(string: $0) }) else {
            throw BenchFailure("sign-in: /auth/login answered HTTP \(started.status)")
        }
        let approved = try await browser.transport.send(.get, authorize, headerFields: [userField: email])
        guard approved.status == 302, let callback = approved.headerFields[.location].flatMap({ URL(string: $0, relativeTo: authorize)?.absoluteURL }),
              callback.port == port else {
            throw BenchFailure("sign-in: the emulator's authorize endpoint answered HTTP \(approved.status)")
        }
        let finished = try await browser.send(.get, callback)
        guard finished.status == 302, let cookie = browser.cookie(cookieName, for: base), !cookie.isEmpty else {
            throw BenchFailure("sign-in: /auth/callback answered HTTP \(finished.status) without a session cookie")
        }
        return cookie
    }
}
