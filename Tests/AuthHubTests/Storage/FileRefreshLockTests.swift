import AuthHub
import Foundation
import Testing

@Suite struct FileRefreshLockTests {
    let key = SessionKey(provider: "auth0", account: "default")

    /// Two lock instances share no in-process state, like two processes: only the flock excludes.
    @Test func instancesOnOneDirectoryExcludeEachOther() async throws {
        let root = try TemporaryDirectory("refresh-lock")
        defer { root.remove() }
        let locks = [FileRefreshLock(directory: root.url), FileRefreshLock(directory: root.url)]
        let probe = Overlap()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<6 {
                let lock = locks[i % 2]
                group.addTask {
                    try await lock.withLock(key) {
                        await probe.enter()
                        for _ in 0..<20 { await Task.yield() }
                        await probe.leave()
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(await probe.entered == 6)
        #expect(await probe.maxActive == 1)
    }

    @Test func differentKeysDoNotBlockEachOther() async throws {
        let root = try TemporaryDirectory("refresh-keys")
        defer { root.remove() }
        let a = FileRefreshLock(directory: root.url)
        let b = FileRefreshLock(directory: root.url)
        let other = SessionKey(provider: "auth0", account: "other")
        // Holding one key's lock, another instance takes another key's lock (it would hang otherwise).
        let value = try await a.withLock(key) { try await b.withLock(other) { 42 } }
        #expect(value == 42)
    }

    @Test func releasedWhenTheBodyThrows() async throws {
        let root = try TemporaryDirectory("refresh-throw")
        defer { root.remove() }
        let a = FileRefreshLock(directory: root.url)
        let b = FileRefreshLock(directory: root.url)
        struct Failure: Error {}
        await #expect(throws: Failure.self) { try await a.withLock(key) { () async throws -> Int in throw Failure() } }
        #expect(try await b.withLock(key) { "free" } == "free")
    }

    @Test func aWaiterCanBeCancelledAndACancelledHolderReleases() async throws {
        let root = try TemporaryDirectory("refresh-cancel")
        defer { root.remove() }
        let holder = FileRefreshLock(directory: root.url)
        let waiter = FileRefreshLock(directory: root.url)
        let (entered, enteredContinuation) = AsyncStream<Void>.makeStream()
        let (gate, _) = AsyncStream<Void>.makeStream()  // never yields: the body runs until cancelled

        let holding = Task {
            try await holder.withLock(key) {
                enteredContinuation.yield()
                for await _ in gate {}  // ends when the task is cancelled
                try Task.checkCancellation()
            }
        }
        var events = entered.makeAsyncIterator()
        _ = await events.next()

        // The lock is held by another instance: a cancelled waiter gives up instead of waiting forever.
        let waiting = Task { try await waiter.withLock(key) { "acquired" } }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }

        // Cancelling the holder ends its body; the lock is released and can be taken again.
        holding.cancel()
        await #expect(throws: CancellationError.self) { try await holding.value }
        #expect(try await waiter.withLock(key) { "acquired" } == "acquired")
    }

    @Test func storeRefreshLockAllowsSavingWhileHeld() async throws {
        let root = try TemporaryDirectory("refresh-save")
        defer { root.remove() }
        let store = try FileSessionStore(directory: root.url)
        let lock = store.makeRefreshLock()
        #expect(lock is FileRefreshLock)
        let saved = try await lock.withLock(key) {
            try await store.save(StorageFixtures.session(key), for: key, expectedVersion: 0)
        }
        #expect(saved.version == 1)
        let entries = try FileManager.default.contentsOfDirectory(atPath: root.url.path).sorted()
        #expect(entries == [".by-user", ".session.auth0.default.lock", ".session.auth0.default.refresh", "session.auth0.default.json"])
    }
}

private actor Overlap {
    private var active = 0
    private(set) var entered = 0
    private(set) var maxActive = 0

    func enter() {
        active += 1
        entered += 1
        maxActive = max(maxActive, active)
    }

    func leave() { active -= 1 }
}
