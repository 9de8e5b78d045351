import Foundation
import HTTPTypes
import HTTPTypesFoundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default ``HTTPTransport``: Foundation's `URLSession` (libcurl with OpenSSL on Linux).
///
/// `URLError`s are classified into ``TransportError`` kinds: timeouts as `.timeout`; DNS, refused,
/// reset and lost connections as `.connection`; certificate failures as `.tls`.
///
/// Reply bodies are capped (``defaultMaxResponseBytes``, 4 MiB, unless set): a reply whose
/// `Content-Length` says more, or whose body grows past the cap, is cancelled as soon as that is
/// known and fails with a `.responseTooLarge` ``TransportError`` — the bytes beyond the cap are never
/// kept, so a hostile or broken server cannot exhaust memory. Replies are asked for uncompressed, and a
/// compressed one is refused before its body is read (`.unsupportedEncoding`), so no decoder inflates
/// a small body past the cap. Redirects follow AuthHub's rules (`RedirectPolicy`): credentials never go
/// to another origin, and a request with a body follows no redirect.
public struct URLSessionTransport: HTTPTransport {
    /// The reply-body cap of a transport that sets none: 4 MiB, far above any identity provider's
    /// reply (a JWKS or a discovery document is a few KiB).
    public static let defaultMaxResponseBytes = 4 << 20

    private let session: URLSession
    private let defaultTimeout: Duration
    private let maxResponseBytes: Int
    /// Whether this transport follows redirects itself (its own session's delegate declines them all).
    private let followsRedirects: Bool
    /// The session delegate that collects bodies under the cap; nil for a caller's own session.
    private let collector: BodyCollector?

    /// The one `URLSession` (and its body-collecting delegate) every transport created without a
    /// session of its own uses, like `URLSession.shared`. FoundationNetworking never releases a
    /// `URLSession`'s libcurl handle — its connections and wake-up socket pair stay open even after
    /// the session is invalidated, about four descriptors per discarded session — so a session per
    /// transport leaked descriptors in any program that makes transports as it goes (a server
    /// building a hub per request, a test suite). The shared session is immutable; the delegate keeps
    /// each request's state under its task identifier, unique within the session, and every
    /// transport's own settings (deadline, body cap, redirects) travel with its requests.
    private static let shared: (session: URLSession, collector: BodyCollector) = {
        let config = URLSessionConfiguration.ephemeral
        config.httpCookieStorage = nil
        config.httpShouldSetCookies = false
        config.urlCache = nil
        // No credential store: AuthHub sends every credential itself (never one FoundationNetworking
        // would find stored for a 401's `WWW-Authenticate` challenge and send on its own).
        config.urlCredentialStorage = nil
        config.requestCachePolicy = .reloadIgnoringLocalCacheData
        // The delegate declines every redirect (FoundationNetworking's delegate path for following one
        // can trap when a task is cancelled mid-redirect); transports follow them themselves.
        let collector = BodyCollector()
        return (URLSession(configuration: config, delegate: collector, delegateQueue: InlineDelegateQueue()), collector)
    }()

    /// Creates a transport.
    /// - Parameters:
    ///   - session: a session of your own; by default the shared ephemeral one (no cookies, no
    ///     cache). With your own session the body cap is checked once the reply has arrived (its
    ///     delegate is yours), so prefer the default for replies from outside.
    ///   - defaultTimeout: used when a request has no timeout of its own.
    ///   - followRedirects: when false, a 3xx reply is returned as it is (with its `Location`),
    ///     which OAuth flows driven without a browser need.
    ///   - maxResponseBytes: the largest reply body accepted (at least 1 KiB).
    public init(session: URLSession? = nil, defaultTimeout: Duration = .seconds(30), followRedirects: Bool = true,
                maxResponseBytes: Int = URLSessionTransport.defaultMaxResponseBytes) {
        self.maxResponseBytes = max(1024, maxResponseBytes)
        if let session {
            self.session = session
            self.collector = nil
        } else {
            self.session = Self.shared.session
            self.collector = Self.shared.collector
        }
        self.followsRedirects = followRedirects && session == nil
        self.defaultTimeout = defaultTimeout
    }

    /// The most redirects followed for one request.
    public static let maxRedirects = RedirectPolicy.maxRedirects

    public func send(_ request: HTTPRequest, body: Data?, timeout: Duration?) async throws -> HTTPReply {
        try await RedirectPolicy.send(request, body: body, deadline: timeout ?? defaultTimeout, follow: followsRedirects) {
            try await sendOnce($0, body: $1, timeout: $2)
        }
    }

