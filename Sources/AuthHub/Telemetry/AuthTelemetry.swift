import CoreMetrics
import Foundation
import HTTPTypes
import Tracing

/// Where AuthHub's metrics and spans go, and whether user ids may be among them.
///
/// Metrics go through swift-metrics and spans through swift-distributed-tracing. Both do nothing until
/// the app bootstraps a backend (`MetricsSystem.bootstrap`, `InstrumentationSystem.bootstrap`), for
/// example swift-prometheus or swift-otel; a telemetry value can also name its own factory and tracer
/// (tests do, to read what was recorded without touching the process-wide systems).
///
/// What is recorded (see the "Observability" article for the full list):
/// - counters ``MetricName/signIns``, ``MetricName/signUps``, ``MetricName/refreshes`` and
///   ``MetricName/signOuts``, by `provider` and `outcome` (`success` or the ``AuthErrorCode``), and
///   ``MetricName/revocations`` of replaced sessions, by `provider`, `reason` and `outcome`;
/// - timers ``MetricName/providerRequestDuration`` (one per HTTP exchange with a provider) and
///   ``MetricName/refreshLockWait``;
/// - the gauge ``MetricName/renewedRemainingSeconds``: how long the session still had when its
///   renewal began (positive: renewed early);
/// - spans `authhub.sign_in`, `authhub.sign_up`, `authhub.sign_out`, `authhub.refresh` (with the
///   children `authhub.refresh_lock.wait` and the HTTP request) and one per HTTP request.
///
/// Labels and attributes carry the provider id, the operation, the method, the status and the error
/// code — never a token, a code, a password, an email, a URL's query or a user id. The subject
/// (`enduser.id`) is added to sign-in spans only when ``recordsUserIDs`` is true.
public struct AuthTelemetry: Sendable {
    /// The metrics factory; nil means swift-metrics' process-wide one (`MetricsSystem.factory`) at
    /// the time of recording.
    public var metricsFactory: (any MetricsFactory)?
    /// The tracer; nil means swift-distributed-tracing's process-wide one (`InstrumentationSystem.tracer`).
    public var tracer: (any Tracer)?
    /// Whether sign-in spans carry the user's subject as `enduser.id`. Off by default: a user id is
    /// personal data, and traces often leave the app's trust boundary.
    public var recordsUserIDs: Bool

    /// - Parameters:
    ///   - metricsFactory: a factory of your own; by default the process-wide one.
    ///   - tracer: a tracer of your own; by default the process-wide one.
    ///   - recordsUserIDs: add the subject to sign-in spans (off by default).
    public init(metricsFactory: (any MetricsFactory)? = nil, tracer: (any Tracer)? = nil, recordsUserIDs: Bool = false) {
        self.metricsFactory = metricsFactory
        self.tracer = tracer
        self.recordsUserIDs = recordsUserIDs
    }

    /// The process-wide metrics and tracing systems, without user ids.
    public static let `default` = AuthTelemetry()

    /// The names of AuthHub's metrics.
    public enum MetricName {
        /// Counter: sign-ins, by `provider`, `method` (`password`, `emailCode`, …) and `outcome`.
        public static let signIns = "authhub_sign_ins"
        /// Counter: sign-ups, by `provider` and `outcome`.
        public static let signUps = "authhub_sign_ups"
        /// Counter: session renewals that reached the provider, by `provider`, `outcome` and
        /// `trigger` (`early`: the session was still valid but within the caller's minimum
        /// lifetime; `expired`; `forced`: an explicit refresh).
        public static let refreshes = "authhub_refreshes"
        /// Counter: sign-outs, by `provider` and `outcome`.
        public static let signOuts = "authhub_sign_outs"
        /// Counter: revocations of a session that a sign-in replaced (or that a web sign-in ended),
        /// run off the caller's path, by `provider`, `reason` (`replaced`) and `outcome`.
        public static let revocations = "authhub_revocations"
        /// Timer: one HTTP exchange with a provider (each attempt), by `provider`, `operation`,
        /// `method` and `status` (the HTTP status code, or the error code when no reply came).
        public static let providerRequestDuration = "authhub_provider_request_duration"
        /// Timer: how long a renewal waited for the refresh lock, by `provider`.
        public static let refreshLockWait = "authhub_refresh_lock_wait"
        /// Gauge: the seconds the session still had when its renewal reached the provider (negative
        /// once expired), by `provider`.
        public static let renewedRemainingSeconds = "authhub_session_renewed_remaining_seconds"
    }

