import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A misbehaving HTTP server on an ephemeral 127.0.0.1 port, for fault tests: each request is
/// answered by a ``Script`` the test chooses — a normal reply, raw bytes, silence until the client
/// gives up, a reset connection, a body that never ends.
///
/// Plain sockets and one thread per connection, so that a script can do what no well-behaved server
/// framework does (reset, truncate, stall). Only loopback is ever bound. ``stop()`` (or `deinit`)
/// closes the listener and every open connection.
public final class ScriptedUpstream: @unchecked Sendable {
    // @unchecked Sendable: every mutable member is behind `lock`; the listener descriptor is immutable.

    /// What the server does with one request.
    public enum Script: Sendable {
        /// A complete reply with `Content-Length`.
        case reply(status: Int, headers: [(String, String)] = [], body: Data = Data())
        /// These bytes, exactly, then the connection is closed (e.g. a truncated reply).
        case raw(Data)
        /// Nothing at all: the connection stays open, unanswered, until the client closes it or the
        /// server stops.
        case silent
        /// The connection is reset (RST) without a reply.
        case reset
        /// The connection is closed without a reply.
        case close
        /// A reply whose body never ends: `chunk` is sent again and again (chunked encoding, or with a
        /// huge `Content-Length` when `declaredLength` is set) until the client stops reading or the
        /// server has sent `limit` bytes.
        case endless(status: Int = 200, chunk: Data = Data(repeating: 0x20, count: 64 * 1024), declaredLength: Int? = nil,
                     limit: Int = 64 << 20)

        /// A 200 reply whose chunked body is `chunk` sent `count` times, one every `interval`: a
        /// server that is never idle for long but takes `count × interval` in all (for telling a
        /// total deadline from an idle timeout).
        case trickle(chunk: Data = Data("x".utf8), count: Int, interval: Duration)

        /// A JSON reply.
        public static func json(_ status: Int, _ text: String, headers: [(String, String)] = []) -> Script {
            .reply(status: status, headers: [("Content-Type", "application/json")] + headers, body: Data(text.utf8))
        }
    }

    /// A request as the server read it.
    public struct Request: Sendable {
        public var method: String
        /// The path with its query, as sent.
        public var target: String
        /// The header fields by lowercased name; repeated fields joined with ", ".
        public var headers: [String: String]
        public var body: Data
        /// The path without the query.
        public var path: String { String(target.split(separator: "?", maxSplits: 1).first ?? "") }
    }

    /// The port the server listens on.
    public let port: UInt16
    /// `http://127.0.0.1:<port>`.
    public var baseURL: URL {
        var components = URLComponents()
        components.scheme = "http"
        components.host = "127.0.0.1"
        components.port = Int(port)
        return components.url ?? URL(fileURLWithPath: "/")
    }

    private let listener: Int32
    private let handler: @Sendable (Request) -> Script
    private let lock = NSLock()
    private var connections = Set<Int32>()
    private var stopped = false
    private var received: [Request] = []