    private func sendOnce(_ request: HTTPRequest, body: Data?, timeout: Duration) async throws -> HTTPReply {
        guard var urlRequest = URLRequest(httpRequest: request) else {
            throw TransportError(.other, "the request has no absolute URL")
        }
        // FoundationNetworking truncates the interval to whole seconds (0.4 s would become "time out
        // now"), and treats it as an idle timeout; the exact total deadline is enforced by
        // `exchange` below, so URLSession gets a whole-second interval just past it.
        urlRequest.timeoutInterval = (timeout.seconds).rounded(.up) + 1
        urlRequest.httpBody = body
        do {
            let (data, response) = try await Self.exchange(urlRequest, on: session, collector: collector,
                                                           maxBytes: maxResponseBytes, deadline: timeout)
            guard let http = response as? HTTPURLResponse else {
                throw TransportError(.other, "the reply was not HTTP")
            }
            // A status code outside 0…999 (which swift-http-types cannot hold) gives no head.
            guard let head = http.httpResponse else { throw TransportError(.other, "the reply's status code is out of range") }
            // (A caller's own session reads the whole body first; the transport's own session refuses
            // a compressed reply before its body, in `BodyCollector`.)
            if let refusal = RedirectPolicy.encodingRefusal(head.headerFields) { throw refusal }
            guard data.count <= maxResponseBytes else { throw Self.tooLarge(maxResponseBytes) }
            return HTTPReply(head, body: data)
        } catch let error as TransportError {
            throw error
        } catch let error as URLError {
            throw Self.classify(error)
        } catch is CancellationError {
            throw TransportError(.cancelled, "the request was cancelled")
        } catch {
            throw TransportError(.other, "the request failed: \(type(of: error))")
        }
    }

    static func tooLarge(_ maxBytes: Int) -> TransportError { RedirectPolicy.tooLarge(maxBytes) }

    /// How many requests with this deadline have their state alive in this process (running, or
    /// finished and waiting for their timer): for leak tests.
    package static func liveExchanges(timeout: Duration) -> Int { Exchange.liveCount(timeout: timeout) }

