import AuthHub
import Foundation
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif

/// Receives one authorization redirect on the loopback interface (RFC 8252, section 7.3), for native apps
/// and command-line tools that open the system browser.
///
/// It listens on `127.0.0.1` on a port the system picks, so ``redirectURI`` is
/// `http://127.0.0.1:<port>/callback`. ``waitForCallback(timeout:clock:)`` accepts connections
/// until one `GET` request for the callback path arrives, answers it with a small HTML page (which
/// shows nothing of the request), stops listening and returns the full callback URL for
/// ``OIDCAuthorizationTransaction/parseCallback(_:)-(URL)``. Requests for other paths (a
/// browser's `/favicon.ico`) get a 404 and waiting goes on. The receiver is single use: after a
/// callback, a timeout, a cancellation or ``close()``, the port is closed.
///
/// Implemented with plain POSIX sockets (AuthHubOIDC does not depend on SwiftNIO): a dedicated
/// thread polls the listening socket in short intervals so that it notices cancellation, and it is
/// the only place that closes the socket once waiting has started.
public final class LoopbackRedirectReceiver: Sendable {
    /// The port the system assigned.
    public let port: UInt16
    /// The callback path, `/callback` by default.
    public let path: String
    /// The page the browser shows after the redirect.
    public let responseHTML: String

    private enum Phase {
        case ready
        case waiting
        case finished
    }

    private struct State {
        var phase: Phase = .ready
        var stop = false
    }

    private let socket: Int32
    private let state = Mutex(State())

    /// The redirect URI to register and send: `http://127.0.0.1:<port><path>`.
    public var redirectURI: String { "http://127.0.0.1:\(port)\(path)" }

    /// The default page: tells the user to go back to the application.
    public static let defaultResponseHTML = """
        <!doctype html><html><head><meta charset="utf-8"><title>Sign-in</title></head>\
        <body><p>The sign-in response was received. You can close this window and return to the application.</p></body></html>
        """

