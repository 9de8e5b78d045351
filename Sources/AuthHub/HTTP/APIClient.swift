import Foundation
import Tracing
import HTTPTypes
import Logging

/// A request to a provider's API, before it becomes an `HTTPRequest` (swift-http-types) and a body.
public struct APIRequest: Sendable {
    /// The body of a request.
    public enum Body: Sendable {
        case none
        /// Raw JSON bytes, sent as `application/json`.
        case json(Data)
        /// Fields sent as `application/x-www-form-urlencoded`, in order.
        case form([(String, String)])
        /// Bytes with an explicit content type.
        case raw(Data, contentType: String)
    }

    /// Whether the client may send the request again after a failure.
    public enum RetryMode: Sendable {
        /// Idempotent methods (GET, PUT, DELETE, …) retry transport failures and 429/5xx; other
        /// methods retry only 429 and 503, where the server refused before doing anything.
        case automatic
        /// Treat the request as idempotent whatever its method (a POST that only reads).
        case idempotent
        /// Never retry (e.g. an exchange that consumes a one-time code).
        case never
    }

    public var method: HTTPRequest.Method
    /// A path resolved against the client's base URL, or an absolute URL string.
    public var path: String
    public var query: [(String, String)]
    /// Header fields of this request; they win over the client's ``APIClient/defaultHeaderFields``.
    public var headerFields: HTTPFields
    public var body: Body
    public var timeout: Duration?
    public var retry: RetryMode
    /// What the request is for: handed to the provider's ``ErrorMapper`` with an error reply, and
    /// named in the error when a reply cannot be decoded.
    public var operation: AuthOperation
    /// Sign a DPoP proof (RFC 9449) for every attempt of this request with this key (and `ath` of
    /// this access token); nil sends none.
    public var dpop: DPoPProofing?
    /// The body and header fields anew, before every attempt after the first — for single-use
    /// credentials in them: a server spends a `private_key_jwt` assertion's `jti` on the first
    /// attempt, even one it then refuses for a DPoP nonce (RFC 9449, section 8). Nil sends the same
    /// bytes again.
    public var renewCredentials: (@Sendable () throws -> (body: Body, headerFields: HTTPFields))?

    public init(_ method: HTTPRequest.Method, _ path: String, query: [(String, String)] = [], headerFields: HTTPFields = [:],
                body: Body = .none, timeout: Duration? = nil, retry: RetryMode = .automatic, operation: AuthOperation = .other) {
        self.operation = operation
        self.method = method
        self.path = path
        self.query = query
        self.headerFields = headerFields
        self.body = body
        self.timeout = timeout
        self.retry = retry
    }

    /// A request with a JSON body encoded from `value` (keys sorted, `/` not escaped). A ``JSONValue``
    /// or `[String: JSONValue]` body — what most providers send — is written directly
    /// (``JSONValue/serialized()``, the same bytes), anything else through `JSONEncoder`.
    public static func json<T: Encodable>(_ method: HTTPRequest.Method, _ path: String, _ value: T, query: [(String, String)] = [],
                                          headerFields: HTTPFields = [:], retry: RetryMode = .automatic,
                                          operation: AuthOperation = .other) throws -> APIRequest {
        let data: Data
        do {
            if let tree = value as? JSONValue {
                data = try tree.serialized()
            } else if let members = value as? [String: JSONValue] {
                data = try JSONValue.object(members).serialized()
            } else {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                data = try encoder.encode(value)
            }
        } catch {
            throw AuthError(.invalidRequest, message: "The request body could not be encoded.", underlying: error)
        }
        return APIRequest(method, path, query: query, headerFields: headerFields, body: .json(data), retry: retry, operation: operation)
    }
}

/// How the client retries.
public struct RetryPolicy: Sendable {
    /// Attempts in total, the first included.
    public var maxAttempts: Int
    /// The first back-off delay; doubled per attempt, with jitter.
    public var baseDelay: Duration
    /// The longest back-off delay.
    public var maxDelay: Duration
    /// A `Retry-After` longer than this (or than the request's timeout) is not waited for: the error is
    /// returned with its `retryAfter`.
    public var maxRetryAfter: Duration

    public init(maxAttempts: Int = 3, baseDelay: Duration = .milliseconds(250), maxDelay: Duration = .seconds(8),
                maxRetryAfter: Duration = .seconds(30)) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
    }

    /// No retries at all.
    public static let none = RetryPolicy(maxAttempts: 1)
}