    /// One request with a total deadline (URLSession's own interval is an idle timeout, not a
    /// deadline): a dispatch timer cancels the URLSession task when `timeout` passes, and the
    /// calling task's cancellation cancels it too. No child tasks: a task group with a sleeping
    /// timeout task costs two extra thread wake-ups per request (BENCHMARKS.md,
    /// `signin.layers.transport-vs-urlsession`). With a `collector` (the transport's
    /// own session) the body arrives through it, under `maxBytes`; otherwise through a completion
    /// handler.
    /// - Throws: a `.timeout` ``TransportError`` when the deadline passed, a `.responseTooLarge` one
    ///   when the body passed `maxBytes`, `CancellationError` when the calling task was cancelled,
    ///   URLSession's error otherwise.
    static func exchange(_ request: URLRequest, on session: URLSession, collector: BodyCollector? = nil, maxBytes: Int = defaultMaxResponseBytes,
                         deadline timeout: Duration) async throws -> (Data, URLResponse) {
        let exchange = Exchange(maxBytes: maxBytes, timeout: timeout)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(Data, URLResponse), any Error>) in
                let task: URLSessionDataTask
                if let collector {
                    task = session.dataTask(with: request)
                    collector.register(task, exchange) { data, response, error in
                        exchange.finish(data: data, response: response, error: error)
                    }
                } else {
                    task = session.dataTask(with: request) { data, response, error in
                        exchange.finish(data: data, response: response, error: error)
                    }
                }
                let timer = DispatchWorkItem { exchange.stop(because: .timedOut) }
                guard exchange.start(task, timer: timer, continuation: continuation) else {
                    task.cancel()  // cancelled before it started: the caller was answered already
                    task.resume()
                    return
                }
                task.resume()
                DispatchQueue.global().asyncAfter(deadline: .now() + Self.dispatchInterval(timeout), execute: timer)
            }
        } onCancel: {
            exchange.stop(because: .cancelled)
        }
    }

    /// A `Duration` as a dispatch interval, clamped to 0…1 day (longer deadlines become one day).
    static func dispatchInterval(_ duration: Duration) -> DispatchTimeInterval {
        let nanoseconds = min(max(duration.seconds, 0), 86_400) * 1_000_000_000
        return .nanoseconds(Int(nanoseconds))
    }

    /// The shared state of one ``exchange(_:on:collector:maxBytes:deadline:)``: the URLSession task,
    /// its timer, the caller's continuation, the body collected so far, and why (if at all) it was
    /// stopped early.
    ///
    /// The caller is answered once, by whichever comes first: the task's completion, or a stop (the
    /// deadline, the caller's cancellation, a body over the cap). A stop cancels the task and answers
    /// at once — libcurl may take a while to wind a cancelled transfer down (it keeps reading a body
    /// that is still arriving), and the caller does not wait for that.
    final class Exchange: Sendable {
        enum Stop { case timedOut, cancelled, tooLarge, refused(TransportError) }
        typealias Continuation = CheckedContinuation<(Data, URLResponse), any Error>
        /// `@unchecked Sendable`, soundly: it lives only in the ``Mutex`` above and is touched only
        /// under its lock; the two reference types it holds are built for use across threads
        /// (`URLSessionDataTask.cancel()` and `DispatchWorkItem.cancel()` may be called from any
        /// thread) but are not marked `Sendable` in FoundationNetworking and Dispatch on Linux.
        private struct State: @unchecked Sendable {
            var task: URLSessionDataTask?
            var timer: DispatchWorkItem?
            var continuation: Continuation?
            var stop: Stop?
            var finished = false
            /// The task handed a redirect to the delegate, which declined it: the task now ends on
            /// its own, and must not be cancelled (see ``declineRedirect()``).
            var redirectDeclined = false
            var body = Data()

            /// Lets go of the task and the timer once the exchange is over. The timer's block holds
            /// the exchange, and the exchange held the timer and the task (whose completion handler
            /// holds the exchange too): kept, every request's exchange, task and body stayed in
            /// memory for good (~3 KB per request; issue 33's soak, RELIABILITY.md §9).
            mutating func releaseTaskAndTimer() {
                task = nil
                timer = nil
            }
        }
        private let state = Mutex(State())
        let maxBytes: Int
        let timeout: Duration

        init(maxBytes: Int, timeout: Duration) {
            self.maxBytes = maxBytes
            self.timeout = timeout
            Self.live.withLock { $0[timeout, default: 0] += 1 }
        }

        deinit {
            let timeout = self.timeout
            Self.live.withLock { live in
                live[timeout, default: 1] -= 1
                if live[timeout] == 0 { live[timeout] = nil }
            }
        }

        /// How many exchanges exist, by deadline: each is freed once its request is over and its
        /// timer has fired or been dropped (a leak test watches those of a deadline of its own).
        private static let live = Mutex<[Duration: Int]>([:])
        static func liveCount(timeout: Duration) -> Int { live.withLock { $0[timeout] ?? 0 } }

        /// Records the started task, its timer and the caller; false (the caller answered with
        /// `CancellationError`) when the exchange was cancelled already.
        func start(_ task: URLSessionDataTask, timer: DispatchWorkItem, continuation: Continuation) -> Bool {
            let started = state.withLock { state -> Bool in
                guard state.stop == nil else { return false }
                state.task = task
                state.timer = timer
                state.continuation = continuation
                return true
            }
            if !started { continuation.resume(throwing: CancellationError()) }
            return started
        }

        /// Stops the exchange (the deadline passed, the caller was cancelled, the body is too large):
        /// the first reason wins, the task is cancelled and the caller answered now. Before
        /// ``start(_:timer:continuation:)`` there is nothing to cancel yet; `start` then refuses to run.
        func stop(because reason: Stop) {
            let (running, continuation, timer) = state.withLock { state -> (URLSessionDataTask?, Continuation?, DispatchWorkItem?) in
                guard !state.finished, state.stop == nil else { return (nil, nil, nil) }
                state.stop = reason
                state.body = Data()
                let (task, timer) = (state.task, state.timer)
                state.releaseTaskAndTimer()
                defer { state.continuation = nil }
                return (state.redirectDeclined ? nil : task, state.continuation, timer)
            }
            timer?.cancel()
            // Not on the calling thread: with ``InlineDelegateQueue`` a stop can come from a delegate
            // callback running on the session's own work queue, and `cancel()` waits for that queue.
            if let running {
                let task = UncheckedTask(task: running)
                DispatchQueue.global().async { task.task.cancel() }
            }
            continuation?.resume(throwing: error(for: reason))
        }

        private func error(for reason: Stop) -> any Error {
            switch reason {
            case .timedOut: TransportError(.timeout, "no complete reply within \(timeout)")
            case .cancelled: CancellationError()
            case .tooLarge: URLSessionTransport.tooLarge(maxBytes)
            case .refused(let error): error
            }
        }

        /// The task received a 3xx reply and asks whether to follow it; true when the delegate may
        /// answer (declining), false when the exchange was stopped already and its task cancelled.
        ///
        /// FoundationNetworking traps ("Received callback for HTTP redirection, but we're not waiting
        /// for it") when a task is cancelled between asking its delegate about a redirect and the
        /// delegate's answer. So the two exclude each other, under the lock: once the delegate is to
        /// answer, a later ``stop(because:)`` answers the caller but leaves the task alone (it ends by
        /// itself with the 3xx reply's short body); once stopped (the task being cancelled), the
        /// delegate does not answer.
        func declineRedirect() -> Bool {
            state.withLock { state in
                guard state.stop == nil else { return false }
                state.redirectDeclined = true
                return true
            }
        }

        /// Whether a body of `length` bytes (a `Content-Length`) may be received; stops the exchange if not.
        func expect(_ length: Int64) -> Bool {
            guard length > Int64(maxBytes) else { return true }
            stop(because: .tooLarge)
            return false
        }

        /// Appends a chunk of the body, or stops the exchange once the body would pass the cap (the
        /// chunk and everything after it are dropped; libcurl may deliver a little more before the
        /// cancellation takes effect).
        func append(_ chunk: Data) {
            let overflow = state.withLock { state -> Bool in
                guard state.stop == nil else { return false }
                guard state.body.count + chunk.count <= maxBytes else { return true }
                state.body.append(chunk)
                return false
            }
            if overflow { stop(because: .tooLarge) }
        }

        /// The body collected by ``append(_:)``.
        var collected: Data { state.withLock { $0.body } }

        /// The URLSession task completed: answers the caller with its result, unless a stop did already.
        func finish(data: Data?, response: URLResponse?, error: (any Error)?) {
            let (continuation, timer) = state.withLock { state -> (Continuation?, DispatchWorkItem?) in
                state.finished = true
                let timer = state.timer
                state.releaseTaskAndTimer()
                state.body = Data()
                defer { state.continuation = nil }
                return (state.continuation, timer)
            }
            timer?.cancel()
            guard let continuation else { return }
            if let error {
                continuation.resume(throwing: error)
            } else if let response {
                continuation.resume(returning: (data ?? Data(), response))
            } else {
                continuation.resume(throwing: TransportError(.other, "no reply"))
            }
        }
    }

    /// Whether an unclassified `URLError` is libcurl's report of a TLS failure (its message names
    /// OpenSSL or an SSL routine).
    static func isTLSFailure(_ error: URLError) -> Bool {
        let text = error.userInfo[NSLocalizedDescriptionKey] as? String ?? ""
        return text.hasPrefix("OpenSSL") || text.contains("SSL routines") || text.contains("SSL_connect")
    }

    static func classify(_ error: URLError) -> TransportError {
        let kind: TransportError.Kind
        switch error.code {
        case .timedOut: kind = .timeout
        case .cancelled: kind = .cancelled
        case .cannotFindHost, .cannotConnectToHost, .networkConnectionLost, .dnsLookupFailed,
             .notConnectedToInternet, .dataNotAllowed, .internationalRoamingOff, .callIsActive,
             .resourceUnavailable, .badServerResponse, .zeroByteResource, .cannotParseResponse:
            kind = .connection
        case .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted,
             .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid, .clientCertificateRejected,
             .clientCertificateRequired:
            kind = .tls
        // FoundationNetworking reports a failed TLS handshake (libcurl's CURLE_SSL_CONNECT_ERROR) as
        // URLError -1 whose description is OpenSSL's ("OpenSSL/3.0: error:0A00010B:SSL routines::…").
        case .unknown where isTLSFailure(error): kind = .tls
        default: kind = .other
        }
        // The URL is left out on purpose: it may carry a code or token in its query.
        return TransportError(kind, "URLError \(error.code.rawValue)", underlying: error)
    }
}

