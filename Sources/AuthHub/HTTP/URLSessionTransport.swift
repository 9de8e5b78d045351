import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default ``HTTPTransport``: Foundation's `URLSession` (libcurl with OpenSSL on Linux).
///
/// `URLError`s are classified into ``TransportError`` kinds: timeouts as `.timeout`; DNS, refused,
/// reset and lost connections as `.connection`; certificate failures as `.tls`.
public struct URLSessionTransport: HTTPTransport {
    private let session: URLSession
    private let defaultTimeout: Duration

    /// Creates a transport.
    /// - Parameters:
    ///   - session: the session to use; by default an ephemeral one that stores no cookies.
    ///   - defaultTimeout: used when a request has no timeout of its own.
    ///   - followRedirects: when false, a 3xx reply is returned as it is (with its `Location`),
    ///     which OAuth flows driven without a browser need.
    public init(session: URLSession? = nil, defaultTimeout: Duration = .seconds(30), followRedirects: Bool = true) {
        if let session {
            self.session = session
        } else {
            let config = URLSessionConfiguration.ephemeral
            config.httpCookieStorage = nil
            config.httpShouldSetCookies = false
            config.urlCache = nil
            config.requestCachePolicy = .reloadIgnoringLocalCacheData
            self.session = URLSession(configuration: config, delegate: followRedirects ? nil : RedirectRefusal(), delegateQueue: nil)
        }
        self.defaultTimeout = defaultTimeout
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method.rawValue
        let timeout = request.timeout ?? defaultTimeout
        // FoundationNetworking truncates the interval to whole seconds (0.4 s would become "time out
        // now"), and treats it as an idle timeout; the exact total deadline is enforced by
        // `exchange` below, so URLSession gets a whole-second interval just past it.
        urlRequest.timeoutInterval = (timeout.seconds).rounded(.up) + 1
        for field in request.headers { urlRequest.addValue(field.value, forHTTPHeaderField: field.name) }
        urlRequest.httpBody = request.body
        do {
            let (data, response) = try await Self.exchange(urlRequest, on: session, deadline: timeout)
            guard let http = response as? HTTPURLResponse else {
                throw TransportError(.other, "the reply was not HTTP")
            }
            var headers = HTTPHeaders()
            for (key, value) in http.allHeaderFields {
                if let k = key as? String, let v = value as? String { headers.add(name: k, value: v) }
            }
            return HTTPResponse(status: http.statusCode, headers: headers, body: data)
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

    /// One request with a total deadline (URLSession's own interval is an idle timeout, not a
    /// deadline): a dispatch timer cancels the URLSession task when `timeout` passes, and the
    /// calling task's cancellation cancels it too. No child tasks: a task group with a sleeping
    /// timeout task cost two extra thread wake-ups per request, ~90 µs on a 2-core virtual machine
    /// (BENCHMARKS.md, `signin.layers.transport-vs-urlsession`).
    /// - Throws: a `.timeout` ``TransportError`` when the deadline passed, `CancellationError` when
    ///   the calling task was cancelled, URLSession's error otherwise.
    static func exchange(_ request: URLRequest, on session: URLSession, deadline timeout: Duration) async throws -> (Data, URLResponse) {
        let exchange = Exchange()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(Data, URLResponse), any Error>) in
                let task = session.dataTask(with: request) { data, response, error in
                    continuation.resume(with: exchange.finish(data: data, response: response, error: error, timeout: timeout))
                }
                let timer = DispatchWorkItem { exchange.stop(because: .timedOut) }
                guard exchange.start(task, timer: timer) else {
                    task.cancel()  // cancelled before it started: completes with URLError.cancelled
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

    /// The shared state of one ``exchange(_:on:deadline:)``: the URLSession task, its timer, and why
    /// it was stopped early, if it was.
    private final class Exchange: Sendable {
        enum Stop { case timedOut, cancelled }
        private struct State {
            var task: URLSessionDataTask?
            var timer: DispatchWorkItem?
            var stop: Stop?
            var finished = false
        }
        private let state = Mutex(State())

        /// Records the started task and its timer; false when the exchange was cancelled already.
        func start(_ task: URLSessionDataTask, timer: DispatchWorkItem) -> Bool {
            state.withLock { state in
                guard state.stop == nil else { return false }
                state.task = task
                state.timer = timer
                return true
            }
        }

        /// Stops the exchange (the deadline passed or the caller was cancelled); the first reason wins.
        /// Before ``start(_:timer:)`` there is nothing to cancel yet; `start` then refuses to run.
        func stop(because reason: Stop) {
            let running = state.withLock { state -> URLSessionDataTask? in
                guard !state.finished, state.stop == nil else { return nil }
                state.stop = reason
                return state.task
            }
            running?.cancel()
        }

        /// The result of the completed URLSession task, given why (if at all) it was stopped.
        func finish(data: Data?, response: URLResponse?, error: (any Error)?, timeout: Duration) -> Result<(Data, URLResponse), any Error> {
            let (stop, timer) = state.withLock { state in
                state.finished = true
                return (state.stop, state.timer)
            }
            timer?.cancel()
            switch stop {
            case .timedOut: return .failure(TransportError(.timeout, "no complete reply within \(timeout)"))
            case .cancelled: return .failure(CancellationError())
            case nil:
                if let error { return .failure(error) }
                guard let response else { return .failure(TransportError(.other, "no reply")) }
                return .success((data ?? Data(), response))
            }
        }
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
        default: kind = .other
        }
        // The URL is left out on purpose: it may carry a code or token in its query.
        return TransportError(kind, "URLError \(error.code.rawValue)", underlying: error)
    }
}

/// Declines every redirect so the 3xx reply itself reaches the caller.
private final class RedirectRefusal: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}
