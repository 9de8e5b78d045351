import AuthHub
import AuthHubTesting
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Regression tests for numbers and files from outside that used to trap or exhaust the process:
/// `Retry-After` (a `1e300` killed the host with "Double value cannot be converted to Int64") and
/// providers.json (no size limit, FIFOs hung the read).
@Suite struct HostileHeaderAndConfigTests {
    private func retryAfter(_ value: String, now: Date = Date(timeIntervalSince1970: 1_767_225_600)) -> Duration? {
        HTTPFields([HTTPField(name: .retryAfter, value: value)]).retryAfter(now: now)
    }

    @Test func retryAfterSecondsAreRangeChecked() {
        #expect(retryAfter("2") == .seconds(2))
        #expect(retryAfter("0.5") == .milliseconds(500))
        // Huge values are capped to a day, never converted as they are.
        #expect(retryAfter("1e300") == HTTPFields.maxRetryAfter)
        #expect(retryAfter("9223372036854775807") == HTTPFields.maxRetryAfter)
        #expect(retryAfter("86401") == .seconds(86_400))
        // Negative, non-finite and garbage values are no advice at all.
        #expect(retryAfter("-1") == nil)
        #expect(retryAfter("-1e300") == nil)
        #expect(retryAfter("nan") == nil)
        #expect(retryAfter("inf") == nil)
        #expect(retryAfter("soon") == nil)
        #expect(retryAfter(String(repeating: "9", count: 5000)) == nil)
    }

    @Test func retryAfterDatesAreRangeChecked() {
        let now = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01
        #expect(retryAfter("Thu, 01 Jan 2026 00:00:07 GMT", now: now) == .seconds(7))
        #expect(retryAfter("Fri, 31 Dec 9999 23:59:59 GMT", now: now) == HTTPFields.maxRetryAfter)
        #expect(retryAfter("Thu, 01 Jan 1970 00:00:00 GMT", now: now) == .zero)
        #expect(retryAfter("Thu, 99 Foo 2026 00:00:07 GMT", now: now) == nil)
    }

    @Test func aHugeRetryAfterIsReportedNotWaitedForAndDoesNotTrap() async throws {
        let clock = FakeClock()
        for status in [429, 503] {
            for value in ["1e300", "99999999999999999999", "Fri, 31 Dec 9999 23:59:59 GMT"] {
                let transport = StubTransport()
                transport.on(.get, "/x") { _ in .json(status, ["error": "busy"], headerFields: [.retryAfter: value]) }
                let client = APIClient(provider: "p", baseURL: URL(string: "https://api.example.com/")!, transport: transport, clock: clock)
                let error = try await #require(throws: AuthError.self) { try await client.send(APIRequest(.get, "x")) }
                #expect(error.retryAfter == HTTPFields.maxRetryAfter)
                #expect(transport.requests.count == 1)
            }
        }
        #expect(clock.sleeps.isEmpty)
    }

    @Test func aRetryAfterLongerThanTheRequestDeadlineIsNotWaitedFor() async throws {
        let clock = FakeClock()
        let transport = StubTransport()
        transport.on(.get, "/x") { _ in .json(503, [:], headerFields: [.retryAfter: "20"]) }
        let client = APIClient(provider: "p", baseURL: URL(string: "https://api.example.com/")!, transport: transport, clock: clock,
                               retryPolicy: RetryPolicy(maxRetryAfter: .seconds(30)))
        var request = APIRequest(.get, "x")
        request.timeout = .seconds(10)
        let error = try await #require(throws: AuthError.self) { try await client.send(request) }
        #expect(error.retryAfter == .seconds(20))
        #expect(transport.requests.count == 1)
        #expect(clock.sleeps.isEmpty)
    }

    // MARK: providers.json

    @Test func anOversizedConfigurationIsRefusedBeforeParsing() throws {
        let loader = ConfigLoader(registry: ProviderRegistry(), environmentVariables: [:])
        var big = Data("{\"environments\":{\"a\":{\"providers\":[],\"x\":\"".utf8)
        big.append(Data(repeating: 0x61, count: ConfigLoader.maxFileBytes))
        big.append(Data("\"}}}".utf8))
        let problems = loader.validate(data: big)
        #expect(problems.count == 1)
        #expect(problems.first?.message.contains("larger than") == true)

        let root = FileManager.default.temporaryDirectory.appendingPathComponent("authhub-big-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: root) }
        try big.write(to: root)
        let error = try #require(throws: ConfigurationError.self) { try loader.load(contentsOf: root.path) }
        #expect(error.problems.first?.message.contains("larger than") == true)
    }

    @Test func aConfigurationThatIsAFIFOOrDeviceIsRefusedWithoutHanging() throws {
        let loader = ConfigLoader(registry: ProviderRegistry(), environmentVariables: [:])
        let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("authhub-fifo-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: fifo) }
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let error = try #require(throws: ConfigurationError.self) { try loader.load(contentsOf: fifo.path) }
        #expect(error.problems.first?.message == "is not a regular file")

        let zero = try #require(throws: ConfigurationError.self) { try loader.load(contentsOf: "/dev/zero") }
        #expect(zero.problems.first?.message == "is not a regular file")
    }

    @Test func aLinkedConfigurationFileIsFollowed() throws {
        let loader = ConfigLoader(registry: ProviderRegistry(), environmentVariables: [:])
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("authhub-link-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let target = dir.appendingPathComponent("real.json")
        try Data("{\"environments\":{\"dev\":{\"providers\":[]}}}".utf8).write(to: target)
        let link = dir.appendingPathComponent("providers.json")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        // Deployments link config files into place (e.g. mounted secrets): the link is followed.
        #expect(try ConfigLoader.contents(ofFile: link.path) == (try Data(contentsOf: target)))
        _ = loader
    }
}
