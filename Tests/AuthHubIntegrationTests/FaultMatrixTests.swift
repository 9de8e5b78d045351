import AuthHub
import AuthHubAuth0
import AuthHubFirebase
import AuthHubOIDC
import AuthHubOpenfort
import AuthHubTesting
@_spi(Internals) import AuthHubTurnkey
import Crypto
import Foundation
import Testing

/// Every provider's main operations against an upstream that misbehaves in every way a network, a
/// proxy or a broken server does (``ScriptedUpstream`` on loopback, through the real
/// ``URLSessionTransport``): no answer, a reset or closed connection, 429/503 with every form of
/// `Retry-After`, 5xx with HTML or nothing, and 200s whose body is empty, truncated, of the wrong
/// shape or types, with absurd numbers, or larger than the cap.
///
/// Every cell must end in a typed ``AuthError`` with a sensible code (or, for an operation that does
/// not read the reply body, in success), never a crash or a hang, and the stored session must be
/// unchanged. The matrix's size is printed; RELIABILITY.md quotes it.
@Suite struct FaultMatrixTests {
    // MARK: Faults

    struct Fault: Sendable {
        let name: String
        let script: ScriptedUpstream.Script
        /// The codes that make sense for this fault.
        let expected: Set<AuthErrorCode>
        /// A 2xx whose body is bad: an operation that does not read the body may succeed.
        let isBadSuccessBody: Bool
    }

