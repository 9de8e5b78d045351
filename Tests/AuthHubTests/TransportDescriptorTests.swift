import AuthHub
import AuthHubTesting
import Foundation
import Testing

/// Transports made and dropped as a program goes (a hub per request, a test suite) must not pile
/// up descriptors: FoundationNetworking never releases a `URLSession`'s libcurl handle, so each
/// transport with a session of its own used to leave about four open for good (a wake-up socket
/// pair among them) — 50 transports, ~200 descriptors.
@Suite struct TransportDescriptorTests {
    /// This process's open Unix-domain sockets: libcurl's wake-up socket pairs are the only ones a
    /// test run makes (servers, pipes and event loops use other kinds), so other tests running
    /// meanwhile do not disturb the count.
    static func descriptors() -> Int {
        guard let table = try? String(contentsOfFile: "/proc/net/unix", encoding: .utf8),
              let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return 0 }
        let unixInodes = Set(table.split(separator: "\n").dropFirst().compactMap { line in
            line.split(separator: " ", omittingEmptySubsequences: true).dropFirst(6).first.map(String.init)
        })
        return entries.filter { entry in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + entry),
                  target.hasPrefix("socket:[") else { return false }
            return unixInodes.contains(String(target.dropFirst("socket:[".count).dropLast()))
        }.count
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/net/unix")))
    func discardedTransportsDoNotPileUpDescriptors() async throws {
        let upstream = try ScriptedUpstream { _ in .json(200, "{}") }
        defer { upstream.stop() }
        let url = try #require(URL(string: upstream.baseURL.absoluteString + "/x"))
        let before = Self.descriptors()
        for _ in 0..<50 {
            let transport = URLSessionTransport(defaultTimeout: .seconds(5))
            _ = try await transport.send(.get, url)
        }
        let grown = Self.descriptors() - before
        #expect(grown < 20, "50 discarded transports left \(grown) more Unix-domain sockets open")
    }
}

/// Every request's state is freed when it is over: the transport's exchange (the task, the timer,
/// the body) once held itself through its timer's block and its task's completion handler, so each
/// request left ~3 KB behind for good (issue 33's web soak: the Hummingbird example's memory grew by a
/// third in 10 minutes; RELIABILITY.md §9).
@Suite struct TransportMemoryTests {
    @Test func finishedRequestsLeaveNoExchangeBehind() async throws {
        let upstream = try ScriptedUpstream { request in
            request.path.hasSuffix("/redirect") ? .reply(status: 302, headers: [("Location", "/x")]) : .json(200, "{}")
        }
        defer { upstream.stop() }
        let base = upstream.baseURL.absoluteString
        let ok = try #require(URL(string: base + "/x")), redirect = try #require(URL(string: base + "/redirect"))
        let closed = try #require(URL(string: "http://127.0.0.1:\(try ScriptedUpstream.freeLoopbackPort())/closed"))
        // A short deadline, so that every request's timer has fired (it holds the exchange until
        // then) before the count is read; a deadline no other test uses, as the count is by deadline.
        let deadline = Duration.milliseconds(317)
        let transport = URLSessionTransport(defaultTimeout: deadline, followRedirects: false)
        for index in 0..<300 {
            let url = [ok, redirect, closed][index % 3]
            _ = try? await transport.send(.get, url)
        }
        var left = Int.max
        for _ in 0..<50 {
            try await Task.sleep(for: .milliseconds(100))
            left = URLSessionTransport.liveExchanges(timeout: deadline)
            if left <= 0 { break }
        }
        #expect(left == 0, "\(left) of 300 finished requests' exchanges are still alive")
    }
}
