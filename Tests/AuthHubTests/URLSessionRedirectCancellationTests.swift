import AuthHub
import AuthHubTesting
import Foundation
import Testing

/// FoundationNetworking traps ("Received callback for HTTP redirection, but we're not waiting for
/// it") when a task is cancelled between asking its delegate about a redirect and the delegate's
/// answer. `URLSessionTransport` cancels tasks at their deadline, so deadlines that end while
/// redirects arrive must never hit that window. Before the fix this crashed the test process on
/// every run; found by `HTTPTransportConformance` running under load.
@Suite struct URLSessionRedirectCancellationTests {
    @Test func deadlinesEndingDuringRedirectsDoNotCrash() async throws {
        let upstream = try ScriptedUpstream { _ in .reply(status: 302, headers: [("Location", "/again")]) }
        defer { upstream.stop() }
        let transport = URLSessionTransport(defaultTimeout: .seconds(5))
        let url = upstream.baseURL.appendingPathComponent("again")
        // 1,200 sends whose deadlines (0.2 to 6.2 ms) end at every point of a redirect loop.
        let kinds = await withTaskGroup(of: [TransportError.Kind].self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var kinds: [TransportError.Kind] = []
                    for attempt in 0..<150 {
                        let deadline = Duration.microseconds(200 + ((worker * 150 + attempt) * 37) % 6000)
                        do {
                            _ = try await transport.send(.get, url, timeout: deadline)
                        } catch let error as TransportError {
                            kinds.append(error.kind)
                        } catch {
                            kinds.append(.other)
                        }
                    }
                    return kinds
                }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
        // Every send failed (a loop never ends well), by its deadline or the redirect limit.
        #expect(kinds.count == 1_200)
        #expect(Set(kinds).isSubset(of: [.timeout, .other]), "\(Set(kinds))")
    }
}