/// The HTTP client every provider plugin uses: builds JSON and form requests, applies timeouts,
/// retries what is safe to retry with back-off honouring `Retry-After`, maps transport failures to
/// ``AuthErrorCode/network``/``AuthErrorCode/timeout`` and error replies through the provider's
/// ``ErrorMapper``, and logs every exchange through swift-log with secrets redacted (see ``Redactor``).
///
/// Log levels: `debug` one line per request and reply (method, redacted URL, status, duration);
/// `trace` adds redacted headers and bodies.
public struct APIClient: Sendable {
    public var provider: String
    public var baseURL: URL
    public var transport: any HTTPTransport
    public var errorMapper: any ErrorMapper
    public var clock: any AuthClock
    public var random: any RandomSource
    public var logger: Logger
    public var retryPolicy: RetryPolicy
    /// Sent with every request; a request's own header fields win.
    public var defaultHeaderFields: HTTPFields
    /// The timeout of a request that sets none.
    public var timeout: Duration
    /// Where each exchange's span and duration go.
    public var telemetry: AuthTelemetry
    /// The servers' latest DPoP nonces (a request with ``APIRequest/dpop`` sends and keeps them);
    /// nil keeps none, and a nonce challenge is then answered only within one ``send(_:)``.
    public var dpopNonces: DPoPNonceCache?

    public init(provider: String, baseURL: URL, transport: any HTTPTransport, errorMapper: any ErrorMapper = StatusErrorMapper(),
                clock: any AuthClock = SystemClock(), random: any RandomSource = SystemRandom(),
                logger: Logger = Logger(label: "authhub.http"), retryPolicy: RetryPolicy = RetryPolicy(),
                defaultHeaderFields: HTTPFields = [:], timeout: Duration = .seconds(30), telemetry: AuthTelemetry = .default) {
        self.telemetry = telemetry
        self.provider = provider
        self.baseURL = baseURL
        self.transport = transport
        self.errorMapper = errorMapper
        self.clock = clock
        self.random = random
        self.logger = logger
        self.retryPolicy = retryPolicy
        self.defaultHeaderFields = defaultHeaderFields
        self.timeout = timeout
    }

    /// Builds a client from a ``ProviderContext``.
    public init(provider: String, baseURL: URL, context: ProviderContext, errorMapper: any ErrorMapper,
                retryPolicy: RetryPolicy = RetryPolicy(), defaultHeaderFields: HTTPFields = [:]) {
        var logger = context.logger
        logger[metadataKey: "provider"] = .string(provider)
        self.init(provider: provider, baseURL: baseURL, transport: context.transport, errorMapper: errorMapper,
                  clock: context.clock, random: context.random, logger: logger, retryPolicy: retryPolicy,
                  defaultHeaderFields: defaultHeaderFields, telemetry: context.telemetry)
        self.dpopNonces = context.dpopNonces
    }

