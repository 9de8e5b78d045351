import AuthHub
import Foundation

/// Checks that a ``SessionStore`` keeps the contract AuthHub relies on: compare-and-swap versions,
/// faithful round trips, key isolation, awkward key names, a single winner among concurrent writers,
/// and a refresh lock that excludes.
///
/// Framework-agnostic: ``run()`` returns failure descriptions (empty when the store conforms), so it
/// works with Swift Testing, XCTest or a plain executable:
///
/// ```swift
/// let failures = await SessionStoreConformance { try MyStore(url: freshDatabase()) }.run()
/// #expect(failures.isEmpty, "\(failures)")       // or XCTAssertEqual(failures, [])
/// ```
///
/// `makeStore` is called once per check and must return an EMPTY store each time (a new temporary
/// directory, a new database schema…), so checks cannot see each other's data. Each failure reads
/// `[check] what went wrong`; secrets are never shown, only which field differs. A check that does
/// not finish within `timeout` (a lock that is never released, a deadlock) is reported as a failure
/// instead of hanging the caller.
public struct SessionStoreConformance: Sendable {
    private let makeStore: @Sendable () async throws -> any SessionStore
    private let timeout: Duration

    /// Creates the suite.
    /// - Parameters:
    ///   - timeout: the longest any one check may take before it is reported as hung.
    ///   - makeStore: returns a new, empty store; called once per check.
    public init(timeout: Duration = .seconds(30), makeStore: @escaping @Sendable () async throws -> any SessionStore) {
        self.makeStore = makeStore
        self.timeout = timeout
    }

    /// The names of every check, in the order ``run(only:)`` runs them.
    public static var checkNames: [String] { checks.map(\.name) }

    /// Runs every check (or those named in `only`) one after another.
    /// - Returns: one description per failed expectation, `[check] message`; empty when the store conforms.
    public func run(only: Set<String>? = nil) async -> [String] {
        await ConformanceRunner.runChecks(Self.checks.map { ($0.name, $0.body) }, only: only, timeout: timeout,
                                            makeStore: makeStore)
    }

    // MARK: Checks

    private struct Check: Sendable {
        var name: String
        var body: @Sendable (any SessionStore) async throws -> [String]
    }

    private static let checks: [Check] = [
        Check(name: "missingKeyLoadsNil", body: missingKeyLoadsNil),
        Check(name: "firstSaveIsVersionOne", body: firstSaveIsVersionOne),
        Check(name: "roundTripKeepsEveryField", body: roundTripKeepsEveryField),
        Check(name: "expectedZeroWhenPresentConflicts", body: expectedZeroWhenPresentConflicts),
        Check(name: "wrongExpectedVersionConflicts", body: wrongExpectedVersionConflicts),
        Check(name: "rightExpectedVersionIncrements", body: rightExpectedVersionIncrements),
        Check(name: "unconditionalSaveBumpsVersion", body: unconditionalSaveBumpsVersion),
        Check(name: "removeDeletes", body: removeDeletes),
        Check(name: "keysAreIsolatedAndSorted", body: keysAreIsolatedAndSorted),
        Check(name: "awkwardKeyNamesRoundTrip", body: awkwardKeyNamesRoundTrip),
        Check(name: "concurrentCompareAndSwapHasOneWinner", body: concurrentCompareAndSwapHasOneWinner),
        Check(name: "refreshLockExcludes", body: refreshLockExcludes),
        Check(name: "userIndexFollowsSavesAndRemovals", body: userIndexFollowsSavesAndRemovals),
    ]

    private static let key = SessionKey(provider: "conformance", account: "default")

    @Sendable private static func missingKeyLoadsNil(_ store: any SessionStore) async throws -> [String] {
        var f: [String] = []
        if try await store.load(key) != nil { f.append("load of a key never saved returned a session instead of nil") }
        let keys = try await store.keys()
        if !keys.isEmpty { f.append("keys() of a new store returned \(keys) instead of [] (makeStore must return an empty store)") }
        return f
    }

