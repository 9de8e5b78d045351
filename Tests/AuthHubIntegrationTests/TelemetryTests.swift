import AuthHub
import AuthHubAuth0
import AuthHubEmulator
import AuthHubTesting
import Foundation
import InMemoryTracing
import MetricsTestKit
import Testing
import Tracing

/// Metrics and spans of a hub signing in, renewing and signing out at the Auth0 emulator, recorded
/// by swift-metrics' test backend and swift-distributed-tracing's in-memory tracer handed to the hub
/// (the process-wide systems are left alone, so suites running meanwhile do not interfere).
@Suite struct TelemetryTests {
    static let password = "correct horse battery staple"
    static let email = "telemetry@example.com"

    /// Records the header fields of every request on its way to a real transport.
    final class HeaderRecorder: HTTPTransport {
        let inner = URLSessionTransport(defaultTimeout: .seconds(30))
        let sent = Mutex<[HTTPFields]>([])
        func send(_ request: HTTPRequest, body: Data?, timeout: Duration?) async throws -> HTTPReply {
            sent.withLock { $0.append(request.headerFields) }
            return try await inner.send(request, body: body, timeout: timeout)
        }
    }

    struct Fixture {
        let emulator: RunningEmulator
        let hub: AuthHub
        let metrics: TestMetrics
        let tracer: InMemoryTracer
        let transport: HeaderRecorder