/// Owns a ``URLSessionTransport``'s own session: invalidates it (letting running tasks finish) when the
/// last transport holding it is released, which frees its delegate and its pooled connections.

/// The delegate of a ``URLSessionTransport``'s own session: collects each task's body into its
/// ``URLSessionTransport/Exchange`` under the cap, completes it, and declines every redirect so the
/// 3xx reply itself reaches the transport (which follows it when asked to).
///
/// `@unchecked Sendable`: its one mutable member, the table of running tasks, is behind a `Mutex`.
final class BodyCollector: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    typealias Completion = @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    private struct Running {
        var exchange: URLSessionTransport.Exchange
        var response: URLResponse?
        var completion: Completion
        /// The reply that raised an HTTP authentication challenge (see ``urlSession(_:task:didReceive:completionHandler:)``).
        var challenged: HTTPURLResponse?
    }
    private let running = Mutex<[Int: Running]>([:])

    /// Starts collecting `task`'s body into `exchange`; `completion` runs once, when the task ends.
    func register(_ task: URLSessionDataTask, _ exchange: URLSessionTransport.Exchange, completion: @escaping Completion) {
        running.withLock { $0[task.taskIdentifier] = Running(exchange: exchange, completion: completion) }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        let exchange = running.withLock { table -> URLSessionTransport.Exchange? in
            table[dataTask.taskIdentifier]?.response = response
            return table[dataTask.taskIdentifier]?.exchange
        }
        if let exchange, response.expectedContentLength >= 0, !exchange.expect(response.expectedContentLength) {
            completionHandler(.cancel)
            return
        }
        // A compressed reply is refused before its body: libcurl would inflate it faster than this
        // delegate can count it (a 1 MB body inflating to 1 GiB reached 1.1 GB of memory).
        if let exchange, let head = (response as? HTTPURLResponse)?.httpResponse,
           let refusal = RedirectPolicy.encodingRefusal(head.headerFields) {
            exchange.stop(because: .refused(refusal))
            completionHandler(.cancel)
            return
        }
        completionHandler(.allow)
    }

    /// AuthHub sends every credential itself: an HTTP authentication challenge (a 401 with
    /// `WWW-Authenticate: Basic`, as RFC 6749 section 5.2 asks of a token endpoint that refuses a
    /// client's Basic credentials) is an ordinary reply for the caller.
    ///
    /// FoundationNetworking before swift-corelibs-foundation #5457 (in Swift 6.3.1 still) leaves such
    /// a task suspended for good when no stored credential is proposed, whatever the delegate answers
    /// but cancel: so the challenge is cancelled, and ``urlSession(_:task:didCompleteWithError:)``
    /// delivers the 401 that raised it, with the body received, instead of the cancellation. Darwin's
    /// URLSession passes the reply through by itself.
    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        #if canImport(FoundationNetworking)
        if let failure = challenge.failureResponse as? HTTPURLResponse,
           running.withLock({ table -> Bool in
               guard table[task.taskIdentifier] != nil else { return false }
               table[task.taskIdentifier]?.challenged = failure
               return true
           }) {
            // Not on this thread: the delegate runs inline on the session's work queue, which the
            // cancellation waits for.
            DispatchQueue.global().async { completionHandler(.cancelAuthenticationChallenge, nil) }
            return
        }
        #endif
        completionHandler(.performDefaultHandling, nil)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        running.withLock { $0[dataTask.taskIdentifier]?.exchange }?.append(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let entry = running.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let challenged = entry.challenged {
            // The challenge was cancelled to get past FoundationNetworking's wait: the 401 is the reply.
            entry.completion(entry.exchange.collected, challenged, nil)
            return
        }
        entry.completion(entry.exchange.collected, entry.response ?? task.response, error)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        // Declined (nil): the 3xx reply itself completes the task. Not answered at all when the
        // exchange was stopped and its task cancelled meanwhile (see `Exchange.declineRedirect()`).
        let exchange = running.withLock { $0[task.taskIdentifier]?.exchange }
        guard exchange?.declineRedirect() ?? true else { return }
        completionHandler(nil)
    }
}

