import AuthHub
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Wraps the CLI's transport so that a request still unanswered after ``delay`` says so on the
/// terminal ("Waiting for auth.example.com…"), once per request. Used only when standard error is
/// a terminal: scripts and logs see nothing.
struct WaitingNoticeTransport: HTTPTransport {
    /// How long a request runs before the notice, by default.
    static let defaultDelay: Duration = .seconds(3)

    let inner: any HTTPTransport
    let delay: Duration
    let write: @Sendable (String) -> Void

    init(_ inner: any HTTPTransport, delay: Duration = WaitingNoticeTransport.defaultDelay,
         write: @escaping @Sendable (String) -> Void = { CLI.stderr($0) }) {
        self.inner = inner
        self.delay = delay
        self.write = write
    }

    /// Whether the notices would reach a person: standard error is a terminal.
    static var isTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    func send(_ request: HTTPRequest, body: Data?, timeout: Duration?) async throws -> HTTPReply {
        // The authority is `host` or `host:port`: never a path or query, which may hold codes.
        let host = request.authority ?? "the provider"
        let write = self.write, delay = self.delay
        let notice = Task {
            try await Task.sleep(for: delay)
            write("Waiting for \(host)…")
        }
        defer { notice.cancel() }
        return try await inner.send(request, body: body, timeout: timeout)
    }
}
