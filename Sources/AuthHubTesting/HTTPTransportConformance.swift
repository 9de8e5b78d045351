import AuthHub
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Checks that an ``HTTPTransport`` behaves as AuthHub's transports do, over real HTTP on
/// 127.0.0.1 (``ScriptedUpstream``): failures below HTTP classified into ``TransportError`` kinds,
/// a total deadline, prompt cancellation, the reply-body cap (compressed replies included: a gzip bomb
/// is refused or cut at the cap, never inflated into memory), AuthHub's redirect rules (a request with
/// a body follows no redirect; credentials never go to another origin), faithful
/// status, header fields and bodies, and no secret in any error.
///
/// `URLSessionTransport` and `AsyncHTTPClientTransport` both run it, so they cannot drift apart; a
/// third-party transport can run it too. Framework-agnostic, like ``SessionStoreConformance``:
///
/// ```swift
/// let suite = HTTPTransportConformance { settings in
///     MyTransport(defaultTimeout: settings.defaultTimeout, followRedirects: settings.followRedirects,
///                 maxResponseBytes: settings.maxResponseBytes)
/// }
/// #expect(await suite.run().isEmpty)
/// ```
///
/// Each failure reads `[check] what went wrong`. The checks measure time with generous upper
/// bounds (a loaded 2-core machine schedules slowly); what they tell apart is a deadline kept from
/// one that is not (seconds against minutes), not milliseconds.
public struct HTTPTransportConformance: Sendable {
    /// What a check asks of the transport it makes.
    public struct Settings: Sendable, Hashable {
        /// The timeout of requests sent without one.
        public var defaultTimeout: Duration
        /// Whether 3xx replies are followed.
        public var followRedirects: Bool
        /// The reply-body cap.
        public var maxResponseBytes: Int

        /// Settings for one transport; the defaults are what most checks use (a 64 KiB cap, so that
        /// cap checks stay small).
        public init(defaultTimeout: Duration = .seconds(60), followRedirects: Bool = true, maxResponseBytes: Int = 64 * 1024) {
            self.defaultTimeout = defaultTimeout
            self.followRedirects = followRedirects
            self.maxResponseBytes = maxResponseBytes
        }
    }

    /// Makes transports for the checks.
    struct Maker: Sendable {
        let make: @Sendable (Settings) throws -> any HTTPTransport
        func callAsFunction(_ settings: Settings = Settings()) throws -> any HTTPTransport { try make(settings) }
    }

    private let makeTransport: @Sendable (Settings) throws -> any HTTPTransport
    private let timeout: Duration

    /// Creates the suite.
    /// - Parameters:
    ///   - timeout: the longest any one check may take before it is reported as hung.
    ///   - makeTransport: a transport with these settings (it may be called several times per check).
    public init(timeout: Duration = .seconds(120), makeTransport: @escaping @Sendable (Settings) throws -> any HTTPTransport) {
        self.makeTransport = makeTransport
        self.timeout = timeout
    }

    /// The names of every check, in the order ``run(only:)`` runs them.
    public static var checkNames: [String] { checks.map(\.name) }

    /// Runs every check (or those named in `only`) one after another.
    /// - Returns: one description per failed expectation, `[check] message`; empty when the transport conforms.
    public func run(only: Set<String>? = nil) async -> [String] {
        let make = makeTransport
        return await ConformanceRunner.runChecks(Self.checks.map { ($0.name, $0.body) }, only: only, timeout: timeout) { Maker(make: make) }
    }

    // MARK: Checks

    private struct Check: Sendable {
        var name: String
        var body: @Sendable (Maker) async throws -> [String]
    }

    private static let checks: [Check] = [
        Check(name: "refusedConnectionIsConnection", body: refusedConnectionIsConnection),
        Check(name: "resetOrClosedConnectionIsConnection", body: resetOrClosedConnectionIsConnection),
        Check(name: "tlsFailureIsTLS", body: tlsFailureIsTLS),
        Check(name: "silentServerTimesOutAtTheDeadline", body: silentServerTimesOutAtTheDeadline),
        Check(name: "deadlineIsTotalNotPerRead", body: deadlineIsTotalNotPerRead),
        Check(name: "deadlineSpansRedirects", body: deadlineSpansRedirects),
        Check(name: "cancelledBeforeSendingIsCancelled", body: cancelledBeforeSendingIsCancelled),
        Check(name: "cancelledWhileWaitingIsCancelled", body: cancelledWhileWaitingIsCancelled),
        Check(name: "declaredLengthOverTheCapIsRefused", body: declaredLengthOverTheCapIsRefused),
        Check(name: "streamedBodyOverTheCapIsCutOff", body: streamedBodyOverTheCapIsCutOff),
        Check(name: "bodyAtTheCapArrivesWhole", body: bodyAtTheCapArrivesWhole),
        Check(name: "redirectMethodRules", body: redirectMethodRules),
        Check(name: "credentialsStayOnTheirOrigin", body: credentialsStayOnTheirOrigin),
        Check(name: "bodyFollowsNoRedirect", body: bodyFollowsNoRedirect),
        Check(name: "compressedReplyIsNotInflated", body: compressedReplyIsNotInflated),
        Check(name: "redirectsReturnedWhenNotFollowing", body: redirectsReturnedWhenNotFollowing),
        Check(name: "redirectLoopEnds", body: redirectLoopEnds),
        Check(name: "roundTripKeepsStatusFieldsAndBody", body: roundTripKeepsStatusFieldsAndBody),
        Check(name: "authenticationChallengeIsAnOrdinaryReply", body: authenticationChallengeIsAnOrdinaryReply),
        Check(name: "headAndEmptyBodies", body: headAndEmptyBodies),
        Check(name: "errorsHoldNoSecrets", body: errorsHoldNoSecrets),
    ]