    static func httpDate(secondsFromNow: TimeInterval) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: Date().addingTimeInterval(secondsFromNow))
    }

    static let faults: [Fault] = {
        let throttled: Set<AuthErrorCode> = [.rateLimited]
        let unavailable: Set<AuthErrorCode> = [.providerUnavailable, .rateLimited]
        let unreadable: Set<AuthErrorCode> = [.invalidRequest, .invalidToken]
        let error = #"{"error":"busy","error_description":"try later"}"#
        func retryAfter(_ status: Int, _ value: String) -> ScriptedUpstream.Script {
            .json(status, error, headers: [("Retry-After", value)])
        }
        let wrongTypes = #"""
        {"access_token":5,"token_type":[],"expires_in":"soon","id_token":{},"refresh_token":7,"scope":1,"idToken":5,
         "refreshToken":[],"expiresIn":"x","localId":3,"email":4,"users":{},"token":9,"player":"p","session":1,"user":"u",
         "sub":5,"userId":[],"organizationIds":5,"organizationId":[],"session":{"token":1,"expiresAt":"never"}}
        """#
        let absurd = #"""
        {"access_token":"a","token_type":"Bearer","expires_in":-1e300,"id_token":"e30.e30.","refresh_token":"r","scope":"openid",
         "idToken":"e30.eyJleHAiOi0xZTMwMH0.","refreshToken":"r","expiresIn":"-1e300","localId":"u","token":"t",
         "session":"e30.eyJleHAiOjFlMzAwfQ.","expiresAt":1e300,"exp":-1e300,"createdAt":1e300,
         "users":[{"localId":"u","email":"a@example.com","createdAt":"1e300","lastLoginAt":"-1e300","passwordUpdatedAt":1e300,
                   "validSince":"99999999999999999999999","lastRefreshAt":"-1e300"}]}
        """#
        return [
            Fault(name: "no answer until the deadline", script: .silent, expected: [.timeout], isBadSuccessBody: false),
            // A reset or close on a reused keep-alive connection (OIDC: after discovery) makes libcurl try
            // the request again, and FoundationNetworking cannot rewind a POST body for it: the request
            // then waits for its deadline. Typed either way; RELIABILITY.md notes it.
            Fault(name: "connection reset", script: .reset, expected: [.network, .timeout], isBadSuccessBody: false),
            Fault(name: "connection closed without a reply", script: .close, expected: [.network, .timeout], isBadSuccessBody: false),
            Fault(name: "429 Retry-After seconds", script: retryAfter(429, "2"), expected: throttled, isBadSuccessBody: false),
            Fault(name: "429 Retry-After HTTP date", script: retryAfter(429, httpDate(secondsFromNow: 3)), expected: throttled, isBadSuccessBody: false),
            Fault(name: "429 Retry-After garbage", script: retryAfter(429, "soon-ish"), expected: throttled, isBadSuccessBody: false),
            Fault(name: "429 Retry-After huge", script: retryAfter(429, "1e300"), expected: throttled, isBadSuccessBody: false),
            Fault(name: "429 Retry-After negative", script: retryAfter(429, "-5"), expected: throttled, isBadSuccessBody: false),
            Fault(name: "503 Retry-After seconds", script: retryAfter(503, "1"), expected: unavailable, isBadSuccessBody: false),
            Fault(name: "503 Retry-After HTTP date", script: retryAfter(503, httpDate(secondsFromNow: 2)), expected: unavailable, isBadSuccessBody: false),
            Fault(name: "503 Retry-After garbage", script: retryAfter(503, "tomorrow"), expected: unavailable, isBadSuccessBody: false),
            Fault(name: "503 Retry-After huge", script: retryAfter(503, "99999999999999999999999"), expected: unavailable, isBadSuccessBody: false),
            Fault(name: "503 Retry-After negative", script: retryAfter(503, "-1e300"), expected: unavailable, isBadSuccessBody: false),
            Fault(name: "500 with an HTML body", script: .reply(status: 500, headers: [("Content-Type", "text/html")],
                                                               body: Data("<html><body>Internal error</body></html>".utf8)),
                  expected: [.providerUnavailable], isBadSuccessBody: false),
            Fault(name: "502 with an empty body", script: .reply(status: 502), expected: [.providerUnavailable], isBadSuccessBody: false),
            Fault(name: "200 with an empty body", script: .reply(status: 200, headers: [("Content-Type", "application/json")]),
                  expected: unreadable, isBadSuccessBody: true),
            Fault(name: "200 with truncated JSON", script: .json(200, #"{"access_token":"abc","expi"#), expected: unreadable, isBadSuccessBody: true),
            Fault(name: "200 with JSON of the wrong shape", script: .json(200, "[1,2,3]"), expected: unreadable, isBadSuccessBody: true),
            Fault(name: "200 with fields of the wrong types", script: .json(200, wrongTypes), expected: unreadable, isBadSuccessBody: true),
            Fault(name: "200 with absurd numbers", script: .json(200, absurd), expected: unreadable, isBadSuccessBody: true),
            Fault(name: "200 with a body over the cap", script: .endless(limit: 8 << 20), expected: [.invalidRequest], isBadSuccessBody: true),
        ]
    }()

    // MARK: Operations

    struct Operation: Sendable {
        let provider: String
        let name: String
        /// Seeds this session before the operation and checks it is unchanged afterwards.
        let seeded: (@Sendable (Date) -> Session)?
        /// The operation ignores the reply body (a 2xx is success whatever it holds).
        let ignoresBody: Bool
        /// The reply's numbers are informational here (account times): absurd ones are left out, and
        /// the operation succeeds.
        var numbersAreInformational: Bool { name == "user info" }
        let run: @Sendable (AuthHub) async throws -> Void
    }

    static func providerEntry(_ provider: String, _ base: URL) -> String {
        let url = base.absoluteString
        let host = "\(base.host ?? "127.0.0.1"):\(base.port ?? 80)"
        switch provider {
        case "auth0": return #"{"id":"auth0","type":"auth0","domain":"\#(url)","clientId":"matrix"}"#
        case "firebase": return #"{"id":"firebase","type":"firebase","apiKey":"k","projectId":"matrix","emulatorHost":"\#(host)"}"#
        case "openfort":
            return #"{"id":"openfort","type":"openfort","publishableKey":"pk_test_00000000-0000-4000-8000-000000000001","baseURL":"\#(url)"}"#
        case "oidc": return #"{"id":"oidc","type":"oidc","issuer":"\#(url)/","clientId":"matrix"}"#
        default:
            return #"{"id":"turnkey","type":"turnkey","baseURL":"\#(url)","organizationId":"00000000-0000-4000-8000-0000000000aa","rpId":"localhost","proxyURL":"\#(url)/proxy"}"#
        }
    }

    static func bearer(_ provider: String) -> @Sendable (Date) -> Session {
        { now in
            Session(providerID: provider, accessToken: Secret("seeded-access"), idToken: Secret("seeded.id.token"),
                    refreshToken: Secret("seeded-refresh"), expiresAt: now.addingTimeInterval(3600), scope: "openid profile email offline_access",
                    userID: "seeded-user", claims: ["sub": "seeded-user"])
        }
    }

    static let turnkeyKey = P256.Signing.PrivateKey()
    static func turnkeySession(_ now: Date) -> Session {
        Session(providerID: "turnkey", accessToken: Secret("seeded.session.jwt"), tokenType: TurnkeyProvider.sessionTokenType,
                refreshToken: Secret(TurnkeyHex.encode(turnkeyKey.rawRepresentation)), expiresAt: now.addingTimeInterval(900),
                userID: "seeded-user",
                extras: ["organizationId": "00000000-0000-4000-8000-0000000000bb",
                         "sessionPublicKey": .string(TurnkeyKeys.compressedHex(turnkeyKey.publicKey))],
                secretExtras: [TurnkeyProvider.sessionPrivateKeyExtra: Secret(TurnkeyHex.encode(turnkeyKey.rawRepresentation))])
    }

    static let operations: [Operation] = {
        let password = Secret("correct horse battery staple")
        func op(_ provider: String, _ name: String, seeded: (@Sendable (Date) -> Session)? = nil, ignoresBody: Bool = false,
                _ run: @escaping @Sendable (AuthHub) async throws -> Void) -> Operation {
            Operation(provider: provider, name: name, seeded: seeded, ignoresBody: ignoresBody, run: run)
        }
        var all: [Operation] = []
        for provider in ["auth0", "firebase", "openfort"] {
            all.append(op(provider, "sign-in") { _ = try await $0.signIn(.password(identifier: "ada@example.com", password: password), provider: provider) })
            all.append(op(provider, "sign-up") { _ = try await $0.signUp(SignUpRequest(email: "ada@example.com", password: password), provider: provider) })
            all.append(op(provider, "refresh", seeded: bearer(provider)) { _ = try await $0.refresh(provider: provider) })
            all.append(op(provider, "user info", seeded: bearer(provider)) { _ = try await $0.userInfo(provider: provider) })
            all.append(op(provider, "password reset", ignoresBody: true) { try await $0.sendPasswordReset(email: "ada@example.com", provider: provider) })
        }
        all.append(op("auth0", "passwordless start", ignoresBody: true) { _ = try await $0.startSignIn(.emailCode(email: "ada@example.com"), provider: "auth0") })
        all.append(op("openfort", "guest") { _ = try await $0.signIn(.guest, provider: "openfort") })
        all.append(op("oidc", "code exchange") {
            _ = try await $0.signIn(.authorizationCode(code: Secret("code"), codeVerifier: Secret(String(repeating: "v", count: 43)),
                                                       redirectURI: "http://127.0.0.1:9/callback"), provider: "oidc")
        })
        all.append(op("oidc", "refresh", seeded: bearer("oidc")) { _ = try await $0.refresh(provider: "oidc") })
        all.append(op("turnkey", "refresh", seeded: turnkeySession) { _ = try await $0.refresh(provider: "turnkey") })
        all.append(op("turnkey", "user info", seeded: turnkeySession) { _ = try await $0.userInfo(provider: "turnkey") })
        return all
    }()

    /// Sign-out revokes where the provider can; whatever the upstream does, the local session is gone
    /// and any revocation failure comes back typed.
    static let signOutProviders = ["auth0", "openfort", "oidc"]

    // MARK: The matrix

    /// One transport for every cell: each cell's upstream listens on a port of its own, so no
    /// connection is shared between cells, and the test process does not pile up a URLSession's
    /// sockets per cell (FoundationNetworking releases a discarded session's connections late, and
    /// 500 sessions' sockets pushed the test process past 1,300 descriptors).
    static let sharedTransport = URLSessionTransport(defaultTimeout: .seconds(2), maxResponseBytes: 256 * 1024)

    /// A transport with a short deadline, so "no answer" cells end in seconds: 2 s where the fault
    /// may end in a timeout, 8 s where it must not (a 429 or 503 answers at once, but at the start of
    /// the whole parallel suite on 2 cores an exchange has taken over 2 s, and those cells then
    /// reported `timeout` instead of the mapped error).
    struct ShortDeadline: HTTPTransport {
        var deadline: Duration = .seconds(2)
        var inner: URLSessionTransport { FaultMatrixTests.sharedTransport }
        func send(_ request: HTTPRequest, body: Data?, timeout: Duration?) async throws -> HTTPReply {
            try await inner.send(request, body: body, timeout: deadline)
        }
    }

    /// The upstream for one cell: OIDC discovery and JWKS answer well (the fault is the operation's),
    /// every other request gets the fault.
    static func upstream(_ fault: Fault) throws -> ScriptedUpstream {
        try ScriptedUpstream { request in
            let base = "http://\(request.headers["host"] ?? "127.0.0.1")"
            switch request.path {
            case "/.well-known/openid-configuration":
                return .json(200, #"""
                {"issuer":"\#(base)/","authorization_endpoint":"\#(base)/authorize","token_endpoint":"\#(base)/token",
                 "userinfo_endpoint":"\#(base)/userinfo","jwks_uri":"\#(base)/jwks","revocation_endpoint":"\#(base)/revoke",
                 "response_types_supported":["code"],"subject_types_supported":["public"],"id_token_signing_alg_values_supported":["RS256"]}
                """#)
            case "/jwks": return .json(200, #"{"keys":[]}"#)
            default: return fault.script
            }
        }
    }

    struct CellFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs one cell; returns nil when it holds, else what went wrong.
    static func run(_ operation: Operation, _ fault: Fault) async -> String? {
        let label = "\(operation.provider) \(operation.name) × \(fault.name)"
        do {
            let upstream = try upstream(fault)
            defer { upstream.stop() }
            let config = #"{"environments":{"matrix":{"providers":[\#(providerEntry(operation.provider, upstream.baseURL))]}}}"#
            let environment = try ConfigLoader(registry: registry, environmentVariables: [:]).load(data: Data(config.utf8))
            let store = InMemorySessionStore()
            let clock = FakeClock(now: Date())
            let hub = try AuthHub(environment: environment, registry: registry,
                                  context: ProviderContext(transport: ShortDeadline(deadline: .seconds(fault.expected.contains(.timeout) ? 2 : 8)),
                                                           clock: clock), store: store)
            let key = SessionKey(provider: operation.provider)
            var seeded: Session?
            if let seed = operation.seeded {
                seeded = try await store.save(seed(clock.now), for: key, expectedVersion: nil)
            }
            var outcome: String?
            do {
                try await operation.run(hub)
                let tolerated = fault.isBadSuccessBody && operation.ignoresBody
                    || fault.name == "200 with absurd numbers" && operation.numbersAreInformational
                if !tolerated { outcome = "\(label): succeeded" }
            } catch let error as AuthError {
                if !fault.expected.contains(error.code) { outcome = "\(label): \(error.code) (\(error.message))" }
            } catch {
                outcome = "\(label): untyped \(type(of: error))"
            }
            if let seeded {
                let now = try await store.load(key)
                if now?.version != seeded.version || now?.accessToken.revealed() != seeded.accessToken.revealed()
                    || now?.refreshToken?.revealed() != seeded.refreshToken?.revealed() {
                    outcome = (outcome.map { $0 + "; " } ?? "\(label): ") + "the stored session changed"
                }
            }
            return outcome
        } catch {
            return "\(label): set-up failed: \(error)"
        }
    }

    static let registry = ProviderRegistry([Auth0Plugin(), FirebasePlugin(), OpenfortPlugin(), OIDCPlugin(), TurnkeyPlugin()])

    @Test func everyOperationTimesEveryFaultIsATypedError() async throws {
        let cells = Self.operations.flatMap { operation in Self.faults.map { (operation, $0) } }
        let failures = await withTaskGroup(of: String?.self) { group in
            var failures: [String] = []
            var next = 0
            // Eight cells at a time: each has its own upstream and its own threads.
            for _ in 0..<8 where next < cells.count {
                let (operation, fault) = cells[next]
                group.addTask { await Self.run(operation, fault) }
                next += 1
            }
            for await result in group {
                if let result { failures.append(result) }
                if next < cells.count {
                    let (operation, fault) = cells[next]
                    group.addTask { await Self.run(operation, fault) }
                    next += 1
                }
            }
            return failures.sorted()
        }
        print("FaultMatrixTests: \(cells.count) cells (\(Self.operations.count) operations × \(Self.faults.count) faults), "
              + "\(cells.count - failures.count) typed, \(failures.count) not")
        #expect(failures.isEmpty, "\(failures.count) cells:\n\(failures.joined(separator: "\n"))")
    }

    @Test func signOutUnderEveryFaultRemovesTheSessionAndReportsATypedError() async throws {
        var failures: [String] = []
        var cells = 0
        for provider in Self.signOutProviders {
            for fault in Self.faults {
                cells += 1
                let upstream = try Self.upstream(fault)
                defer { upstream.stop() }
                let config = #"{"environments":{"matrix":{"providers":[\#(Self.providerEntry(provider, upstream.baseURL))]}}}"#
                let environment = try ConfigLoader(registry: Self.registry, environmentVariables: [:]).load(data: Data(config.utf8))
                let store = InMemorySessionStore()
                let clock = FakeClock(now: Date())
                let hub = try AuthHub(environment: environment, registry: Self.registry,
                                      context: ProviderContext(transport: ShortDeadline(deadline: .seconds(fault.expected.contains(.timeout) ? 2 : 8)),
                                                           clock: clock), store: store)
                let key = SessionKey(provider: provider)
                _ = try await store.save(Self.bearer(provider)(clock.now), for: key, expectedVersion: nil)
                do {
                    let revocation = try await hub.signOut(provider: provider)
                    if let revocation, !fault.expected.contains(revocation.code), !fault.isBadSuccessBody {
                        failures.append("\(provider) sign-out × \(fault.name): \(revocation.code)")
                    }
                } catch {
                    failures.append("\(provider) sign-out × \(fault.name): threw \(error)")
                }
                if try await store.load(key) != nil { failures.append("\(provider) sign-out × \(fault.name): session kept") }
            }
        }
        print("FaultMatrixTests: sign-out \(cells) cells, \(cells - failures.count) held")
        #expect(failures.isEmpty, "\(failures.count) cells:\n\(failures.joined(separator: "\n"))")
    }
}
