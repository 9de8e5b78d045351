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
        // `withDeadline` below, so URLSession gets a whole-second interval just past it.
        urlRequest.timeoutInterval = (timeout.seconds).rounded(.up) + 1
        for field in request.headers { urlRequest.addValue(field.value, forHTTPHeaderField: field.name) }
        urlRequest.httpBody = request.body
        do {
            let prepared = urlRequest
            let (data, response) = try await Self.withDeadline(timeout) { [session] in
                try await session.data(for: prepared)
            }
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

    /// Runs `operation`, failing with a `.timeout` ``TransportError`` when it takes longer than
    /// `timeout` in total (URLSession's own interval is an idle timeout, not a deadline).
    static func withDeadline<T: Sendable>(_ timeout: Duration, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await operation() }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw TransportError(.timeout, "no complete reply within \(timeout)")
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw TransportError(.other, "no result") }
            return first
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