    /// The most redirects a transport follows (as `URLSessionTransport`).
    static let maxRedirects = URLSessionTransport.maxRedirects

    // MARK: Connection failures

    @Sendable private static func refusedConnectionIsConnection(_ make: Maker) async throws -> [String] {
        let refusing = try RefusingPort()
        defer { withExtendedLifetime(refusing) {} }
        let port = refusing.port
        let url = try absolute("http://127.0.0.1:\(port)/health")
        let started = ContinuousClock.now
        let outcome = await attempt { try await make(Settings(defaultTimeout: .seconds(30))).send(.get, url) }
        var f = expect(outcome, .connection, "GET to a port nothing listens on")
        if ContinuousClock.now - started > .seconds(45) {
            f.append("a refused connection took \(ContinuousClock.now - started) to report (it is known at once; was it retried until the deadline?)")
        }
        return f
    }

    @Sendable private static func resetOrClosedConnectionIsConnection(_ make: Maker) async throws -> [String] {
        var f: [String] = []
        for script in [ScriptedUpstream.Script.reset, .close] {
            let upstream = try ScriptedUpstream { _ in script }
            defer { upstream.stop() }
            let outcome = await attempt { try await make().send(.get, upstream.baseURL.appendingPathComponent("x")) }
            f += expect(outcome, .connection, "a connection \(script.label) without a reply")
        }
        return f
    }

    @Sendable private static func tlsFailureIsTLS(_ make: Maker) async throws -> [String] {
        // A server that answers plain HTTP the moment a client connects: no TLS handshake can succeed.
        let server = try GreetingServer(Data("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".utf8))
        defer { server.stop() }
        let url = try absolute("https://127.0.0.1:\(server.port)/token")
        let outcome = await attempt { try await make(Settings(defaultTimeout: .seconds(30))).send(.get, url) }
        return expect(outcome, .tls, "https:// to a server that speaks plain HTTP")
    }

    // MARK: Deadlines

    @Sendable private static func silentServerTimesOutAtTheDeadline(_ make: Maker) async throws -> [String] {
        let upstream = try ScriptedUpstream { _ in .silent }
        defer { upstream.stop() }
        let transport = try make(Settings(defaultTimeout: .milliseconds(500)))
        let started = ContinuousClock.now
        // No timeout of its own: the transport's default applies.
        let outcome = await attempt { try await transport.send(.post, upstream.baseURL.appendingPathComponent("token"), body: Data("a=b".utf8)) }
        let elapsed = ContinuousClock.now - started
        var f = expect(outcome, .timeout, "a silent server with a 0.5 s default timeout")
        if elapsed < .milliseconds(450) { f.append("timed out after \(elapsed), before the 0.5 s deadline") }
        // Generous: a 2-core machine running the whole suite has delayed a 0.4 s timeout to 37 s.
        if elapsed > .seconds(50) { f.append("a 0.5 s deadline took \(elapsed) to report") }
        return f
    }

