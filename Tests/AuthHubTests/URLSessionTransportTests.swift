import AuthHub
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Real sockets on 127.0.0.1: what the default transport reports when nothing listens, and when a
/// server accepts the connection but never answers.
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

    @Test func transportTimeoutIsTheTotalDeadline() async throws {
        let listener = try #require(SilentListener())
        let url = try #require(URL(string: "http://127.0.0.1:\(listener.port)/slow"))
        let started = ContinuousClock.now
        let error = await #expect(throws: TransportError.self) {
            try await URLSessionTransport().send(.get, url, timeout: .milliseconds(300))
        }
        #expect(error?.kind == .timeout, "\(String(describing: error))")
        #expect(ContinuousClock.now - started >= .milliseconds(250))
        #expect(ContinuousClock.now - started < .seconds(50))
        withExtendedLifetime(listener) {}
    }

    /// Sends to a silent server with a 10-minute deadline and cancels the sending task, before it
    /// starts (`early`) or 100 ms into the request; returns the error and how long the send took.
    func cancelledSend(early: Bool) async throws -> (TransportError?, Duration) {
        let listener = try #require(SilentListener())
        let url = try #require(URL(string: "http://127.0.0.1:\(listener.port)/slow"))
        let started = ContinuousClock.now
        let request = Task {
            if early { withUnsafeCurrentTask { $0?.cancel() } }
            return try await URLSessionTransport().send(.get, url, timeout: .seconds(600))
        }
        if !early {
            try await Task.sleep(for: .milliseconds(100))
            request.cancel()
        }
        let result = await request.result
        let elapsed = ContinuousClock.now - started
        withExtendedLifetime(listener) {}
        guard case .failure(let failure) = result else {
            Issue.record("expected a TransportError, got \(result)")
            return (nil, elapsed)
        }
        return (failure as? TransportError, elapsed)
    }

    @Test(arguments: [false, true])
    func cancellingTheCallerCancelsTheRequest(early: Bool) async throws {
        let (error, elapsed) = try await cancelledSend(early: early)
        #expect(error?.kind == .cancelled, "\(String(describing: error))")
        // Far below the 10-minute deadline (a loaded 2-core machine running the whole suite has
        // taken tens of seconds to schedule such a test): the URLSession task itself was cancelled.
        #expect(elapsed < .seconds(300))
    }
}