    @Sendable private static func firstSaveIsVersionOne(_ store: any SessionStore) async throws -> [String] {
        var f: [String] = []
        let saved = try await store.save(session(key, tag: "a"), for: key, expectedVersion: nil)
        if saved.version != 1 { f.append("first save (expectedVersion nil) returned version \(saved.version), expected 1") }
        let loaded = try await store.load(key)
        if loaded == nil { f.append("load after the first save returned nil") }
        if let loaded, loaded.version != 1 { f.append("load after the first save has version \(loaded.version), expected 1") }

        let other = SessionKey(provider: "conformance", account: "second")
        do {
            let created = try await store.save(session(other, tag: "b"), for: other, expectedVersion: 0)
            if created.version != 1 { f.append("first save with expectedVersion 0 returned version \(created.version), expected 1") }
        } catch {
            f.append("first save with expectedVersion 0 (must be absent) on an absent key failed: \(error)")
        }
        return f
    }

    @Sendable private static func roundTripKeepsEveryField(_ store: any SessionStore) async throws -> [String] {
        var f: [String] = []
        let original = session(key, tag: "full")
        let saved = try await store.save(original, for: key, expectedVersion: nil)
        f += compare(original, saved, context: "the session returned by save")
        if let loaded = try await store.load(key) {
            f += compare(original, loaded, context: "the session loaded after save")
            if loaded.version != saved.version {
                f.append("loaded version \(loaded.version) differs from the version save returned (\(saved.version))")
            }
        } else {
            f.append("load after save returned nil")
        }

        // A session with every optional field absent must come back absent, not as empty values.
        let minimalKey = SessionKey(provider: "conformance", account: "minimal")
        let minimal = Session(providerID: minimalKey.provider, accountKey: minimalKey.account, accessToken: Secret("access-minimal"))
        try await store.save(minimal, for: minimalKey, expectedVersion: nil)
        if let loaded = try await store.load(minimalKey) {
            f += compare(minimal, loaded, context: "a minimal session loaded after save")
        } else {
            f.append("load of a minimal session after save returned nil")
        }
        return f
    }

    @Sendable private static func expectedZeroWhenPresentConflicts(_ store: any SessionStore) async throws -> [String] {
        var f: [String] = []
        try await store.save(session(key, tag: "first"), for: key, expectedVersion: nil)
        f += await expectConflict("save with expectedVersion 0 (must be absent) over a stored session") {
            try await store.save(session(key, tag: "intruder"), for: key, expectedVersion: 0)
        }
        f += try await expectStored(store, key, tag: "first", version: 1, after: "a failed expectedVersion 0 save")
        return f
    }

    @Sendable private static func wrongExpectedVersionConflicts(_ store: any SessionStore) async throws -> [String] {
        var f: [String] = []
        f += await expectConflict("save with expectedVersion 1 on an absent key") {
            try await store.save(session(key, tag: "x"), for: key, expectedVersion: 1)
        }
        if try await store.load(key) != nil { f.append("a conflicting save on an absent key stored a session anyway") }

        try await store.save(session(key, tag: "first"), for: key, expectedVersion: nil)
        try await store.save(session(key, tag: "second"), for: key, expectedVersion: 1)
        for wrong: UInt64 in [1, 3, 42] {
            f += await expectConflict("save with expectedVersion \(wrong) when the stored version is 2") {
                try await store.save(session(key, tag: "stale-\(wrong)"), for: key, expectedVersion: wrong)
            }
        }
        f += try await expectStored(store, key, tag: "second", version: 2, after: "failed saves with wrong versions")
        return f
    }

    @Sendable private static func rightExpectedVersionIncrements(_ store: any SessionStore) async throws -> [String] {
        var f: [String] = []
        try await store.save(session(key, tag: "v1"), for: key, expectedVersion: nil)
        for next: UInt64 in 2...4 {
            do {
                let saved = try await store.save(session(key, tag: "v\(next)"), for: key, expectedVersion: next - 1)
                if saved.version != next {
                    f.append("save with the right expectedVersion \(next - 1) returned version \(saved.version), expected \(next)")
                }
            } catch {
                f.append("save with the right expectedVersion \(next - 1) failed: \(error)")
                return f
            }
        }
        f += try await expectStored(store, key, tag: "v4", version: 4, after: "three compare-and-swap saves")
        return f
    }