    @Sendable private static func deadlineIsTotalNotPerRead(_ make: Maker) async throws -> [String] {
        // A byte every 300 ms for 30 s: never idle long, so only a total deadline stops it. The bound
        // is far above 0.8 s because a 2-core machine running the whole suite has delayed such
        // timers by many seconds (17.6 s seen with a 15 s trickle), yet below the 30 s that a
        // per-read deadline would take. (Not longer: a transport that lets the trickle run, like the
        // suite's own broken one, keeps a connection of FoundationNetworking's process-wide pool
        // meanwhile, and a run with 60 s trickles saw other suites' loopback requests miss their
        // 2 s deadlines — suspected, not proven, to be the cause.)
        let upstream = try ScriptedUpstream { _ in .trickle(count: 100, interval: .milliseconds(300)) }
        defer { upstream.stop() }
        let started = ContinuousClock.now
        // A control timer of the same 0.8 s, timed from the same instant: when every task of the
        // process is held up (a full parallel run on 2 cores stalled them for ~30 s at times), it is
        // late by as much, and that lateness is not the transport's.
        let control = Task { () -> Duration in
            try? await Task.sleep(for: .milliseconds(800))
            return ContinuousClock.now - started
        }
        let outcome = await attempt { try await make().send(.get, upstream.baseURL.appendingPathComponent("slow"), timeout: .milliseconds(800)) }
        let elapsed = ContinuousClock.now - started
        let stall = max(.zero, await control.value - .milliseconds(800))
        var f = expect(outcome, .timeout, "a body trickling for 30 s with a 0.8 s timeout")
        if elapsed - stall > .seconds(25) {
            f.append("a 0.8 s deadline ended after \(elapsed) (a 0.8 s timer was \(stall) late): it was applied per read, not to the whole exchange")
        }
        return f
    }

    @Sendable private static func deadlineSpansRedirects(_ make: Maker) async throws -> [String] {
        // Every hop answers after 0.3 s with a redirect to the next: 11 hops would take 3.3 s.
        let upstream = try ScriptedUpstream { request in
            Thread.sleep(forTimeInterval: 0.3)
            let hop = Int(request.path.dropFirst("/hop".count)) ?? 0
            return .reply(status: 302, headers: [("Location", "/hop\(hop + 1)")])
        }
        defer { upstream.stop() }
        let started = ContinuousClock.now
        let outcome = await attempt { try await make().send(.get, upstream.baseURL.appendingPathComponent("hop0"), timeout: .seconds(1)) }
        let elapsed = ContinuousClock.now - started
        var f = expect(outcome, .timeout, "redirect hops of 0.3 s each with a 1 s timeout")
        if upstream.requests.count > 6 {
            f.append("\(upstream.requests.count) hops were sent within a 1 s deadline of 0.3 s hops: each hop got a deadline of its own")
        }
        if elapsed > .seconds(45) { f.append("a 1 s deadline over redirects took \(elapsed)") }
        return f
    }

    // MARK: Cancellation

