import AuthHub
import Dispatch
import Foundation
import Synchronization

/// Reads structured values from the fuzzer's bytes; past the end every read yields zeros/empties, so
/// any input is a valid script.
struct FuzzReader {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { index >= bytes.count }
    var remaining: Int { max(0, bytes.count - index) }

    mutating func byte() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func u16() -> Int { Int(byte()) << 8 | Int(byte()) }

    mutating func bool() -> Bool { byte() & 1 == 1 }

    /// `count` bytes (fewer at the end of the input).
    mutating func take(_ count: Int) -> [UInt8] {
        let n = min(max(0, count), remaining)
        defer { index += n }
        return Array(bytes[index..<(index + n)])
    }

    /// A chunk prefixed by a two-byte big-endian length.
    mutating func chunk() -> [UInt8] { take(u16()) }

    /// A chunk as text (invalid UTF-8 repaired, as a transport decoding a header would).
    mutating func string() -> String { String(decoding: chunk(), as: UTF8.self) }

    /// Everything not read yet.
    mutating func rest() -> [UInt8] { take(remaining) }

    /// One of `choices`, picked by the next byte.
    mutating func pick<T>(_ choices: [T]) -> T { choices[Int(byte()) % choices.count] }
}

/// Runs `body` to completion on the cooperative pool and blocks the fuzzer's thread until it ends.
func runBlocking(_ body: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        await body()
        done.signal()
    }
    done.wait()
}

/// A clock fixed at 2026-01-01 whose sleeps return at once (advancing it), so retries and polling
/// cost nothing.
final class FuzzClock: AuthClock {
    private let current = Synchronization.Mutex(Date(timeIntervalSince1970: 1_767_225_600))

    var now: Date { current.withLock { $0 } }

    func sleep(for duration: Duration) async throws {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        current.withLock { $0 = $0.addingTimeInterval(min(max(seconds, 0), 86_400)) }
    }
}

/// Randomness that is the same on every run (a fuzz input must reproduce).
struct FuzzRandom: RandomSource {
    func bytes(_ count: Int) -> [UInt8] { (0..<max(0, count)).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) } }
}

/// The header names a reply draws from (the ones AuthHub reads, and a few it should ignore).
let fuzzHeaderNames = [
    "Retry-After", "Location", "Content-Type", "Cache-Control", "WWW-Authenticate", "Date", "X-Request-Id",
    "Expires", "Age", "Set-Cookie",
]

/// A reply read from the fuzzer's bytes: status, up to three headers, a body.
func readReply(_ reader: inout FuzzReader) -> HTTPReply {
    let statuses = [200, 200, 200, 201, 204, 302, 400, 401, 403, 404, 409, 429, 500, 503]
    let selector = reader.byte()
    let status = selector < 200 ? statuses[Int(selector) % statuses.count] : 100 + reader.u16() % 500
    var fields = HTTPFields()
    for _ in 0..<(reader.byte() % 4) {
        let name = reader.pick(fuzzHeaderNames), value = reader.string()
        if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
    }
    return HTTPReply(status: status, headerFields: fields, body: Data(reader.chunk()))
}

/// A transport that answers each request with the next reply of the fuzz script; at the end of the
/// script (or after 64 requests) it fails below HTTP, as a dead connection would.
final class FuzzTransport: HTTPTransport {
    private let state: Synchronization.Mutex<(reader: FuzzReader, sent: Int)>

    init(_ reader: FuzzReader) { state = Synchronization.Mutex((reader: reader, sent: 0)) }

    func send(_ request: HTTPRequest, body: Data?, timeout: Duration?) async throws -> HTTPReply {
        let reply: HTTPReply? = state.withLock { state in
            state.sent += 1
            guard state.sent <= 64, !state.reader.isAtEnd else { return nil }
            return readReply(&state.reader)
        }
        guard let reply else { throw TransportError(.connection, "fuzz script ended") }
        return reply
    }
}

/// A transport that serves fixed replies by URL path (JWKS documents and the like), failing others.
struct FixedTransport: HTTPTransport {
    var replies: [String: HTTPReply]

    func send(_ request: HTTPRequest, body: Data?, timeout: Duration?) async throws -> HTTPReply {
        guard let path = request.url?.path, let reply = replies[path] else { throw TransportError(.connection, "no fixed reply for this path") }
        return reply
    }
}

/// ``runBlocking(_:)`` for a body with a result.
func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let result = Synchronization.Mutex<T?>(nil)
    runBlocking { () async -> Void in
        let value = await body()
        result.withLock { $0 = value }
    }
    guard let value = result.withLock({ $0 }) else { fatalError("runBlocking: the body did not finish") }
    return value
}

/// Unpadded base64url of some bytes, for the tokens and keys this package builds (AuthHub's own
/// encoder is internal to the AuthHub package).
func base64url<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
    Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
}