    /// A TCP socket on 127.0.0.1 bound to a port the system picked, listening with `backlog` when
    /// one is given (else only bound, to reserve the port), and that port. Shared by the servers of
    /// this test kit and the transport suite's closed port.
    /// - Throws: `POSIXError` when the socket cannot be opened, bound or put to listen.
    static func loopbackSocket(listening backlog: Int32?, reuseAddress: Bool = false) throws -> (fd: Int32, port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        if reuseAddress {
            var yes: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = 0
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, backlog.map({ listen(fd, $0) == 0 }) ?? true else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        var out = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &out) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, UInt16(bigEndian: out.sin_port))
    }

    /// A loopback port nobody listens on now (bound, read and closed), for a server the caller
    /// starts next. Another process may take it in between, as with any such helper.
    /// - Throws: `POSIXError` when no loopback socket can be bound.
    public static func freeLoopbackPort() throws -> Int {
        let (fd, port) = try loopbackSocket(listening: nil)
        close(fd)
        return Int(port)
    }

    /// Starts a server answering every request with `handler`'s script.
    /// - Throws: `POSIXError` when no loopback socket can be opened.
    public init(_ handler: @escaping @Sendable (Request) -> Script) throws {
        (listener, port) = try Self.loopbackSocket(listening: 64, reuseAddress: true)
        self.handler = handler
        let thread = Thread { [self] in acceptLoop() }
        thread.stackSize = 1 << 20
        thread.start()
    }

    deinit { stop() }

    /// Every request read so far.
    public var requests: [Request] { lock.withLock { received } }

    /// Stops accepting and shuts every open connection down; idempotent.
    ///
    /// Descriptors are only ever closed by the thread that owns them, under the lock that `stop`
    /// shuts them down under: a descriptor number freed by one thread and reused by another socket
    /// (this process's clients included) can never be shut down or accepted on by mistake.
    public func stop() {
        lock.withLock {
            guard !stopped else { return }
            stopped = true
            shutdown(listener, Int32(SHUT_RDWR))
            for fd in connections { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    private func acceptLoop() {
        defer { close(listener) }
        while !isStopped {
            var descriptor = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 100)
            guard ready > 0 else { continue }
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else {
                // Out of descriptors (EMFILE, ENFILE) or an aborted connection: the listener stays
                // readable, so pause instead of spinning a core until a descriptor is free.
                usleep(10_000)
                continue
            }
            let admitted = lock.withLock { () -> Bool in
                guard !stopped else { return false }
                connections.insert(connection)
                return true
            }
            guard admitted else { close(connection); return }
            var noSigPipe: Int32 = 1
            #if canImport(Darwin)
            setsockopt(connection, SOL_SOCKET, SO_NOSIGPIPE, &noSigPipe, socklen_t(MemoryLayout<Int32>.size))
            #else
            _ = noSigPipe
            #endif
            let thread = Thread { [self] in serve(connection) }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer {
            lock.withLock {
                _ = connections.remove(connection)
                close(connection)
            }
        }
        // Keep-alive: a client may send several requests on one connection.
        while let request = readRequest(connection) {
            lock.withLock { received.append(request) }
            switch handler(request) {
            case .reply(let status, let headers, let body):
                var head = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
                for (name, value) in headers { head += "\(name): \(value)\r\n" }
                head += "Content-Length: \(body.count)\r\n\r\n"
                guard send(connection, Data(head.utf8) + body) else { return }
            case .raw(let bytes):
                _ = send(connection, bytes)
                return
            case .silent:
                var byte: UInt8 = 0
                while !isStopped {
                    var descriptor = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
                    if poll(&descriptor, 1, 100) > 0 {
                        if recv(connection, &byte, 1, 0) <= 0 { return }
                    }
                }
                return
            case .reset:
                var linger = Glibc_linger(l_onoff: 1, l_linger: 0)
                setsockopt(connection, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc_linger>.size))
                return
            case .close:
                return
            case .trickle(let chunk, let count, let interval):
                let head = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n"
                guard send(connection, Data(head.utf8)) else { return }
                let framed = Data(String(chunk.count, radix: 16).utf8) + Data("\r\n".utf8) + chunk + Data("\r\n".utf8)
                let pause = interval.components
                for _ in 0..<max(count, 0) {
                    Thread.sleep(forTimeInterval: Double(pause.seconds) + Double(pause.attoseconds) / 1e18)
                    guard !isStopped, send(connection, framed) else { return }
                }
                guard send(connection, Data("0\r\n\r\n".utf8)) else { return }
            case .endless(let status, let chunk, let declaredLength, let limit):
                var head = "HTTP/1.1 \(status) \(Self.reason(status))\r\nContent-Type: application/json\r\n"
                head += declaredLength.map { "Content-Length: \($0)\r\n\r\n" } ?? "Transfer-Encoding: chunked\r\n\r\n"
                guard send(connection, Data(head.utf8)) else { return }
                let framed = declaredLength == nil
                    ? Data(String(chunk.count, radix: 16).utf8) + Data("\r\n".utf8) + chunk + Data("\r\n".utf8) : chunk
                var sent = 0
                while sent < limit, !isStopped, send(connection, framed) { sent += chunk.count }
                return
            }
        }
    }

    /// Reads one request (head and a `Content-Length` body), or nil when the client closed or the
    /// server stopped.
    private func readRequest(_ connection: Int32) -> Request? {
        var data = Data()
        let terminator = Data("\r\n\r\n".utf8)
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        var headEnd: Range<Data.Index>?
        while headEnd == nil {
            guard !isStopped, data.count < 1 << 20 else { return nil }
            var descriptor = pollfd(fd: connection, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 100) >= 0 else { return nil }
            if descriptor.revents == 0 { continue }
            let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            data.append(contentsOf: buffer[0..<count])
            headEnd = data.range(of: terminator)
        }
        guard let headEnd else { return nil }
        let head = String(decoding: data[..<headEnd.lowerBound], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            // A repeated field is joined with ", " (RFC 9110, section 5.3), so none is lost.
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { $0 + ", " + value } ?? value
        }
        var body = Data(data[headEnd.upperBound...])
        let length = min(Int(headers["content-length"] ?? "0") ?? 0, 1 << 20)
        while body.count < length {
            let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            body.append(contentsOf: buffer[0..<count])
        }
        return Request(method: String(requestLine[0]), target: String(requestLine[1]), headers: headers, body: body)
    }

    /// Sends all of `data`; false when the client went away.
    private func send(_ connection: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Bool in
            guard let base = raw.baseAddress else { return true }
            var offset = 0
            while offset < raw.count {
                #if canImport(Darwin)
                let written = Darwin.send(connection, base + offset, raw.count - offset, 0)
                #else
                let written = Glibc.send(connection, base + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                #endif
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return false }
                offset += written
            }
            return true
        }
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 404: "Not Found"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }
}

#if canImport(Glibc) || canImport(Musl)
private typealias Glibc_linger = linger
#else
private typealias Glibc_linger = Darwin.linger
#endif