        static func start(recordsUserIDs: Bool = false) async throws -> Fixture {
            let emulator = try await Emulator.start()
            let reply = try await URLSessionTransport(defaultTimeout: .seconds(30)).send(
                .post, emulator.url("/auth0/__emulator/users"), headerFields: [.contentType: "application/json"],
                body: Data(#"{"email":"\#(TelemetryTests.email)","password":"\#(TelemetryTests.password)"}"#.utf8))
            #expect(reply.status == 201)
            let config = """
            {"defaultEnvironment": "dev", "environments": {"dev": {"defaultProvider": "auth0", "sessionStore": {"type": "memory"},
              "providers": [{"id": "auth0", "type": "auth0", "domain": "\(emulator.url("/auth0").absoluteString)", "clientId": "authhub-it"}]}}}
            """
            let registry = ProviderRegistry([Auth0Plugin()])
            let environment = try ConfigLoader(registry: registry, environmentVariables: [:]).load(data: Data(config.utf8))
            let metrics = TestMetrics(), tracer = InMemoryTracer(), transport = HeaderRecorder()
            let telemetry = AuthTelemetry(metricsFactory: metrics, tracer: tracer, recordsUserIDs: recordsUserIDs)
            let hub = try AuthHub(environment: environment, registry: registry,
                                  context: ProviderContext(transport: transport, telemetry: telemetry))
            return Fixture(emulator: emulator, hub: hub, metrics: metrics, tracer: tracer, transport: transport)
        }

        /// Every string a metric or span carries: labels, dimension names and values, span names
        /// and attribute keys and values, and the header values the tracer injected.
        func everyRecordedString() -> [String] {
            var strings: [String] = []
            func add(_ label: String, _ dimensions: [(String, String)]) {
                strings.append(label)
                for (name, value) in dimensions { strings += [name, value] }
            }
            for counter in metrics.counters { add(counter.label, counter.dimensions) }
            for timer in metrics.timers { add(timer.label, timer.dimensions) }
            for recorder in metrics.recorders { add(recorder.label, recorder.dimensions) }
            for span in tracer.finishedSpans {
                strings.append(span.operationName)
                span.attributes.forEach { key, value in strings += [key, "\(value)"] }
            }
            for injection in tracer.performedContextInjections { strings += injection.values.flatMap { [$0.key, $0.value] } }
            return strings
        }
    }

    @Test func signInRefreshAndSignOutAreCountedTimedAndTraced() async throws {
        let fixture = try await Fixture.start()
        defer { Task { await fixture.emulator.stop() } }
        let hub = fixture.hub, metrics = fixture.metrics

        let wrong = await #expect(throws: AuthError.self) {
            try await hub.signIn(.password(identifier: Self.email, password: Secret("not the password")))
        }
        #expect(wrong?.code == .invalidCredentials)
        let session = try await hub.signIn(.password(identifier: Self.email, password: Secret(Self.password)))
        let renewed = try await hub.refresh()
        // A session valid for a day, asked for with a minimum lifetime of a day and more: renewed early
        // (and the renewed token, again a day, is still too short, which the call reports).
        let tooShort = await #expect(throws: AuthError.self) { try await hub.session(minTTL: 90_000) }
        #expect(tooShort?.code == .invalidRequest)
        try await hub.signOut()

        // Counters by provider, method/trigger and outcome.
        let signIns = AuthTelemetry.MetricName.signIns
        #expect(try metrics.expectCounter(signIns, [("provider", "auth0"), ("method", "password"), ("outcome", "success")]).totalValue == 1)
        #expect(try metrics.expectCounter(signIns, [("provider", "auth0"), ("method", "password"), ("outcome", "invalidCredentials")]).totalValue == 1)
        let refreshes = AuthTelemetry.MetricName.refreshes
        #expect(try metrics.expectCounter(refreshes, [("provider", "auth0"), ("trigger", "forced"), ("outcome", "success")]).totalValue == 1)
        #expect(try metrics.expectCounter(refreshes, [("provider", "auth0"), ("trigger", "early"), ("outcome", "success")]).totalValue == 1)
        #expect(try metrics.expectCounter(AuthTelemetry.MetricName.signOuts, [("provider", "auth0"), ("outcome", "success")]).totalValue == 1)
        #expect(metrics.counters(label: AuthTelemetry.MetricName.signUps).isEmpty)

        // Timers: each HTTP exchange by operation and status; the lock waits.
        let requests = AuthTelemetry.MetricName.providerRequestDuration
        let tokenCalls = try metrics.expectTimer(requests, [("provider", "auth0"), ("operation", "sign-in"), ("method", "POST"), ("status", "200")])
        #expect(tokenCalls.values.count == 1 && tokenCalls.values.allSatisfy { $0 > 0 })
        #expect(try metrics.expectTimer(requests, [("provider", "auth0"), ("operation", "sign-in"), ("method", "POST"), ("status", "403")]).values.count == 1)
        #expect(try metrics.expectTimer(requests, [("provider", "auth0"), ("operation", "refresh"), ("method", "POST"), ("status", "200")]).values.count == 2)
        #expect(try metrics.expectTimer(AuthTelemetry.MetricName.refreshLockWait, [("provider", "auth0")]).values.count == 2)
        // The gauge: the forced renewal had about a day left, and so had the early one.
        let remaining = try metrics.expectGauge(AuthTelemetry.MetricName.renewedRemainingSeconds, [("provider", "auth0")])
        #expect(remaining.values.count == 2 && remaining.values.allSatisfy { $0 > 80_000 && $0 <= 86_400 })

        // Spans: sign-in with its HTTP request as a child; refresh with the lock wait and the request.
        let spans = fixture.tracer.finishedSpans
        let signInSpans = spans.filter { $0.operationName == AuthTelemetry.SpanName.signIn }
        #expect(signInSpans.count == 2)
        let failed = try #require(signInSpans.first { $0.attributes["authhub.outcome"]?.toSpanAttribute() == .string("invalidCredentials") })
        #expect(failed.status?.code == .error)
        let succeeded = try #require(signInSpans.first { $0.attributes["authhub.outcome"]?.toSpanAttribute() == .string("success") })
        #expect(succeeded.attributes["authhub.provider"]?.toSpanAttribute() == .string("auth0"))
        #expect(succeeded.attributes["authhub.method"]?.toSpanAttribute() == .string("password"))
        let children = spans.filter { $0.parentSpanID == succeeded.spanID }
        let post = try #require(children.first { $0.operationName == "HTTP POST" })
        #expect(post.kind == .client)
        #expect(post.attributes["http.response.status_code"]?.toSpanAttribute() == .int64(200))
        #expect(post.attributes["authhub.operation"]?.toSpanAttribute() == .string("sign-in"))
        let refreshSpans = spans.filter { $0.operationName == AuthTelemetry.SpanName.refresh }
        #expect(refreshSpans.count == 2)
        for refresh in refreshSpans {
            let names = Set(spans.filter { $0.parentSpanID == refresh.spanID }.map(\.operationName))
            #expect(names == [AuthTelemetry.SpanName.refreshLockWait, "HTTP POST"], "\(names)")
        }
        #expect(spans.contains { $0.operationName == AuthTelemetry.SpanName.signOut })

        // The trace context went out with the requests: the token request carried the HTTP span's id.
        let injected = fixture.tracer.performedContextInjections.map { $0.values[InMemoryTracer.spanIDKey] }
        #expect(injected.contains(post.spanID))
        let spanIDHeader = try #require(HTTPField.Name(InMemoryTracer.spanIDKey))
        #expect(fixture.transport.sent.withLock { $0.contains { $0[spanIDHeader] == post.spanID } })

        // No secret and no personal data anywhere.
        let forbidden = [Self.password, "not the password", Self.email, session.accessToken.revealed(), renewed.accessToken.revealed(),
                         try #require(session.refreshToken).revealed(), try #require(session.idToken).revealed(), try #require(session.userID)]
        for string in fixture.everyRecordedString() {
            for secret in forbidden { #expect(!string.contains(secret), "a recorded label or attribute carries a secret or personal data") }
        }
    }

    @Test func userIDsAreRecordedOnlyWhenTheAppOptsIn() async throws {
        for optIn in [false, true] {
            let fixture = try await Fixture.start(recordsUserIDs: optIn)
            defer { Task { await fixture.emulator.stop() } }
            let session = try await fixture.hub.signIn(.password(identifier: Self.email, password: Secret(Self.password)))
            let user = try #require(session.userID)
            let spans = fixture.tracer.finishedSpans
            let signIn = try #require(spans.first { $0.operationName == AuthTelemetry.SpanName.signIn })
            #expect((signIn.attributes["enduser.id"]?.toSpanAttribute() == .string(user)) == optIn)
            // Never anywhere else, and never in a metric.
            let elsewhere = spans.filter { $0.spanID != signIn.spanID }.flatMap { span in
                var values: [String] = []
                span.attributes.forEach { _, value in values.append("\(value)") }
                return values
            }
            #expect(!elsewhere.contains { $0.contains(user) })
            let labels = fixture.metrics.counters.flatMap { $0.dimensions.map(\.1) } + fixture.metrics.timers.flatMap { $0.dimensions.map(\.1) }
            #expect(!labels.contains { $0.contains(user) })
        }
    }
}