    @Sendable private static func unconditionalSaveBumpsVersion(_ store: any SessionStore) async throws -> [String] {
        var f: [String] = []
        try await store.save(session(key, tag: "one"), for: key, expectedVersion: nil)
        let two = try await store.save(session(key, tag: "two"), for: key, expectedVersion: nil)
        if two.version != 2 { f.append("second unconditional save returned version \(two.version), expected 2") }
        // The version of the session passed in is the caller's copy; the store's counter decides.
        var stale = session(key, tag: "three")
        stale.version = 99
        let three = try await store.save(stale, for: key, expectedVersion: nil)
        if three.version != 3 {
            f.append("unconditional save of a session carrying version 99 returned version \(three.version), expected 3 (the store's counter, not the caller's)")
        }
        f += try await expectStored(store, key, tag: "three", version: 3, after: "three unconditional saves")
        return f
    }

    @Sendable private static func removeDeletes(_ store: any SessionStore) async throws -> [String] {
        var f: [String] = []
        let other = SessionKey(provider: "conformance", account: "kept")
        try await store.save(session(key, tag: "gone"), for: key, expectedVersion: nil)
        try await store.save(session(other, tag: "kept"), for: other, expectedVersion: nil)
        try await store.remove(key)
        if try await store.load(key) != nil { f.append("load after remove returned a session") }
        let keys = try await store.keys()
        if keys != [other] { f.append("keys() after removing one of two keys returned \(keys), expected [\(other)]") }
        f += try await expectStored(store, other, tag: "kept", version: 1, after: "removing another key")
        do {
            try await store.remove(key)
            try await store.remove(SessionKey(provider: "conformance", account: "never-saved"))
        } catch {
            f.append("removing a missing key threw \(error); it must be a no-op")
        }
        do {
            let again = try await store.save(session(key, tag: "again"), for: key, expectedVersion: 0)
            if again.version != 1 { f.append("save after remove returned version \(again.version), expected 1") }
        } catch {
            f.append("save with expectedVersion 0 (must be absent) after remove failed: \(error)")
        }
        return f
    }

    @Sendable private static func keysAreIsolatedAndSorted(_ store: any SessionStore) async throws -> [String] {
        let keys = [
            SessionKey(provider: "zeta", account: "default"),
            SessionKey(provider: "alpha", account: "work"),
            SessionKey(provider: "alpha", account: "default"),
            SessionKey(provider: "mid", account: "b"),
            SessionKey(provider: "mid", account: "a"),
        ]
        return try await saveAndCheckEach(store, keys: keys, what: "keys")
    }

    @Sendable private static func awkwardKeyNamesRoundTrip(_ store: any SessionStore) async throws -> [String] {
        let long = String(repeating: "long-Näme/", count: 20)
        let keys = [
            SessionKey(provider: "with/slash", account: "a/b/c"),
            SessionKey(provider: "with space", account: "two  spaces "),
            SessionKey(provider: "ünïcødé", account: "アカウント🔑"),
            SessionKey(provider: "..", account: ".."),
            SessionKey(provider: ".", account: "../../etc/passwd"),
            SessionKey(provider: "empty-account", account: ""),
            SessionKey(provider: "", account: "empty-provider"),
            SessionKey(provider: "Auth0", account: "Default"),
            SessionKey(provider: "auth0", account: "default"),
            SessionKey(provider: "tilde~41", account: "percent%2F.dot"),
            SessionKey(provider: "line\nbreak", account: "tab\tnul\u{0}"),
            SessionKey(provider: long, account: long + "x"),
            SessionKey(provider: long, account: long + "y"),
        ]
        return try await saveAndCheckEach(store, keys: keys, what: "awkward keys")
    }

    @Sendable private static func concurrentCompareAndSwapHasOneWinner(_ store: any SessionStore) async throws -> [String] {
        var f: [String] = []
        try await store.save(session(key, tag: "base"), for: key, expectedVersion: nil)
        let writers = 20
        let outcomes = await withTaskGroup(of: (Int, Result<Session, any Error>).self) { group in
            for i in 0..<writers {
                group.addTask {
                    do {
                        return (i, .success(try await store.save(session(key, tag: "writer-\(i)"), for: key, expectedVersion: 1)))
                    } catch {
                        return (i, .failure(error))
                    }
                }
            }
            var all: [(Int, Result<Session, any Error>)] = []
            for await outcome in group { all.append(outcome) }
            return all
        }
        var winners: [Int] = []
        var conflicts = 0
        for (i, outcome) in outcomes {
            switch outcome {
            case .success(let saved):
                winners.append(i)
                if saved.version != 2 { f.append("the winning save returned version \(saved.version), expected 2") }
            case .failure(let error):
                if isConflict(error) { conflicts += 1 } else { f.append("writer \(i) failed with \(error) instead of a conflict") }
            }
        }
        if winners.count != 1 {
            f.append("\(writers) concurrent saves with expectedVersion 1: \(winners.count) succeeded (exactly 1 must), \(conflicts) conflicted")
        }
        if let winner = winners.first, winners.count == 1 {
            f += try await expectStored(store, key, tag: "writer-\(winner)", version: 2, after: "the concurrent saves")
        }
        return f
    }