    /// Opens the listening socket on `127.0.0.1`.
    /// - Parameters:
    ///   - port: the port to listen on; 0 (the default) lets the system pick a free one. A fixed
    ///     port is for a redirect URI registered with one (`http://127.0.0.1:8765/callback`).
    ///   - path: the callback path; must start with `/`.
    ///   - responseHTML: the page to answer the callback with.
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` for a path without a leading `/`;
    ///   ``AuthErrorCode/network`` when the socket cannot be opened (e.g. the port is in use).
    public init(port: UInt16 = 0, path: String = "/callback",
                responseHTML: String = LoopbackRedirectReceiver.defaultResponseHTML) throws {
        guard path.hasPrefix("/"), !path.contains("?"), !path.contains("#") else {
            throw AuthError(.invalidConfiguration, message: "The loopback callback path must start with / and have no query.")
        }
        self.path = path
        self.responseHTML = responseHTML
        let (fd, port) = try Self.openListeningSocket(port: port)
        self.socket = fd
        self.port = port
    }

    deinit {
        let shouldClose = state.withLock { s -> Bool in
            defer { s.phase = .finished }
            return s.phase == .ready
        }
        if shouldClose { _ = Self.closeSocket(socket) }
    }

    /// Stops listening. A pending ``waitForCallback(timeout:clock:)`` ends with
    /// ``AuthErrorCode/userCancelled``.
    public func close() {
        let closeNow = state.withLock { s -> Bool in
            s.stop = true
            if s.phase == .ready {
                s.phase = .finished
                return true
            }
            return false
        }
        if closeNow { _ = Self.closeSocket(socket) }
    }

    /// The longest ``waitForCallback(timeout:clock:)`` waits, whatever timeout it is given: one day.
    public static let maxTimeout: Duration = .seconds(86_400)

    /// Waits for the browser's redirect.
    /// - Parameters:
    ///   - timeout: how long to wait, measured on `clock`.
    ///   - clock: the clock whose sleep bounds the wait (inject a fake one in tests).
    /// - Returns: the callback URL, e.g. `http://127.0.0.1:51234/callback?code=…&state=…`.
    /// - Throws: ``AuthErrorCode/timeout`` when no callback arrives in time;
    ///   ``AuthErrorCode/userCancelled`` when the task is cancelled or ``close()`` is called;
    ///   ``AuthErrorCode/invalidRequest`` when the receiver was already used;
    ///   ``AuthErrorCode/network`` when the socket fails.
    public func waitForCallback(timeout: Duration, clock: any AuthClock = SystemClock()) async throws -> URL {
        let start = state.withLock { s -> Bool in
            guard s.phase == .ready, !s.stop else { return false }
            s.phase = .waiting
            return true
        }
        guard start else {
            throw AuthError(.invalidRequest, message: "This loopback receiver was already used; create a new one.")
        }
        do {
            return try await withThrowingTaskGroup(of: URL?.self) { group in
                group.addTask { try await self.acceptCallback() }
                group.addTask {
                    // A caller's timeout is clamped to 0…1 day: `Task.sleep` traps on a deadline past Int64.
                    try await clock.sleep(for: Swift.min(Swift.max(timeout, .zero), Self.maxTimeout))
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let url = first else {
                    throw AuthError(.timeout, message: "No sign-in response arrived from the browser in time.")
                }
                return url
            }
        } catch is CancellationError {
            throw AuthError(.userCancelled, message: "Waiting for the sign-in response was cancelled.")
        }
    }

    /// Runs the accept loop on its own thread until a callback arrives or the wait is stopped.
    private func acceptCallback() async throws -> URL {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<URL, any Error>) in
                let thread = Thread { [self] in
                    let result = self.acceptLoop()
                    self.state.withLock { $0.phase = .finished }
                    _ = Self.closeSocket(self.socket)
                    continuation.resume(with: result)
                }
                thread.name = "authhub.loopback-receiver"
                thread.start()
            }
        } onCancel: {
            state.withLock { $0.stop = true }
        }
    }

    private func acceptLoop() -> Result<URL, any Error> {
        while true {
            if state.withLock({ $0.stop }) { return .failure(CancellationError()) }
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 100)
            if ready < 0 {
                if errno == EINTR { continue }
                return .failure(AuthError(.network, message: "The loopback receiver failed while waiting (errno \(errno))."))
            }
            if ready == 0 { continue }
            let connection = accept(socket, nil, nil)
            if connection < 0 { continue }
            if let url = handle(connection) { return .success(url) }
        }
    }

    /// Answers one connection; returns the callback URL when it was the callback request.
    private func handle(_ connection: Int32) -> URL? {
        defer { _ = Self.closeSocket(connection) }
        Self.disableSIGPIPE(connection)
        guard let head = Self.readHead(connection) else {
            Self.respond(connection, status: "400 Bad Request", html: "<p>Bad request.</p>")
            return nil
        }
        let requestLine = head.split(separator: "\r\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 3, parts[2].hasPrefix("HTTP/1."), parts[1].hasPrefix("/") else {
            Self.respond(connection, status: "400 Bad Request", html: "<p>Bad request.</p>")
            return nil
        }
        let target = String(parts[1])
        let targetPath = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? target
        guard targetPath == path else {
            Self.respond(connection, status: "404 Not Found", html: "<p>Not found.</p>")
            return nil
        }
        guard parts[0] == "GET" else {
            Self.respond(connection, status: "405 Method Not Allowed", html: "<p>Method not allowed.</p>")
            return nil
        }
        guard let url = URL(string: "http://127.0.0.1:\(port)" + target) else {
            Self.respond(connection, status: "400 Bad Request", html: "<p>Bad request.</p>")
            return nil
        }
        Self.respond(connection, status: "200 OK", html: responseHTML)
        return url
    }

    // MARK: - POSIX helpers

    private static func openListeningSocket(port requested: UInt16) throws -> (Int32, UInt16) {
        #if canImport(Darwin)
        let fd = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #else
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard fd >= 0 else { throw failure("socket") }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        if requested != 0 {
            // A fixed port may still have connections of the last sign-in in TIME_WAIT.
            var on: Int32 = 1
            _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = requested.bigEndian
        address.sin_addr = in_addr(s_addr: in_addr_t(0x7F00_0001).bigEndian)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, posixListen(fd, 8) == 0 else {
            let error = failure("bind/listen")
            _ = closeSocket(fd)
            throw error
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else {
            let error = failure("getsockname")
            _ = closeSocket(fd)
            throw error
        }
        return (fd, UInt16(bigEndian: actual.sin_port))
    }

    private static func failure(_ call: String) -> AuthError {
        AuthError(.network, message: "The loopback receiver could not open a socket (\(call) failed, errno \(errno)).",
                  isRetryable: false)
    }

    /// Reads the request head (up to the blank line), at most 16 KiB, within 5 s for the whole head:
    /// a client trickling one byte at a time cannot hold the receiver past that.
    private static func readHead(_ connection: Int32) -> String? {
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        let terminator: [UInt8] = [13, 10, 13, 10]
        let deadline = ContinuousClock.now + .seconds(5)
        while data.count < 16 * 1024 {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { return nil }
            let milliseconds = Int32(clamping: remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000)
            var descriptor = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, max(1, milliseconds))
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { return nil }
            let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return nil }
            data.append(contentsOf: buffer[0..<count])
            if let end = data.firstRange(of: terminator) {
                return String(decoding: data[..<end.lowerBound], as: UTF8.self)
            }
        }
        return nil
    }

    private static func respond(_ connection: Int32, status: String, html: String) {
        let body = Array(html.utf8)
        let head = "HTTP/1.1 \(status)\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: \(body.count)\r\n"
            + "Cache-Control: no-store\r\nConnection: close\r\n\r\n"
        let bytes = Array(head.utf8) + body
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return -1 }
                return send(connection, base + offset, raw.count - offset, sendFlags)
            }
            if sent < 0, errno == EINTR { continue }
            guard sent > 0 else { return }
            offset += sent
        }
    }

    #if canImport(Darwin)
    private static let sendFlags: Int32 = 0
    private static func disableSIGPIPE(_ fd: Int32) {
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
    }
    #else
    private static let sendFlags = Int32(MSG_NOSIGNAL)
    private static func disableSIGPIPE(_ fd: Int32) {}
    #endif

    private static func closeSocket(_ fd: Int32) -> Int32 {
        #if canImport(Darwin)
        Darwin.close(fd)
        #else
        Glibc.close(fd)
        #endif
    }
}

#if canImport(Darwin)
private func posixListen(_ fd: Int32, _ backlog: Int32) -> Int32 { Darwin.listen(fd, backlog) }
#else
private func posixListen(_ fd: Int32, _ backlog: Int32) -> Int32 { Glibc.listen(fd, backlog) }
#endif
