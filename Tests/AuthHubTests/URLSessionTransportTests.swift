import AuthHub
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Real sockets on 127.0.0.1: what `APIClient` over the default transport reports when nothing
/// listens, and when a server accepts the connection but never answers. The transport's own
/// behaviour (deadlines, cancellation, redirects, body cap) is checked by `HTTPTransportConformance`
/// (`URLSessionTransportConformanceTests`), which every transport runs.
@Suite struct URLSessionTransportTests {
    /// A TCP socket bound to an ephemeral loopback port that listens but never accepts or answers.
    final class SilentListener {
        let fd: Int32
        let port: UInt16

        init?() {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { return nil }
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_port = 0
            addr.sin_addr.s_addr = inet_addr("127.0.0.1")
            let bound = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0, listen(fd, 16) == 0 else { close(fd); return nil }
            var out = sockaddr_in()
            var len = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &out) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
            }
            self.fd = fd
            self.port = UInt16(bigEndian: out.sin_port)
        }

        deinit { close(fd) }
    }

    /// A port that nothing listens on (bound, then closed).
    func closedPort() throws -> UInt16 {
        let l = try #require(SilentListener())
        let port = l.port
        return port
    }

    @Test func connectionRefusedIsNetwork() async throws {
        let port = try closedPort()
        let client = APIClient(provider: "p", baseURL: URL(string: "http://127.0.0.1:\(port)")!, transport: URLSessionTransport(),
                               retryPolicy: .none)
        do {
            _ = try await client.send(APIRequest(.get, "health"))
            Issue.record("expected a network error")
        } catch let e as AuthError {
            #expect(e.code == .network)
            #expect(e.isRetryable)
        }
    }

    @Test func silentServerIsTimeout() async throws {
        let listener = try #require(SilentListener())
        let client = APIClient(provider: "p", baseURL: URL(string: "http://127.0.0.1:\(listener.port)")!,
                               transport: URLSessionTransport(), retryPolicy: .none, timeout: .milliseconds(400))
        let started = ContinuousClock.now
        do {
            _ = try await client.send(APIRequest(.post, "token", body: .form([("a", "b")])))
            Issue.record("expected a timeout")
        } catch let e as AuthError {
            #expect(e.code == .timeout, "\(e) \(String(describing: e.underlying))")
            #expect(ContinuousClock.now - started >= .milliseconds(350))
        }
        // Below URLSession's 60-second default, with room for a 2-core machine running the whole suite
        // (and other builds): 37 s was seen under such load, while the timeout itself is 0.4 s.
        #expect(ContinuousClock.now - started < .seconds(50))
        withExtendedLifetime(listener) {}
    }
}
