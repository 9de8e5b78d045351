import AuthHub
import AuthHubTesting
import Foundation
import Testing

/// The machinery both public-key caches share: fetched once, kept until expiry, refetched for what
/// is missing at most once per interval, one fetch for concurrent callers, a failed fetch keeps the
/// previous document.
@Suite struct KeyDocumentCacheTests {
    struct Boom: Error {}

    /// A source that hands out versions 1, 2, 3… of a document (a set of kids), or fails when told to.
    final class Source: Sendable {
        let state = Mutex((version: 0, fail: false, kids: Set<String>(["a"])))
        func load(expiresIn: TimeInterval?, clock: FakeClock) throws -> KeyDocumentCache<Set<String>>.Fetched {
            let (kids, fail) = state.withLock { state -> (Set<String>, Bool) in
                state.version += 1
                return (state.kids, state.fail)
            }
            if fail { throw Boom() }
            return .init(document: kids, expiresAt: expiresIn.map { clock.now.addingTimeInterval($0) })
        }
    }

    func cache(_ source: Source, clock: FakeClock, expiresIn: TimeInterval? = nil) -> KeyDocumentCache<Set<String>> {
        KeyDocumentCache(clock: clock, minimumRefetchInterval: .seconds(60)) {
            try source.load(expiresIn: expiresIn, clock: clock)
        }
    }

    @Test func fetchesOnceAndKeeps() async throws {
        let clock = FakeClock(), source = Source()
        let cache = cache(source, clock: clock)
        #expect(await cache.fetchCount == 0, "nothing is fetched before it is asked for")
        #expect(try await cache.document { $0.contains("a") } == ["a"])
        clock.advance(by: 86_400 * 365)
        #expect(try await cache.document { $0.contains("a") } == ["a"])
        #expect(await cache.fetchCount == 1)
    }

    @Test func refetchesForWhatIsMissingAtMostOncePerInterval() async throws {
        let clock = FakeClock(), source = Source()
        let cache = cache(source, clock: clock)
        _ = try await cache.document { $0.contains("a") }
        source.state.withLock { $0.kids = ["a", "b"] }
        clock.advance(by: 61)
        #expect(try await cache.document { $0.contains("b") }.contains("b"), "a rotated-in key is found by one refetch")
        #expect(await cache.fetchCount == 2)
        // Made-up kids inside the interval: the kept document, no request.
        for _ in 0..<5 { #expect(try await cache.document { $0.contains("made-up") } == ["a", "b"]) }
        #expect(await cache.fetchCount == 2)
        clock.advance(by: 60)
        _ = try await cache.document { $0.contains("made-up") }
        #expect(await cache.fetchCount == 3)
    }

    @Test func expiredDocumentsAreFetchedAgain() async throws {
        let clock = FakeClock(), source = Source()
        let cache = cache(source, clock: clock, expiresIn: 300)
        _ = try await cache.document { _ in true }
        clock.advance(by: 299)
        _ = try await cache.document { _ in true }
        #expect(await cache.fetchCount == 1)
        clock.advance(by: 2)
        _ = try await cache.document { _ in true }
        #expect(await cache.fetchCount == 2, "refetched once the document expired, whatever the interval")
    }

    @Test func concurrentCallersShareOneFetch() async throws {
        let clock = FakeClock(), gate = AsyncGate()
        let fetches = Mutex(0)
        let cache = KeyDocumentCache<Set<String>>(clock: clock, minimumRefetchInterval: .seconds(60)) {
            fetches.withLock { $0 += 1 }
            await gate.wait()
            return .init(document: ["a"])
        }
        try await withThrowingTaskGroup(of: Set<String>.self) { group in
            for _ in 0..<50 { group.addTask { try await cache.document { $0.contains("a") } } }
            while await cache.fetchCount == 0 { await Task.yield() }
            gate.open()
            for try await document in group { #expect(document == ["a"]) }
        }
        #expect(fetches.withLock { $0 } == 1)
    }

    @Test func aFailedFetchKeepsThePreviousDocument() async throws {
        let clock = FakeClock(), source = Source()
        let cache = cache(source, clock: clock)
        _ = try await cache.document { _ in true }
        source.state.withLock { $0.fail = true }
        clock.advance(by: 61)
        await #expect(throws: Boom.self) { try await cache.document { $0.contains("b") } }
        // Still inside the interval of that failed attempt: the kept document, no new request.
        #expect(try await cache.document { $0.contains("a") } == ["a"])
        #expect(await cache.fetchCount == 2)
    }
}

/// Opens once; every waiter before and after continues.
final class AsyncGate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))
    func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state -> Bool in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }
    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0.resume() }
    }
}
