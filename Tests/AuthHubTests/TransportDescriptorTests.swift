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