    /// Sends a request and returns a 2xx reply; anything else throws an ``AuthError``.
    public func send(_ request: APIRequest) async throws -> HTTPReply {
        var prepared = try prepare(request)
        var http = prepared.head
        var attempt = 1
        var nonceRetried = false
        var givenNonce: String?
        while true {
            try Task.checkCancellation()
            // Fresh single-use credentials (a new client assertion) for every attempt after the first.
            if attempt > 1 || nonceRetried, let renew = request.renewCredentials {
                var again = request
                (again.body, again.headerFields) = try renew()
                prepared = try prepare(again)
                http = prepared.head
            }
            // A fresh proof (new jti, the origin's latest nonce) for every attempt.
            if let dpop = request.dpop {
                http.headerFields[Self.dpopField] = try dpop.key.proof(
                    method: http.method.rawValue, url: prepared.url, accessToken: dpop.accessToken,
                    nonce: givenNonce ?? dpopNonces?.nonce(for: prepared.url), now: clock.now, random: random).revealed()
            }
            let started = ContinuousClock.now
            logRequest(prepared, attempt: attempt)
            let response: HTTPReply
            do {
                response = try await exchange(http, prepared, operation: request.operation)
            } catch {
                let mapped = mapTransportFailure(error, host: Self.hostDescription(prepared.url))
                logger.debug("request failed", metadata: [
                    "method": "\(http.method)", "url": "\(Redactor.url(prepared.url))", "error": "\(mapped.code)",
                ])
                // A cancelled request and an oversized reply are not tried again.
                let oversized = (error as? TransportError)?.kind == .responseTooLarge
                if mapped.code != .userCancelled, !oversized, attempt < retryPolicy.maxAttempts,
                   isIdempotent(request, http.method) {
                    try await clock.sleep(for: backoff(attempt: attempt))
                    attempt += 1
                    continue
                }
                throw mapped
            }
            logResponse(response, prepared, since: started)
            let nonce = request.dpop == nil ? nil : response.headerFields[Self.dpopNonceField]
            if let nonce {
                dpopNonces?.remember(nonce, for: prepared.url)
                if givenNonce != nil, DPoPNonceCache.isValidNonce(nonce) { givenNonce = nonce }
            }
            if response.isSuccess { return response }
            // RFC 9449, section 8 (token endpoint) and 9 (resource server): a server that wants a
            // nonce in the proof says `use_dpop_nonce` and gives one; the request is sent once more
            // with it, not counted as an attempt.
            if let nonce, !nonceRetried, DPoPNonceCache.isValidNonce(nonce), Self.isNonceChallenge(response) {
                nonceRetried = true
                givenNonce = nonce
                logger.debug("retrying with the server's DPoP nonce", metadata: ["status": "\(response.status)"])
                continue
            }

            var error = errorMapper.map(response, provider: provider, operation: request.operation).attributed(to: provider)
            // Retry-After is read here against the injected clock (an HTTP date is relative to "now").
            if let retryAfter = response.headerFields.retryAfter(now: clock.now) { error = error.with(retryAfter: retryAfter) }
            if attempt < retryPolicy.maxAttempts, shouldRetry(status: response.status, request, http.method) {
                let delay = error.retryAfter ?? backoff(attempt: attempt)
                // A server's Retry-After is waited for only within the policy's limit and the request's
                // own deadline; a longer one is returned to the caller in the error's `retryAfter`.
                if delay <= retryPolicy.maxRetryAfter, delay <= prepared.timeout {
                    logger.debug("retrying", metadata: ["status": "\(response.status)", "delay_ms": "\(Int(delay.seconds * 1000))"])
                    try await clock.sleep(for: delay)
                    attempt += 1
                    continue
                }
            }
            throw error
        }
    }

    /// One attempt on the transport, in a client span (`HTTP POST`, …) whose trace context the request
    /// carries, timed into ``AuthTelemetry/MetricName/providerRequestDuration``. The span and the
    /// metric name the provider, the operation, the method, the host and the status — never the path
    /// or query (which can hold ids and keys) or any header.
    private func exchange(_ head: HTTPRequest, _ prepared: PreparedRequest, operation: AuthOperation) async throws -> HTTPReply {
        let started = ContinuousClock.now
        var status = ""
        defer {
            telemetry.record(AuthTelemetry.MetricName.providerRequestDuration,
                             [("provider", provider), ("operation", operation.rawValue), ("method", head.method.rawValue), ("status", status)],
                             duration: ContinuousClock.now - started)
        }
        let attributes = ["http.request.method": head.method.rawValue, "server.address": prepared.url.host ?? "",
                          "authhub.provider": provider, "authhub.operation": operation.rawValue]
        return try await telemetry.withSpan("HTTP \(head.method.rawValue)", kind: .client, attributes: attributes) { span in
            var head = head
            telemetry.activeTracer.inject(ServiceContext.current ?? .topLevel, into: &head.headerFields, using: TraceContextInjector())
            do {
                let reply = try await transport.send(head, body: prepared.body, timeout: prepared.timeout)
                status = String(reply.head.status.code)
                span.attributes["http.response.status_code"] = Int64(reply.head.status.code)
                if reply.head.status.code >= 400 { span.setStatus(SpanStatus(code: .error)) }
                return reply
            } catch {
                status = mapTransportFailure(error, host: "").code.rawValue
                throw error
            }
        }
    }

    static let dpopField = HTTPField.Name("DPoP")!
    static let dpopNonceField = HTTPField.Name("DPoP-Nonce")!

    /// Whether an error reply asks for a DPoP nonce: a token endpoint's `{"error":"use_dpop_nonce"}`
    /// (400), or a resource server's `WWW-Authenticate: DPoP error="use_dpop_nonce"` (401).
    static func isNonceChallenge(_ response: HTTPReply) -> Bool {
        if response.status == 401 {
            return response.headerFields[values: .wwwAuthenticate].contains {
                $0.range(of: "use_dpop_nonce", options: .caseInsensitive) != nil
            }
        }
        guard response.status == 400, response.body.count <= 65_536,
              let body = try? JSONValue.parse(response.body) else { return false }
        return body["error"]?.stringValue == "use_dpop_nonce"
    }