    @Sendable private static func refreshLockExcludes(_ store: any SessionStore) async throws -> [String] {
        var f: [String] = []
        let lock = store.makeRefreshLock()
        let probe = OverlapProbe()
        try await store.save(session(key, tag: "locked"), for: key, expectedVersion: nil)

        // Concurrent bodies for one key must never overlap, even across suspension points.
        let holders = 4
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<holders {
                group.addTask {
                    try await lock.withLock(key) {
                        await probe.enter()
                        // Give the other holders every chance to (wrongly) enter too: a lock that
                        // does not exclude is then caught even when the machine is loaded and the
                        // tasks happen to start one after another. A correct lock costs 200 yields.
                        for _ in 0..<200 {
                            if await probe.counts.entered == holders { break }
                            await Task.yield()
                        }
                        _ = try await store.load(key)
                        await probe.leave()
                    }
                }
            }
            try await group.waitForAll()
        }
        let (entered, maxActive) = await probe.counts
        if entered != holders { f.append("\(entered) of \(holders) withLock bodies ran") }
        if maxActive > 1 { f.append("\(maxActive) withLock bodies for the same key ran at the same time; at most 1 may") }

        // A body that throws must release the lock.
        struct Boom: Error {}
        do {
            _ = try await lock.withLock(key) { () async throws -> Int in throw Boom() }
            f.append("withLock did not rethrow the body's error")
        } catch is Boom {
        } catch {
            f.append("withLock threw \(error) instead of the body's error")
        }
        let after = try await lock.withLock(key) { 7 }
        if after != 7 { f.append("withLock after a throwing body returned \(after), expected the body's value") }