    @Sendable private static func cancelledBeforeSendingIsCancelled(_ make: Maker) async throws -> [String] {
        let upstream = try ScriptedUpstream { _ in .silent }
        defer { upstream.stop() }
        let transport = try make()
        let url = upstream.baseURL.appendingPathComponent("slow")
        let started = ContinuousClock.now
        let request = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await transport.send(.get, url, timeout: .seconds(600))
        }
        let outcome = Outcome(await request.result)
        var f = expect(outcome, .cancelled, "a send from a task cancelled before it started")
        if ContinuousClock.now - started > .seconds(120) { f.append("cancellation took \(ContinuousClock.now - started) against a 600 s deadline") }
        return f
    }

    @Sendable private static func cancelledWhileWaitingIsCancelled(_ make: Maker) async throws -> [String] {
        let upstream = try ScriptedUpstream { _ in .silent }
        defer { upstream.stop() }
        let transport = try make()
        let url = upstream.baseURL.appendingPathComponent("slow")
        let request = Task { try await transport.send(.get, url, timeout: .seconds(600)) }
        // Cancel once the server holds the request (a bounded wait for that, not a sleep for timing).
        // The bound counts only time this task was running: when Swift's cooperative threads are all
        // blocked (a test elsewhere calling a blocking function from a task), neither this loop nor
        // the request's task runs, and a wall-clock bound would blame the transport for it.
        var waited = Duration.zero
        var longestStall = Duration.zero
        while upstream.requests.isEmpty, waited < .seconds(30) {
            let before = ContinuousClock.now
            try await Task.sleep(for: .milliseconds(10))
            let slept = ContinuousClock.now - before
            longestStall = max(longestStall, slept)
            waited += min(slept, .milliseconds(100))
        }
        if upstream.requests.isEmpty {
            request.cancel()
            return ["the request never reached the server (this task's longest pause for a 10 ms sleep: \(longestStall))"]
        }
        let started = ContinuousClock.now
        request.cancel()
        let outcome = Outcome(await request.result)
        var f = expect(outcome, .cancelled, "a send cancelled while the server holds the request")
        if ContinuousClock.now - started > .seconds(120) { f.append("cancellation took \(ContinuousClock.now - started) against a 600 s deadline") }
        return f
    }

    // MARK: Body cap

    @Sendable private static func declaredLengthOverTheCapIsRefused(_ make: Maker) async throws -> [String] {
        let upstream = try ScriptedUpstream { _ in .endless(declaredLength: 10 << 30, limit: 8 << 20) }
        defer { upstream.stop() }
        let outcome = await attempt { try await make().send(.get, upstream.baseURL.appendingPathComponent("x")) }
        return expect(outcome, .responseTooLarge, "a Content-Length of 10 GiB against a 64 KiB cap")
    }

    @Sendable private static func streamedBodyOverTheCapIsCutOff(_ make: Maker) async throws -> [String] {
        var f: [String] = []
        for status in [200, 500] {
            let upstream = try ScriptedUpstream { _ in .endless(status: status, limit: 8 << 20) }
            defer { upstream.stop() }
            let outcome = await attempt { try await make().send(.get, upstream.baseURL.appendingPathComponent("x")) }
            f += expect(outcome, .responseTooLarge, "a chunked \(status) body of unknown length past a 64 KiB cap")
        }
        return f
    }

    @Sendable private static func bodyAtTheCapArrivesWhole(_ make: Maker) async throws -> [String] {
        var f: [String] = []
        let body = Data((0..<(64 * 1024)).map { UInt8(truncatingIfNeeded: $0 * 7) })
        let upstream = try ScriptedUpstream { request in
            .reply(status: 200, body: request.path == "/over" ? body + Data([0x61]) : body)
        }
        defer { upstream.stop() }
        let transport = try make()
        switch await attempt({ try await transport.send(.get, upstream.baseURL.appendingPathComponent("exact")) }) {
        case .reply(let reply): if reply.body != body { f.append("a body of exactly the cap arrived as \(reply.body.count) different bytes") }
        case .failure(let error): f.append("a body of exactly the cap failed: \(error)")
        }
        f += expect(await attempt { try await transport.send(.get, upstream.baseURL.appendingPathComponent("over")) }, .responseTooLarge,
                    "a body one byte over the cap")
        return f
    }

    // MARK: Redirects

    @Sendable private static func redirectMethodRules(_ make: Maker) async throws -> [String] {
        let upstream = try ScriptedUpstream { request in
            if let status = Int(request.path.dropFirst()), (300...399).contains(status) {
                return .reply(status: status, headers: [("Location", "/target")])
            }
            let echo = "\(request.method) body=\(request.body.count) type=\(request.headers["content-type"] ?? "-")"
            return .reply(status: 200, body: Data(echo.utf8))
        }
        defer { upstream.stop() }
        let transport = try make()
        var f: [String] = []
        // Requests without a body (one with a body follows no redirect: `bodyFollowsNoRedirect`).
        let cases: [(Int, HTTPRequest.Method, String)] = [
            (301, .post, "GET body=0 type=-"), (302, .post, "GET body=0 type=-"), (303, .post, "GET body=0 type=-"),
            (307, .post, "POST body=0 type=-"), (308, .post, "POST body=0 type=-"),
            (302, .get, "GET body=0 type=-"), (308, .delete, "DELETE body=0 type=-"),
        ]
        for (status, method, expected) in cases {
            let url = upstream.baseURL.appendingPathComponent("\(status)")
            let body: Data? = nil
            let fields: HTTPFields = [:]
            switch await attempt({ try await transport.send(method, url, headerFields: fields, body: body) }) {
            case .reply(let reply):
                let seen = String(decoding: reply.body, as: UTF8.self)
                if reply.status != 200 || seen != expected {
                    f.append("\(method) answered \(status): the target saw \(reply.status) \"\(seen)\", expected \"\(expected)\"")
                }
            case .failure(let error): f.append("\(method) answered \(status) failed: \(error)")
            }
        }
        return f
    }

    @Sendable private static func credentialsStayOnTheirOrigin(_ make: Maker) async throws -> [String] {
        let echo: @Sendable (ScriptedUpstream.Request) -> ScriptedUpstream.Script = { request in
            .reply(status: 200, body: Data("auth=\(request.headers["authorization"] != nil) cookie=\(request.headers["cookie"] != nil)".utf8))
        }
        let other = try ScriptedUpstream(echo)
        defer { other.stop() }
        let otherTarget = other.baseURL.appendingPathComponent("x").absoluteString
        let upstream = try ScriptedUpstream { request in
            switch request.path {
            case "/away": .reply(status: 302, headers: [("Location", otherTarget)])
            case "/here": .reply(status: 307, headers: [("Location", "/same")])
            default: echo(request)
            }
        }
        defer { upstream.stop() }
        let transport = try make()
        var f: [String] = []
        // On the same origin, credentials go along.
        let both: HTTPFields = [.authorization: "Bearer conformance-token", .cookie: "sid=conformance"]
        switch await attempt({ try await transport.send(.get, upstream.baseURL.appendingPathComponent("here"), headerFields: both) }) {
        case .reply(let reply):
            let seen = String(decoding: reply.body, as: UTF8.self)
            if seen != "auth=true cookie=true" { f.append("a redirect on the same origin: the target saw \"\(seen)\", expected \"auth=true cookie=true\"") }
        case .failure(let error): f.append("a redirect on the same origin failed: \(error)")
        }
        // To another origin, a request that carries a credential in any of these headers is not re-sent.
        var credentialHeaders: [(String, HTTPFields)] = [("Authorization", [.authorization: "Bearer conformance-token"]), ("Cookie", [.cookie: "sid=conformance"])]
        for (name, value) in [("DPoP", "eyJhbGciOiJFUzI1NiJ9.e30.c2ln"), ("X-Stamp", "conformance-stamp"), ("Proxy-Authorization", "Basic Y29uZm9ybWFuY2U=")] {
            if let field = HTTPField.Name(name) { credentialHeaders.append((name, [field: value])) }
        }
        for (name, fields) in credentialHeaders {
            let before = other.requests.count
            let outcome = await attempt { try await transport.send(.get, upstream.baseURL.appendingPathComponent("away"), headerFields: fields) }
            f += expect(outcome, .redirectRefused, "a GET with \(name) redirected to another origin")
            if case .failure(let error as TransportError) = outcome, error.kind == .redirectRefused, !error.message.contains("302") {
                f.append("the refusal of a redirect does not name its status: \"\(error.message)\"")
            }
            if other.requests.count != before { f.append("a GET with \(name) was re-sent to another origin") }
        }
        // Without credentials, a redirect to another origin is followed.
        switch await attempt({ try await transport.send(.get, upstream.baseURL.appendingPathComponent("away")) }) {
        case .reply(let reply):
            if String(decoding: reply.body, as: UTF8.self) != "auth=false cookie=false" { f.append("a GET without credentials was not followed to another origin") }
        case .failure(let error): f.append("a GET without credentials redirected to another origin failed: \(error)")
        }
        return f
    }

    @Sendable private static func bodyFollowsNoRedirect(_ make: Maker) async throws -> [String] {
        // A token endpoint answering with a redirect: a password sent with 307/308 would reach the target.
        let other = try ScriptedUpstream { _ in .json(200, #"{"access_token":"attacker","token_type":"Bearer"}"#) }
        defer { other.stop() }
        let away = other.baseURL.appendingPathComponent("token").absoluteString
        let upstream = try ScriptedUpstream { request in
            let parts = request.path.split(separator: "/")
            guard parts.count == 2, let status = Int(parts[1]) else { return .json(200, #"{"access_token":"here"}"#) }
            return .reply(status: status, headers: [("Location", parts[0] == "away" ? away : "/same")])
        }
        defer { upstream.stop() }
        let transport = try make()
        var f: [String] = []
        let body = Data("grant_type=password&username=ada&password=conformance-password".utf8)
        let fields: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
        for target in ["away", "same"] {
            for status in [301, 302, 303, 307, 308] {
                let seenBefore = upstream.requests.count
                let url = upstream.baseURL.appendingPathComponent(target).appendingPathComponent("\(status)")
                let outcome = await attempt { try await transport.send(.post, url, headerFields: fields, body: body) }
                f += expect(outcome, .redirectRefused, "a POST with a body answered \(status) to \(target == "away" ? "another origin" : "the same origin")")
                if upstream.requests.count - seenBefore != 1 { f.append("a POST with a body answered \(status) was sent \(upstream.requests.count - seenBefore) times") }
            }
        }
        if !other.requests.isEmpty { f.append("a POST's body was re-sent to another origin \(other.requests.count) times") }
        return f
    }

    // MARK: Compressed replies

    @Sendable private static func compressedReplyIsNotInflated(_ make: Maker) async throws -> [String] {
        let bomb = CompressionBomb.gzip
        let upstream = try ScriptedUpstream { _ in
            .reply(status: 200, headers: [("Content-Encoding", "gzip"), ("Content-Type", "application/json")], body: bomb)
        }
        defer { upstream.stop() }
        let transport = try make()
        let peak = PeakMemory()
        let started = ContinuousClock.now
        let outcome = await attempt { try await transport.send(.get, upstream.baseURL.appendingPathComponent("keys")) }
        let elapsed = ContinuousClock.now - started
        var f: [String] = []
        switch outcome {
        case .reply(let reply):
            f.append("a gzip body inflating to \(CompressionBomb.inflatedSize >> 20) MiB under a 64 KiB cap came back as a \(reply.status) reply of \(reply.body.count) bytes")
        case .failure(let error as TransportError) where error.kind == .unsupportedEncoding || error.kind == .responseTooLarge:
            break
        case .failure(let error):
            f.append("a gzip bomb: expected an .unsupportedEncoding or .responseTooLarge TransportError, got \(error)")
        }
        if let grown = peak.growth(), grown > 128 << 20 {
            f.append("a gzip bomb of \(bomb.count >> 10) KiB raised the process's peak memory by \(grown >> 20) MiB: the body was inflated past the cap")
        }
        if let encoding = upstream.requests.first?.headers["accept-encoding"], !encoding.lowercased().contains("identity"),
           case .failure(let error as TransportError) = outcome, error.kind != .unsupportedEncoding {
            f.append("compressed replies were asked for (Accept-Encoding: \(encoding)) and inflated up to the cap")
        }
        if elapsed > .seconds(45) { f.append("a gzip bomb took \(elapsed) to refuse") }
        return f
    }

    @Sendable private static func redirectsReturnedWhenNotFollowing(_ make: Maker) async throws -> [String] {
        let upstream = try ScriptedUpstream { request in
            request.path == "/elsewhere" ? .reply(status: 200) : .reply(status: 302, headers: [("Location", "/elsewhere")])
        }
        defer { upstream.stop() }
        var f: [String] = []
        switch await attempt({ try await make(Settings(followRedirects: false)).send(.get, upstream.baseURL.appendingPathComponent("start")) }) {
        case .reply(let reply):
            if reply.status != 302 { f.append("with followRedirects false a 302 came back as \(reply.status)") }
            if reply.headerFields[.location] != "/elsewhere" { f.append("the 302's Location came back as \(reply.headerFields[.location] ?? "nil")") }
        case .failure(let error): f.append("with followRedirects false a 302 failed: \(error)")
        }
        if upstream.requests.count != 1 { f.append("with followRedirects false the server saw \(upstream.requests.count) requests, expected 1") }
        return f
    }

    @Sendable private static func redirectLoopEnds(_ make: Maker) async throws -> [String] {
        let upstream = try ScriptedUpstream { _ in .reply(status: 302, headers: [("Location", "/again")]) }
        defer { upstream.stop() }
        let outcome = await attempt { try await make().send(.get, upstream.baseURL.appendingPathComponent("again")) }
        var f = expect(outcome, .other, "a redirect loop")
        if case .failure(let error) = outcome, let transportError = error as? TransportError, !transportError.message.contains("redirects") {
            f.append("a redirect loop failed with \"\(transportError.message)\", which does not say it was redirects")
        }
        if upstream.requests.count != maxRedirects + 1 {
            f.append("a redirect loop sent \(upstream.requests.count) requests, expected \(maxRedirects + 1) (the first and \(maxRedirects) redirects)")
        }
        return f
    }

    // MARK: Round trips

    /// A 401 with an HTTP authentication challenge (`WWW-Authenticate: Basic`, as RFC 6749 section
    /// 5.2 asks of a token endpoint refusing a client's Basic credentials; also `Digest` and
    /// `Bearer`) comes back at once as a reply: a transport must not hold it to answer the challenge
    /// itself (AuthHub sends credentials explicitly) nor stall until its deadline.
    @Sendable private static func authenticationChallengeIsAnOrdinaryReply(_ make: Maker) async throws -> [String] {
        let upstream = try ScriptedUpstream { request in
            let challenge = switch request.path {
            case "/basic": #"Basic realm="token", charset="UTF-8""#
            case "/digest": #"Digest realm="token", qop="auth", nonce="n0nce", opaque="o""#
            default: #"Bearer error="invalid_token""#
            }
            return .reply(status: 401, headers: [("WWW-Authenticate", challenge), ("Content-Type", "application/json")],
                          body: Data(#"{"error":"invalid_client"}"#.utf8))
        }
        defer { upstream.stop() }
        let transport = try make()
        var f: [String] = []
        for path in ["/basic", "/digest", "/bearer"] {
            let url = try absolute(upstream.baseURL.absoluteString + path)
            let started = ContinuousClock.now
            let fields: HTTPFields = [.authorization: "Basic Y2xpZW50Ondyb25n", .contentType: "application/x-www-form-urlencoded"]
            do {
                // A generous deadline (a loaded 2-core machine answered in 23 s): what fails is a reply held until it.
                let reply = try await transport.send(.post, url, headerFields: fields, body: Data("grant_type=client_credentials".utf8),
                                                     timeout: .seconds(60))
                if reply.status != 401 { f.append("\(path): status \(reply.status), not 401") }
                if !String(decoding: reply.body, as: UTF8.self).contains("invalid_client") { f.append("\(path): the body did not come back") }
            } catch {
                f.append("\(path): \(error) after \(ContinuousClock.now - started)")
                continue
            }
        }
        return f
    }

    @Sendable private static func roundTripKeepsStatusFieldsAndBody(_ make: Maker) async throws -> [String] {
        let upstream = try ScriptedUpstream { request in
            if request.path == "/down" { return .reply(status: 503, headers: [("Retry-After", "7")], body: Data("down".utf8)) }
            return .reply(status: 201, headers: [
                ("Set-Cookie", "a=1; Path=/"), ("Set-Cookie", "b=2; Path=/"), ("X-Echo-Method", request.method),
                ("X-Echo-Target", request.target), ("X-Echo-Custom", request.headers["x-custom"] ?? "-"),
                ("X-Echo-Multi", request.headers["x-multi"] ?? "-"), ("Content-Type", "application/octet-stream"),
            ], body: request.body)
        }
        defer { upstream.stop() }
        let transport = try make()
        var f: [String] = []
        let body = Data((0...255).map { UInt8($0) })
        var fields: HTTPFields = [.contentType: "application/octet-stream"]
        if let custom = HTTPField.Name("X-Custom"), let multi = HTTPField.Name("X-Multi") {
            fields[custom] = "value with spaces"
            fields.append(HTTPField(name: multi, value: "one"))
            fields.append(HTTPField(name: multi, value: "two"))
        }
        let url = try absolute(upstream.baseURL.absoluteString + "/echo?q=1&r=two")
        switch await attempt({ try await transport.send(.post, url, headerFields: fields, body: body) }) {
        case .reply(let reply):
            if reply.status != 201 { f.append("status 201 came back as \(reply.status)") }
            if reply.body != body { f.append("a 256-byte binary body came back as \(reply.body.count) bytes that differ") }
            // Both cookies, in order. FoundationNetworking's `HTTPURLResponse` folds repeated fields into
            // one (joined with ", "), so that form is accepted too; AsyncHTTPClientTransport keeps two fields.
            let cookies = reply.headerFields[values: .setCookie]
            if cookies.joined(separator: ", ") != "a=1; Path=/, b=2; Path=/" { f.append("two Set-Cookie fields came back as \(cookies)") }
            let expected = ["X-Echo-Method": "POST", "X-Echo-Target": "/echo?q=1&r=two", "X-Echo-Custom": "value with spaces", "X-Echo-Multi": "one, two"]
            for (name, value) in expected.sorted(by: { $0.key < $1.key }) where reply.headerFields[name] != value {
                f.append("\(name) came back as \(reply.headerFields[name] ?? "nil"), expected \(value)")
            }
        case .failure(let error): f.append("a POST round trip failed: \(error)")
        }
        switch await attempt({ try await transport.send(.get, upstream.baseURL.appendingPathComponent("down")) }) {
        case .reply(let reply):
            if reply.status != 503 || reply.body != Data("down".utf8) || reply.headerFields["Retry-After"] != "7" {
                f.append("a 503 reply came back as \(reply.status) with \(reply.body.count) bytes")
            }
        case .failure(let error): f.append("a 503 reply was thrown instead of returned: \(error)")
        }
        return f
    }

    @Sendable private static func headAndEmptyBodies(_ make: Maker) async throws -> [String] {
        let upstream = try ScriptedUpstream { request in
            switch (request.method, request.path) {
            // The head only, as HEAD replies are; the server then closes, and says so.
            case ("HEAD", _): .raw(Data("HTTP/1.1 200 OK\r\nContent-Length: 12\r\nX-Head: yes\r\nConnection: close\r\n\r\n".utf8))
            case (_, "/no-content"): .reply(status: 204)
            default: .reply(status: 200)
            }
        }
        defer { upstream.stop() }
        let transport = try make()
        var f: [String] = []
        switch await attempt({ try await transport.send(.head, upstream.baseURL.appendingPathComponent("doc")) }) {
        case .reply(let reply):
            if reply.status != 200 || !reply.body.isEmpty || reply.headerFields["X-Head"] != "yes" || reply.headerFields[.contentLength] != "12" {
                f.append("HEAD came back as \(reply.status) with \(reply.body.count) body bytes, X-Head \(reply.headerFields["X-Head"] ?? "nil"), Content-Length \(reply.headerFields[.contentLength] ?? "nil")")
            }
        case .failure(let error): f.append("HEAD failed: \(error)")
        }
        for path in ["no-content", "empty"] {
            switch await attempt({ try await transport.send(.get, upstream.baseURL.appendingPathComponent(path)) }) {
            case .reply(let reply): if !reply.body.isEmpty { f.append("GET /\(path) came back with \(reply.body.count) body bytes") }
            case .failure(let error): f.append("GET /\(path) failed: \(error)")
            }
        }
        return f
    }

    // MARK: Secrets

    @Sendable private static func errorsHoldNoSecrets(_ make: Maker) async throws -> [String] {
        let marker = "SECRET-b7f3"
        let fields: HTTPFields = [.authorization: "Bearer tok-\(marker)", .cookie: "sid=\(marker)", .contentType: "application/x-www-form-urlencoded"]
        let body = Data("password=pw-\(marker)".utf8)
        let silent = try ScriptedUpstream { _ in .silent }
        defer { silent.stop() }
        let loop = try ScriptedUpstream { _ in .reply(status: 307, headers: [("Location", "/again?code=\(marker)")]) }
        defer { loop.stop() }
        let huge = try ScriptedUpstream { _ in .endless(declaredLength: 10 << 30, limit: 1 << 20) }
        defer { huge.stop() }
        let refusing = try RefusingPort()
        defer { withExtendedLifetime(refusing) {} }
        let port = refusing.port
        let transport = try make()
        var f: [String] = []
        let targets = [
            ("refused", "http://127.0.0.1:\(port)/token?code=\(marker)"),
            ("timeout", silent.baseURL.absoluteString + "/token?code=\(marker)"),
            ("redirect loop", loop.baseURL.absoluteString + "/again?code=\(marker)"),
            ("too large", huge.baseURL.absoluteString + "/token?code=\(marker)"),
        ]
        for (what, target) in targets {
            let url = try absolute(target)
            switch await attempt({ try await transport.send(.post, url, headerFields: fields, body: body, timeout: .milliseconds(700)) }) {
            case .reply(let reply): f.append("\(what): expected a failure, got \(reply.status)")
            case .failure(let error):
                let text = "\(error) \(String(reflecting: error)) \((error as? TransportError)?.message ?? "")"
                if text.contains(marker) { f.append("\(what): the error shows a secret (the URL's query, a credential or the body)") }
            }
        }
        return f
    }

    // MARK: Helpers

    /// The result of one send.
    enum Outcome {
        case reply(HTTPReply)
        case failure(any Error)

        init(_ result: Result<HTTPReply, any Error>) {
            switch result {
            case .success(let reply): self = .reply(reply)
            case .failure(let error): self = .failure(error)
            }
        }
    }

    static func attempt(_ send: () async throws -> HTTPReply) async -> Outcome {
        do { return .reply(try await send()) } catch { return .failure(error) }
    }

    /// Failures unless `outcome` is a ``TransportError`` of `kind`.
    static func expect(_ outcome: Outcome, _ kind: TransportError.Kind, _ what: String) -> [String] {
        switch outcome {
        case .reply(let reply):
            return ["\(what): expected a .\(kind.rawValue) TransportError, got a \(reply.status) reply"]
        case .failure(let error as TransportError):
            return error.kind == kind ? [] : ["\(what): expected a .\(kind.rawValue) TransportError, got .\(error.kind.rawValue) (\(error.message))"]
        case .failure(let error):
            return ["\(what): expected a .\(kind.rawValue) TransportError, got \(type(of: error))"]
        }
    }

    static func absolute(_ string: String) throws -> URL {
        guard let url = URL(string: string) else { throw TransportError(.other, "not a URL") }
        return url
    }

    /// A loopback port that refuses connections for as long as the value lives: bound but never
    /// listening, so the kernel answers a connection with a reset and no other server started
    /// meanwhile (a full test run starts dozens) can take the port, as it could once a bound port was
    /// closed again (a "refused" check once got an HTTP 200 from whoever took it).
    final class RefusingPort {
        let port: UInt16
        private let descriptor: Int32

        init() throws { (descriptor, port) = try ScriptedUpstream.loopbackSocket(listening: nil) }

        deinit { close(descriptor) }
    }
}

/// A loopback server that writes `greeting` to every connection as soon as it is accepted, then
/// closes it, whatever the client sent (for a TLS client: before its handshake can complete).
final class GreetingServer: @unchecked Sendable {
    // @unchecked Sendable: `stopped` is behind `lock`; the descriptor and port are immutable.
    let port: UInt16
    private let listener: Int32
    private let lock = NSLock()
    private var stopped = false

    init(_ greeting: Data) throws {
        (listener, port) = try ScriptedUpstream.loopbackSocket(listening: 16)
        let thread = Thread { [self] in
            defer { close(listener) }
            while !isStopped {
                var descriptor = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
                guard poll(&descriptor, 1, 100) > 0 else { continue }
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { continue }
                greeting.withUnsafeBytes { raw in
                    #if canImport(Darwin)
                    _ = Darwin.send(connection, raw.baseAddress, raw.count, 0)
                    #else
                    _ = Glibc.send(connection, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL))
                    #endif
                }
                close(connection)
            }
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    /// Stops accepting; the listener is closed by its thread.
    func stop() { lock.withLock { stopped = true } }
}

extension ScriptedUpstream.Script {
    /// For messages.
    var label: String {
        switch self {
        case .reset: "reset"
        case .close: "closed"
        default: "scripted"
        }
    }
}
