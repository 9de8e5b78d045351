import AuthHub
import AuthHubTesting
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
@testable import AuthHubOIDC

/// Sends raw bytes to 127.0.0.1:port and returns the whole reply (the receiver closes the
/// connection). The blocking socket calls run on a thread of their own, never on the cooperative
/// pool, which the receiver's wait needs too.
func rawExchange(port: UInt16, _ request: String) async throws -> String {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String, any Error>) in
        Thread { continuation.resume(with: Result { try blockingExchange(port: port, request) }) }.start()
    }
}

private func blockingExchange(port: UInt16, _ request: String) throws -> String {
    #if canImport(Glibc)
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
    let fd = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    try #require(fd >= 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr = in_addr(s_addr: in_addr_t(0x7F00_0001).bigEndian)
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    try #require(connected == 0)
    var timeout = timeval(tv_sec: 60, tv_usec: 0)  // a hang fails the test instead of stalling the run; generous for a loaded 2-core machine
    _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let bytes = Array(request.utf8)
    _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
    var reply = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n <= 0 { break }
        reply += buffer[0..<n]
    }
    return String(decoding: reply, as: UTF8.self)
}

@Suite struct LoopbackRawSocketTests {
    @Test func malformedRequestsGet400AndWaitingContinues() async throws {
        let receiver = try LoopbackRedirectReceiver()
        let waiting = Task { try await receiver.waitForCallback(timeout: .seconds(300), clock: FakeClock(mode: .manual)) }
        for bad in ["GARBAGE\r\n\r\n", "GET http://evil.example.com/callback?code=x HTTP/1.1\r\n\r\n", "GET /callback?code=x\r\n\r\n",
                    "\r\n\r\n"] {
            let reply = try await rawExchange(port: receiver.port, bad)
            #expect(reply.hasPrefix("HTTP/1.1 400 "), "\(bad)")
        }
        let ok = try await rawExchange(port: receiver.port, "GET /callback?code=good&state=s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(ok.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(ok.contains("Cache-Control: no-store"))
        #expect(try await waiting.value.query == "code=good&state=s")
    }

    @Test func closeWhileWaitingEndsTheWaitAsCancelled() async throws {
        let receiver = try LoopbackRedirectReceiver()
        let waiting = Task { try await receiver.waitForCallback(timeout: .seconds(300), clock: FakeClock(mode: .manual)) }
        // Make sure the wait has started: a 404 is answered only by the accept loop.
        #expect(try await rawExchange(port: receiver.port, "GET /other HTTP/1.1\r\n\r\n").hasPrefix("HTTP/1.1 404 "))
        receiver.close()
        let error = await asyncAuthError { _ = try await waiting.value }
        #expect(error?.code == .userCancelled)
    }
}