    /// The span names AuthHub starts.
    public enum SpanName {
        public static let signIn = "authhub.sign_in"
        public static let signUp = "authhub.sign_up"
        public static let signOut = "authhub.sign_out"
        public static let refresh = "authhub.refresh"
        public static let refreshLockWait = "authhub.refresh_lock.wait"
    }

    // MARK: Recording (package)

    var factory: any MetricsFactory { metricsFactory ?? MetricsSystem.factory }
    var activeTracer: any Tracer { tracer ?? InstrumentationSystem.tracer }

    /// The `outcome` dimension of an operation that ended with `error` (nil: it succeeded).
    package static func outcome(_ error: (any Error)?) -> String {
        guard let error else { return "success" }
        if error is CancellationError { return AuthErrorCode.userCancelled.rawValue }
        return (error as? AuthError)?.code.rawValue ?? AuthErrorCode.unknown.rawValue
    }

    package func increment(_ label: String, _ dimensions: [(String, String)]) {
        Counter(label: label, dimensions: dimensions, factory: factory).increment()
    }

    package func record(_ label: String, _ dimensions: [(String, String)], duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !nanoseconds.overflow else { return }
        Timer(label: label, dimensions: dimensions, factory: factory).recordNanoseconds(nanoseconds.partialValue + attoseconds / 1_000_000_000)
    }

    package func gauge(_ label: String, _ dimensions: [(String, String)], value: Double) {
        guard value.isFinite else { return }
        Gauge(label: label, dimensions: dimensions, factory: factory).record(value)
    }

    /// Runs `body` in a span named `name` and increments `counter` by provider, the extra
    /// dimensions and the outcome (`success` or the error code).
    package func observed<T>(_ name: String, counter: String, provider: String, dimensions: [(String, String)] = [],
                             isolation: isolated (any Actor)? = #isolation,
                             _ body: (any Span) async throws -> T) async throws -> T {
        var attributes = ["authhub.provider": provider]
        for (key, value) in dimensions { attributes["authhub." + key] = value }
        do {
            let value = try await withSpan(name, attributes: attributes) { span in
                let value = try await body(span)
                span.attributes["authhub.outcome"] = "success"
                return value
            }
            increment(counter, [("provider", provider)] + dimensions + [("outcome", "success")])
            return value
        } catch {
            increment(counter, [("provider", provider)] + dimensions + [("outcome", Self.outcome(error))])
            throw error
        }
    }

    /// Runs `body` in a span named `name`: the span is the current one inside (children nest under
    /// it, outgoing requests carry its trace context); when `body` throws, the span's status is an
    /// error described by the error's code only (never its message) and `authhub.outcome` is set to
    /// that code; the span ends when `body` returns or throws.
    package func withSpan<T>(_ name: String, kind: SpanKind = .internal, attributes: [String: String],
                             isolation: isolated (any Actor)? = #isolation,
                             _ body: (any Span) async throws -> T) async throws -> T {
        let span = activeTracer.startAnySpan(name, context: ServiceContext.current ?? .topLevel, ofKind: kind)
        for (key, value) in attributes { span.attributes[key] = value }
        do {
            let value = try await ServiceContext.withValue(span.context, isolation: isolation) { try await body(span) }
            span.end()
            return value
        } catch {
            span.attributes["authhub.outcome"] = Self.outcome(error)
            span.setStatus(SpanStatus(code: .error, message: Self.outcome(error)))
            span.end()
            throw error
        }
    }
}

/// Writes a tracer's trace context (W3C `traceparent`, …) into a request's header fields; a key that
/// is not a valid field name is skipped.
struct TraceContextInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout HTTPFields) {
        guard let name = HTTPField.Name(key) else { return }
        carrier[name] = value
    }
}