        // The refresh of a session saves it while holding the lock, and may need another key's lock.
        let other = SessionKey(provider: "conformance", account: "other")
        let saved = try await lock.withLock(key) {
            let renewed = try await store.save(session(key, tag: "renewed"), for: key, expectedVersion: 1)
            _ = try await lock.withLock(other) { try await store.save(session(other, tag: "other"), for: other, expectedVersion: nil) }
            return renewed
        }
        if saved.version != 2 { f.append("a save made while holding the refresh lock returned version \(saved.version), expected 2") }
        return f
    }

    // MARK: Helpers

    /// A session with every field set, its secrets and values derived from `tag`.
    /// For a ``UserIndexedSessionStore`` (others pass): `keys(provider:userID:)` lists exactly the
    /// provider's sessions of that user — after saves, a session moving to another user, a
    /// compare-and-swap, removals — for awkward user ids too, and never one without a user id.
    @Sendable private static func userIndexFollowsSavesAndRemovals(_ store: any SessionStore) async throws -> [String] {
        guard let store = store as? any UserIndexedSessionStore else { return [] }
        var f: [String] = []
        func save(_ provider: String, _ account: String, user: String?) async throws {
            var s = session(SessionKey(provider: provider, account: account), tag: account)
            s.userID = user
            try await store.save(s, for: SessionKey(provider: provider, account: account), expectedVersion: nil)
        }
        func expect(_ provider: String, _ user: String, _ accounts: [String], _ when: String) async throws {
            let found = try await store.keys(provider: provider, userID: user).map(\.account)
            if found != accounts { f.append("[userIndexFollowsSavesAndRemovals] \(when): \(provider)/\(user.debugDescription) lists \(found), expected \(accounts)") }
        }
        let odd = "user|with/odd\u{0}chars ü"
        try await save("p", "web.1", user: "u1")
        try await save("p", "web.2", user: "u1")
        try await save("p", "web.3", user: "u2")
        try await save("q", "web.4", user: "u1")
        try await save("p", "anon", user: nil)
        try await save("p", "odd", user: odd)
        try await expect("p", "u1", ["web.1", "web.2"], "after the saves")
        try await expect("q", "u1", ["web.4"], "another provider")
        try await expect("p", odd, ["odd"], "an awkward user id")
        try await expect("p", "nobody", [], "an unknown user")
        try await save("p", "web.2", user: "u2")
        try await expect("p", "u1", ["web.1"], "after web.2 moved to u2")
        try await expect("p", "u2", ["web.2", "web.3"], "after web.2 moved to u2")
        var renewed = session(SessionKey(provider: "p", account: "web.1"), tag: "renewed")
        renewed.userID = "u1"
        let current = try await store.load(SessionKey(provider: "p", account: "web.1"))?.version ?? 0
        try await store.save(renewed, for: SessionKey(provider: "p", account: "web.1"), expectedVersion: current)
        try await expect("p", "u1", ["web.1"], "after a compare-and-swap")
        try await store.remove(SessionKey(provider: "p", account: "web.1"))
        try await store.remove(SessionKey(provider: "p", account: "web.3"))
        try await expect("p", "u1", [], "after removing web.1")
        try await expect("p", "u2", ["web.2"], "after removing web.3")
        return f
    }

    private static func session(_ key: SessionKey, tag: String) -> Session {
        Session(
            providerID: key.provider,
            accountKey: key.account,
            accessToken: Secret("access-\(tag)"),
            tokenType: "DPoP",
            idToken: Secret("id-\(tag)"),
            refreshToken: Secret("refresh-\(tag)"),
            expiresAt: Date(timeIntervalSince1970: 1_767_225_600.123),
            scope: "openid profile email offline_access",
            userID: "user-\(tag)",
            claims: ["email": "user@example.com", "email_verified": true, "age": 42, "ratio": 0.25,
                     "roles": ["admin", "dev"], "address": ["city": "Zürich", "zip": nil]],
            extras: ["organizationId": .string("org-\(tag)"), "nested": ["list": [1, 2.5, "three"]]],
            secretExtras: ["sessionKey": Secret("sk-\(tag)"), "apiSecret": Secret("api-\(tag)")],
            issuedAt: Date(timeIntervalSince1970: 1_767_222_000.456)
        )
    }

    /// Saves a distinct session under each key, then checks each loads its own and `keys()` lists them sorted.
    private static func saveAndCheckEach(_ store: any SessionStore, keys: [SessionKey], what: String) async throws -> [String] {
        var f: [String] = []
        for (i, key) in keys.enumerated() {
            do {
                try await store.save(session(key, tag: "key-\(i)"), for: key, expectedVersion: 0)
            } catch {
                f.append("save under \(describe(key)) failed: \(error)")
            }
        }
        for (i, key) in keys.enumerated() {
            do {
                guard let loaded = try await store.load(key) else {
                    f.append("load of \(describe(key)) returned nil after it was saved")
                    continue
                }
                if loaded.accessToken != Secret("access-key-\(i)") {
                    f.append("load of \(describe(key)) returned another key's session (keys are not isolated)")
                }
                if loaded.version != 1 { f.append("\(describe(key)) has version \(loaded.version), expected 1") }
            } catch {
                f.append("load of \(describe(key)) failed: \(error)")
            }
        }
        let listed = try await store.keys()
        let expected = keys.sorted()
        if listed != expected {
            let missing = Set(expected).subtracting(listed).map(describe)
            let extra = Set(listed).subtracting(expected).map(describe)
            if missing.isEmpty && extra.isEmpty {
                f.append("keys() lists the \(what) but not sorted: \(listed.map(describe))")
            } else {
                f.append("keys() does not round-trip the \(what): missing \(missing.sorted()), unexpected \(extra.sorted())")
            }
        }
        return f
    }

    /// The stored session under `key` must be the one saved with `tag`, at `version`.
    private static func expectStored(_ store: any SessionStore, _ key: SessionKey, tag: String, version: UInt64,
                                     after: String) async throws -> [String] {
        guard let loaded = try await store.load(key) else { return ["after \(after), load of \(key) returned nil"] }
        var f: [String] = []
        if loaded.accessToken != Secret("access-\(tag)") {
            f.append("after \(after), the stored session is not the one expected (its access token differs)")
        }
        if loaded.version != version { f.append("after \(after), the stored version is \(loaded.version), expected \(version)") }
        return f
    }

    /// `operation` must throw an ``AuthError`` with code ``AuthErrorCode/conflict``.
    private static func expectConflict(_ what: String, _ operation: () async throws -> Session) async -> [String] {
        do {
            let saved = try await operation()
            return ["\(what) succeeded (stored version \(saved.version)); it must throw AuthError code conflict"]
        } catch {
            return isConflict(error) ? [] : ["\(what) threw \(error); expected AuthError code conflict"]
        }
    }

    private static func isConflict(_ error: any Error) -> Bool {
        (error as? AuthError)?.code == .conflict
    }

    /// Field-by-field comparison; secrets are reported by name only.
    private static func compare(_ expected: Session, _ actual: Session, context: String) -> [String] {
        var f: [String] = []
        func differs(_ field: String, _ detail: String = "") {
            f.append("\(context): \(field) differs\(detail.isEmpty ? "" : " (\(detail))")")
        }
        if actual.providerID != expected.providerID { differs("providerID", "\(expected.providerID) → \(actual.providerID)") }
        if actual.accountKey != expected.accountKey { differs("accountKey", "\(expected.accountKey) → \(actual.accountKey)") }
        if actual.accessToken != expected.accessToken { differs("accessToken") }
        if actual.tokenType != expected.tokenType { differs("tokenType", "\(expected.tokenType) → \(actual.tokenType)") }
        if actual.idToken != expected.idToken { differs("idToken", presence(expected.idToken, actual.idToken)) }
        if actual.refreshToken != expected.refreshToken { differs("refreshToken", presence(expected.refreshToken, actual.refreshToken)) }
        if !sameDate(actual.expiresAt, expected.expiresAt) {
            differs("expiresAt", "\(String(describing: expected.expiresAt)) → \(String(describing: actual.expiresAt)); must match to the millisecond")
        }
        if !sameDate(actual.issuedAt, expected.issuedAt) {
            differs("issuedAt", "\(String(describing: expected.issuedAt)) → \(String(describing: actual.issuedAt)); must match to the millisecond")
        }
        if actual.scope != expected.scope { differs("scope", "\(String(describing: expected.scope)) → \(String(describing: actual.scope))") }
        if actual.userID != expected.userID { differs("userID", "\(String(describing: expected.userID)) → \(String(describing: actual.userID))") }
        if actual.claims != expected.claims { differs("claims", "\(expected.claims) → \(actual.claims)") }
        if actual.extras != expected.extras { differs("extras", "\(expected.extras) → \(actual.extras)") }
        if actual.secretExtras != expected.secretExtras {
            differs("secretExtras", "names \(expected.secretExtras.keys.sorted()) → \(actual.secretExtras.keys.sorted()); values not shown")
        }
        return f
    }

    private static func presence(_ expected: Secret<String>?, _ actual: Secret<String>?) -> String {
        switch (expected == nil, actual == nil) {
        case (false, true): "it was lost"
        case (true, false): "it appeared"
        default: "values not shown"
        }
    }

    private static func sameDate(_ a: Date?, _ b: Date?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case (let a?, let b?): abs(a.timeIntervalSince(b)) < 0.001
        default: false
        }
    }

    /// A key as `"provider"/"account"` with escapes visible, for messages about awkward names.
    private static func describe(_ key: SessionKey) -> String {
        func quote(_ s: String) -> String {
            let shown = s.count > 40 ? String(s.prefix(37)) + "…" : s
            return "\"" + shown.unicodeScalars.map { $0.escaped(asASCII: false) }.joined() + "\""
        }
        return "\(quote(key.provider))/\(quote(key.account))"
    }

}

/// Counts how many lock holders are inside the lock at once.
private actor OverlapProbe {
    private var active = 0
    private var entered = 0
    private var maxActive = 0

    func enter() {
        active += 1
        entered += 1
        maxActive = max(maxActive, active)
    }

    func leave() { active -= 1 }

    var counts: (entered: Int, maxActive: Int) { (entered, maxActive) }
}