    /// Sends a request and decodes its JSON reply into a wire model.
    /// - Throws: the mapped error for a non-2xx reply; for a 2xx reply that is not the expected
    ///   JSON, ``AuthErrorCode/invalidRequest`` naming the provider, the request's
    ///   ``APIRequest/operation`` and the field that was missing or of the wrong type.
    public func send<T: Decodable>(_ request: APIRequest, as type: T.Type) async throws -> T {
        try decode(type, from: try await send(request), operation: request.operation)
    }

    /// Decodes a JSON reply; a body that is not the expected JSON throws ``AuthErrorCode/invalidRequest``
    /// naming the provider, the operation and the field (never a crash, never the body itself, which
    /// may carry tokens). `details` carries `operation`, `field` (a path such as `user.email` or
    /// `keys[0].kid`, when one is at fault) and `reason` (`missingField`, `nullField`, `wrongType`,
    /// `invalidValue`, `notJSON`).
    public func decode<T: Decodable>(_ type: T.Type, from response: HTTPReply, operation: AuthOperation = .other) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: response.body)
        } catch {
            throw ReplyDecodingFailure.error(error, provider: provider, operation: operation, statusCode: response.status,
                                             emptyBody: response.body.isEmpty)
        }
    }

    /// What a request becomes on the wire: the `HTTPRequest` head (URL resolution, query, header
    /// fields), the body bytes, the full URL and the deadline.
    public struct PreparedRequest: Sendable {
        /// The request head handed to the transport.
        public var head: HTTPRequest
        /// The body bytes, if any.
        public var body: Data?
        /// The resolved URL (also in `head`, as scheme, authority and path).
        public var url: URL
        /// The time the exchange may take.
        public var timeout: Duration
    }

    /// The head, body, URL and deadline a request becomes.
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` when no absolute http(s) URL can be built.
    public func prepare(_ request: APIRequest) throws -> PreparedRequest {
        guard var components = resolve(request.path) else {
            throw AuthError(.invalidConfiguration, message: "Cannot build a URL for '\(provider)' from \(request.path).", provider: provider)
        }
        if !request.query.isEmpty {
            var items = components.percentEncodedQueryItems ?? []
            items += request.query.map { URLQueryItem(name: FormEncoding.escape($0.0), value: FormEncoding.escape($0.1)) }
            components.percentEncodedQueryItems = items
        }
        guard let url = components.url, url.scheme != nil, url.host != nil else {
            throw AuthError(.invalidConfiguration, message: "Cannot build a URL for '\(provider)'.", provider: provider)
        }
        var fields = defaultHeaderFields
        var body: Data?
        switch request.body {
        case .none: break
        case .json(let data):
            fields[.contentType] = "application/json"
            body = data
        case .form(let pairs):
            fields[.contentType] = "application/x-www-form-urlencoded"
            body = Data(FormEncoding.encode(pairs).utf8)
        case .raw(let data, let contentType):
            fields[.contentType] = contentType
            body = data
        }
        if fields[.accept] == nil { fields[.accept] = "application/json" }
        fields.merge(request.headerFields)
        return PreparedRequest(head: HTTPRequest(method: request.method, url: url, headerFields: fields), body: body, url: url,
                               timeout: request.timeout ?? timeout)
    }

    private func resolve(_ path: String) -> URLComponents? {
        if path.hasPrefix("http://") || path.hasPrefix("https://") { return URLComponents(string: path) }
        var base = baseURL.absoluteString
        if !base.hasSuffix("/") { base += "/" }
        let relative = path.hasPrefix("/") ? String(path.dropFirst()) : path
        return URLComponents(string: base + relative)
    }

    private func isIdempotent(_ request: APIRequest, _ method: HTTPRequest.Method) -> Bool {
        switch request.retry {
        case .never: false
        case .idempotent: true
        case .automatic: method.isIdempotent
        }
    }

    private func shouldRetry(status: Int, _ request: APIRequest, _ method: HTTPRequest.Method) -> Bool {
        if case .never = request.retry { return false }
        if status == 429 || status == 503 { return true }
        return (500...599).contains(status) && status != 501 && isIdempotent(request, method)
    }

    private func backoff(attempt: Int) -> Duration {
        let base = retryPolicy.baseDelay.seconds * pow(2, Double(min(attempt - 1, 30)))
        // Capped to the policy's maximum and to one day, whatever the policy says: the result is
        // converted to whole milliseconds below.
        let capped = max(0, min(base, retryPolicy.maxDelay.seconds, 86_400))
        let jitterByte = random.bytes(1).first ?? 128
        let jittered = capped * (0.5 + Double(jitterByte) / 510.0)  // 50 %–100 % of the delay
        return .milliseconds(Int64(jittered * 1000))
    }

    /// `host` or `host:port` of a URL, for messages that say what could not be reached (never
    /// the path or query, which may hold codes).
    static func hostDescription(_ url: URL) -> String {
        guard let host = url.host, !host.isEmpty else { return "the provider" }
        return url.port.map { "\(host):\($0)" } ?? host
    }

    private func mapTransportFailure(_ error: any Error, host: String) -> AuthError {
        if let t = error as? TransportError {
            switch t.kind {
            case .timeout:
                return AuthError(.timeout, message: "'\(provider)' did not answer in time (\(host)).", provider: provider, underlying: t,
                                 details: ["host": host])
            case .cancelled:
                return AuthError(.userCancelled, message: "The request to '\(provider)' was cancelled.", provider: provider, underlying: t)
            case .responseTooLarge:
                return AuthError(.invalidRequest, message: "The reply from '\(provider)' is larger than this client accepts.",
                                 provider: provider, underlying: t, details: ["reason": "replyTooLarge"])
            case .redirectRefused:
                return AuthError(.invalidRequest, message: "'\(provider)' at \(host) answered with a redirect that was not followed: \(t.message).",
                                 provider: provider, underlying: t, details: ["reason": "redirectRefused", "host": host])
            case .unsupportedEncoding:
                return AuthError(.invalidRequest, message: "'\(provider)' at \(host) sent a compressed reply that was not read: \(t.message).",
                                 provider: provider, underlying: t, details: ["reason": "compressedReply", "host": host])
            case .connection, .tls, .other:
                return AuthError(.network, message: "'\(provider)' could not be reached at \(host) (\(t.kind.rawValue)).", provider: provider,
                                 underlying: t, details: ["host": host])
            }
        }
        if error is CancellationError {
            return AuthError(.userCancelled, message: "The request to '\(provider)' was cancelled.", provider: provider, underlying: error)
        }
        if let auth = error as? AuthError { return auth.attributed(to: provider) }
        return AuthError(.network, message: "'\(provider)' could not be reached at \(host).", provider: provider,
                         underlying: error, details: ["host": host])
    }

    private func logRequest(_ request: PreparedRequest, attempt: Int) {
        guard logger.logLevel <= .debug else { return }
        var metadata: Logger.Metadata = ["method": "\(request.head.method)", "url": "\(Redactor.url(request.url))"]
        if attempt > 1 { metadata["attempt"] = "\(attempt)" }
        if logger.logLevel <= .trace {
            metadata["headers"] = "\(Redactor.headers(request.head.headerFields))"
            metadata["body"] = "\(Redactor.body(request.body, contentType: request.head.headerFields[.contentType]))"
        }
        logger.debug("request", metadata: metadata)
    }

    private func logResponse(_ response: HTTPReply, _ request: PreparedRequest, since started: ContinuousClock.Instant) {
        guard logger.logLevel <= .debug else { return }
        let elapsed = ContinuousClock.now - started
        var metadata: Logger.Metadata = [
            "status": "\(response.status)", "url": "\(Redactor.url(request.url))",
            "duration_ms": "\(Int(elapsed.seconds * 1000))",
        ]
        if logger.logLevel <= .trace {
            metadata["headers"] = "\(Redactor.headers(response.headerFields))"
            metadata["body"] = "\(Redactor.body(response.body, contentType: response.headerFields[.contentType]))"
        }
        logger.debug("response", metadata: metadata)
    }
}

/// `application/x-www-form-urlencoded` encoding with RFC 3986 unreserved characters only.
package enum FormEncoding {
    private static let unreserved: CharacterSet = {
        var set = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        set.insert(charactersIn: "-._~")
        return set
    }()

    /// Percent-encodes everything but unreserved characters.
    package static func escape(_ s: String) -> String {
        s.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    /// `a=1&b=2`, each name and value escaped.
    package static func encode(_ fields: [(String, String)]) -> String {
        fields.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }

    /// Parses `a=1&b=2` (accepting `+` for space).
    package static func decode(_ text: String) -> [(String, String)] {
        text.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func d(_ s: Substring) -> String { String(s).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(s) }
            return (d(parts[0]), parts.count > 1 ? d(parts[1]) : "")
        }
    }
}

/// The DPoP proof a request carries: the key, and the access token a resource request sends.
public struct DPoPProofing: Sendable {
    public var key: DPoPKey
    /// The access token the request sends (its hash goes in the proof's `ath`); nil at a token endpoint.
    public var accessToken: Secret<String>?

    public init(key: DPoPKey, accessToken: Secret<String>? = nil) {
        self.key = key
        self.accessToken = accessToken
    }
}
