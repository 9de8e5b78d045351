import AuthHub
import AuthHubTesting
import Foundation
import Testing

@Suite struct SessionStoreConformanceTests {
    @Test func inMemoryStoreConforms() async {
        let failures = await SessionStoreConformance { InMemorySessionStore() }.run()
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test func plainFileStoreConforms() async throws {
        let root = try TemporaryDirectory("conformance-plain")
        defer { root.remove() }
        let failures = await SessionStoreConformance {
            try FileSessionStore(directory: root.child(UUID().uuidString))
        }.run()
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test func encryptedFileStoreConforms() async throws {
        let root = try TemporaryDirectory("conformance-encrypted")
        defer { root.remove() }
        let key = StorageFixtures.randomKey()
        let failures = await SessionStoreConformance {
            try FileSessionStore(directory: root.child(UUID().uuidString), encryptionKey: key)
        }.run()
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test func listsItsChecks() {
        #expect(SessionStoreConformance.checkNames.count == 13)
        #expect(Set(SessionStoreConformance.checkNames).count == SessionStoreConformance.checkNames.count)
    }

    @Test func catchesAStoreThatIgnoresExpectedVersion() async {
        let failures = await SessionStoreConformance { BrokenStore(flaw: .ignoresExpectedVersion) }.run()
        #expect(!failures.isEmpty)
        #expect(failures.contains { $0.hasPrefix("[expectedZeroWhenPresentConflicts]") && $0.contains("must throw AuthError code conflict") },
                "\(failures)")
        #expect(failures.contains { $0.hasPrefix("[wrongExpectedVersionConflicts]") }, "\(failures)")
        #expect(failures.contains { $0.hasPrefix("[concurrentCompareAndSwapHasOneWinner]") && $0.contains("20 succeeded") },
                "\(failures)")
        // What a conformant store does must not be reported.
        #expect(!failures.contains { $0.hasPrefix("[roundTripKeepsEveryField]") }, "\(failures)")
        #expect(!failures.contains { $0.hasPrefix("[refreshLockExcludes]") }, "\(failures)")
    }

    @Test func catchesALockThatDoesNotExclude() async {
        let failures = await SessionStoreConformance { BrokenStore(flaw: .lockDoesNotExclude) }.run(only: ["refreshLockExcludes"])
        #expect(failures.contains { $0.contains("ran at the same time") }, "\(failures)")
    }

    @Test func catchesLostFieldsAndUnsortedKeys() async {
        let lossy = await SessionStoreConformance { BrokenStore(flaw: .dropsSecretsAndScope) }.run(only: ["roundTripKeepsEveryField"])
        #expect(lossy.contains { $0.contains("refreshToken differs (it was lost)") }, "\(lossy)")
        #expect(lossy.contains { $0.contains("scope differs") }, "\(lossy)")
        #expect(lossy.contains { $0.contains("secretExtras differs") }, "\(lossy)")
        #expect(!lossy.joined().contains("refresh-full"), "a secret leaked into a failure message: \(lossy)")

        let unsorted = await SessionStoreConformance { BrokenStore(flaw: .unsortedKeys) }.run(only: ["keysAreIsolatedAndSorted"])
        #expect(unsorted.contains { $0.contains("not sorted") }, "\(unsorted)")
    }

    @Test func reportsAHungLockInsteadOfHanging() async {
        let failures = await SessionStoreConformance(timeout: .milliseconds(300)) { BrokenStore(flaw: .lockNeverReleases) }
            .run(only: ["refreshLockExcludes"])
        #expect(failures.contains { $0.contains("did not finish") }, "\(failures)")
    }
}

/// A store with one deliberate flaw, to prove the conformance suite notices it.
private actor BrokenStore: SessionStore {
    enum Flaw { case ignoresExpectedVersion, lockDoesNotExclude, dropsSecretsAndScope, unsortedKeys, lockNeverReleases }

    private let flaw: Flaw
    private var sessions: [SessionKey: Session] = [:]
    private nonisolated let lock: any RefreshLock

    init(flaw: Flaw) {
        self.flaw = flaw
        switch flaw {
        case .lockDoesNotExclude: lock = NoLock()
        case .lockNeverReleases: lock = StuckLock()
        default: lock = InProcessRefreshLock()
        }
    }

    func load(_ key: SessionKey) -> Session? { sessions[key] }

    func save(_ session: Session, for key: SessionKey, expectedVersion: UInt64?) throws -> Session {
        let current = sessions[key]?.version ?? 0
        if flaw != .ignoresExpectedVersion, let expectedVersion, expectedVersion != current {
            throw AuthError.storeConflict(key: key, expected: expectedVersion, found: current)
        }
        var stored = session
        stored.version = current + 1
        if flaw == .dropsSecretsAndScope {
            stored.refreshToken = nil
            stored.scope = nil
            stored.secretExtras = [:]
        }
        sessions[key] = stored
        return stored
    }

    func remove(_ key: SessionKey) { sessions[key] = nil }

    func keys() -> [SessionKey] {
        flaw == .unsortedKeys ? sessions.keys.sorted().reversed() : sessions.keys.sorted()
    }

    nonisolated func makeRefreshLock() -> any RefreshLock { lock }
}

private struct NoLock: RefreshLock {
    func withLock<T: Sendable>(_ key: SessionKey, _ body: @Sendable () async throws -> T) async throws -> T {
        try await body()
    }
}

/// Every acquisition after the first waits forever (a lock a crashed holder never released).
private actor StuckLock: RefreshLock {
    private var taken = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func withLock<T: Sendable>(_ key: SessionKey, _ body: @Sendable () async throws -> T) async throws -> T {
        if taken {
            await withCheckedContinuation { waiters.append($0) }
        }
        taken = true
        return try await body()
    }
}