/// A `URLSessionDataTask` handed to another thread to be cancelled. `@unchecked Sendable`, soundly:
/// `cancel()` may be called from any thread (FoundationNetworking serialises it on the task's own
/// queue), and nothing else is done with it there.
private struct UncheckedTask: @unchecked Sendable {
    let task: URLSessionDataTask
}

/// The delegate queue of the transport's shared session: runs each delegate callback at once, on the
/// thread that delivers it (FoundationNetworking's work queue), instead of queueing it.
///
/// FoundationNetworking always lets libcurl decode a compressed reply (`CURLOPT_ACCEPT_ENCODING` is set
/// on every request) and hands each decoded chunk to the delegate queue without waiting. With an
/// ordinary queue, a 1 MB gzip body inflating to 1 GiB was decoded into queued chunks faster than the
/// delegate could count them: 1.1 GB of memory before the body cap fired. Run inline, every chunk
/// reaches ``BodyCollector`` before the next is decoded, so the cap (and the refusal of a compressed
/// reply, from its head) holds on what arrives, and a stopped exchange drops each further chunk at once
/// while its cancellation takes effect. The callbacks only take a lock and append; a cancellation they
/// cause is dispatched elsewhere (see `Exchange.stop`).
final class InlineDelegateQueue: OperationQueue, @unchecked Sendable {
    override func addOperation(_ block: @escaping @Sendable () -> Void) { block() }
    override func addOperation(_ op: Operation) { op.start() }
}
