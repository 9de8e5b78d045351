import AuthHub
import AuthHubTesting
import Foundation
import Testing

/// A store whose reads take what is stored at once but answer only when the test opens the gate:
/// a slow database, and a read that returns after a write overtook it.
final class GatedStore: SessionStore {
    let base = InMemorySessionStore()
    let loads = Mutex(0)
    private let state = Mutex<(open: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    func open() {
        let waiting = state.withLock { state in
            state.open = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    var waitingReads: Int { state.withLock { $0.waiting.count } }

    func load(_ key: SessionKey) async throws -> Session? {
        loads.withLock { $0 += 1 }
        let snapshot = try await base.load(key)
        await withCheckedContinuation { continuation in
            let go = state.withLock { state in
                if state.open { return true }
                state.waiting.append(continuation)
                return false
            }
            if go { continuation.resume() }
        }
        return snapshot
    }
    func save(_ session: Session, for key: SessionKey, expectedVersion: UInt64?) async throws -> Session {
        try await base.save(session, for: key, expectedVersion: expectedVersion)
    }
    func remove(_ key: SessionKey) async throws { try await base.remove(key) }
    func keys() async throws -> [SessionKey] { try await base.keys() }
}

/// The manager's first read of the store: one read for every caller that arrives while it runs,
/// and a read that a write overtook does not undo the write.
@Suite struct SessionManagerFirstLoadTests {
    let key = SessionKey(provider: "ex")

    func manager(_ store: GatedStore, _ clock: FakeClock) -> SessionManager {
        let provider = ExampleOAuthProvider(id: "ex", baseURL: URL(string: "https://id.example.com")!, clientID: "client", clientSecret: nil,
                                            context: ProviderContext(transport: StubTransport(), clock: clock))
        return SessionManager(key: key, provider: provider, store: store, clock: clock)
    }

    func session(_ token: String, _ clock: FakeClock) -> Session {
        Session(providerID: "ex", accessToken: Secret(token), refreshToken: Secret("rt"), expiresAt: clock.now.addingTimeInterval(3600), userID: "u")
    }

    static func waitUntil(_ condition: @escaping @Sendable () -> Bool) async throws {
        for _ in 0..<500 where !condition() { try await Task.sleep(for: .milliseconds(2)) }
        #expect(condition())
    }

    @Test func concurrentFirstCallersShareOneRead() async throws {
        let clock = FakeClock()
        let store = GatedStore()
        _ = try await store.save(session("at-1", clock), for: key, expectedVersion: nil)
        let manager = manager(store, clock)
        let tokens = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<50 { group.addTask { try await manager.session().accessToken.revealed() } }
            try await Self.waitUntil { store.waitingReads >= 1 }
            try await Task.sleep(for: .milliseconds(20))  // give the other 49 time to arrive
            store.open()
            var tokens: [String?] = []
            for try await token in group { tokens.append(token) }
            return tokens
        }
        #expect(tokens.count == 50 && tokens.allSatisfy { $0 == "at-1" })
        #expect(store.loads.withLock { $0 } == 1)
    }

    @Test func aReadOvertakenByASignInDoesNotUndoIt() async throws {
        let clock = FakeClock()
        let store = GatedStore()
        _ = try await store.save(session("at-old", clock), for: key, expectedVersion: nil)
        let manager = manager(store, clock)
        // The first read takes the old session from the store, then stalls.
        let reader = Task { try await manager.current()?.accessToken.revealed() }
        try await Self.waitUntil { store.waitingReads == 1 }
        // A sign-in lands meanwhile.
        _ = try await manager.store(session("at-new", clock))
        store.open()
        #expect(try await reader.value == "at-new")
        #expect(try await manager.current()?.accessToken == Secret("at-new"))
        #expect(try await store.base.load(key)?.accessToken == Secret("at-new"))
    }

    @Test func aFailedFirstReadFailsItsWaitersAndTheNextCallReadsAgain() async throws {
        let clock = FakeClock()
        let store = FlakyLoadStore()
        _ = try await store.base.save(session("at-1", clock), for: key, expectedVersion: nil)
        let provider = ExampleOAuthProvider(id: "ex", baseURL: URL(string: "https://id.example.com")!, clientID: "client", clientSecret: nil,
                                            context: ProviderContext(transport: StubTransport(), clock: clock))
        let manager = SessionManager(key: key, provider: provider, store: store, clock: clock)
        store.failing.withLock { $0 = true }
        await #expect(throws: AuthError.self) { try await manager.current() }
        store.failing.withLock { $0 = false }
        #expect(try await manager.current()?.accessToken == Secret("at-1"))
    }
}

/// A store whose reads fail while `failing` is set.
final class FlakyLoadStore: SessionStore {
    let base = InMemorySessionStore()
    let failing = Mutex(false)

    func load(_ key: SessionKey) async throws -> Session? {
        if failing.withLock({ $0 }) { throw AuthError(.storageFailure, message: "The database is unreachable.", isRetryable: true) }
        return try await base.load(key)
    }
    func save(_ session: Session, for key: SessionKey, expectedVersion: UInt64?) async throws -> Session {
        try await base.save(session, for: key, expectedVersion: expectedVersion)
    }
    func remove(_ key: SessionKey) async throws { try await base.remove(key) }
    func keys() async throws -> [SessionKey] { try await base.keys() }
}
