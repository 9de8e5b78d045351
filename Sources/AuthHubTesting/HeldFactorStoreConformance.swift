import AuthHub
import Foundation

/// Checks that a ``HeldFactorStore`` keeps the contract AuthHub-held factors rely on: nil for an
/// owner never saved, version 1 first, faithful round trips (secret material included), owners
/// kept apart, compare-and-swap (a wrong expectation stores nothing), one winner among concurrent
/// writers, removal.
///
/// As ``SessionStoreConformance``: `makeStore` returns an EMPTY store per check, ``run(only:)``
/// returns `[check] message` failures (empty when the store conforms) and never shows a secret.
///
/// ```swift
/// let failures = await HeldFactorStoreConformance { InMemoryHeldFactorStore() }.run()
/// ```
public struct HeldFactorStoreConformance: Sendable {
    private let makeStore: @Sendable () async throws -> any HeldFactorStore
    private let timeout: Duration

    public init(timeout: Duration = .seconds(30), makeStore: @escaping @Sendable () async throws -> any HeldFactorStore) {
        self.makeStore = makeStore
        self.timeout = timeout
    }

    /// The names of every check, in the order ``run(only:)`` runs them.
    public static var checkNames: [String] { checks.map(\.0) }

    /// Runs every check (or those named in `only`).
    public func run(only: Set<String>? = nil) async -> [String] {
        await ConformanceRunner.runChecks(Self.checks.map { ($0.0, $0.1) }, only: only, timeout: timeout, makeStore: makeStore)
    }

    private static let checks: [(String, @Sendable (any HeldFactorStore) async throws -> [String])] = [
        ("missingOwnerLoadsNil", missingOwnerLoadsNil),
        ("roundTripKeepsEveryField", roundTripKeepsEveryField),
        ("compareAndSwap", compareAndSwap),
        ("ownersAreKeptApart", ownersAreKeptApart),
        ("concurrentSavesHaveOneWinner", concurrentSavesHaveOneWinner),
        ("removeForgets", removeForgets),
    ]

    static let owner = HeldFactorOwner(provider: "conformance", user: "user|1")

    static func record(_ owner: HeldFactorOwner = owner, tag: String) -> HeldFactorRecord {
        let created = Date(timeIntervalSince1970: 1_767_225_600)
        return HeldFactorRecord(owner: owner, factors: [
            HeldFactor(id: "authhub.totp-\(tag)", kind: .totp, name: "Phone “\(tag)”", createdAt: created,
                       lastUsedAt: created.addingTimeInterval(90), isConfirmed: true, material: Secret("{\"secret\":\"\(tag)-s3cr3t\"}")),
            HeldFactor(id: "authhub.rc-\(tag)", kind: .recoveryCode, createdAt: created, isConfirmed: false, material: Secret("[\"sha256$\(tag)\"]")),
        ])
    }

    private static func conflicts(_ body: () async throws -> Void) async -> Bool {
        do {
            try await body()
            return false
        } catch let error as AuthError {
            return error.code == .conflict
        } catch {
            return false
        }
    }

    @Sendable private static func missingOwnerLoadsNil(_ store: any HeldFactorStore) async throws -> [String] {
        try await store.load(owner) == nil ? [] : ["load of an owner never saved returned a record instead of nil"]
    }

    @Sendable private static func roundTripKeepsEveryField(_ store: any HeldFactorStore) async throws -> [String] {
        var f: [String] = []
        let saved = try await store.save(record(tag: "a"), expectedVersion: nil)
        if saved.version != 1 { f.append("the first save returned version \(saved.version), expected 1") }
        guard let loaded = try await store.load(owner) else { return f + ["a saved record loads as nil"] }
        var expected = record(tag: "a")
        expected.version = 1
        if loaded.owner != expected.owner { f.append("the owner changed in a round trip") }
        if loaded.version != 1 { f.append("the loaded version is \(loaded.version), expected 1") }
        if loaded.factors.count != expected.factors.count { f.append("\(loaded.factors.count) factors loaded, \(expected.factors.count) saved") }
        for (l, e) in zip(loaded.factors, expected.factors) {
            if l.id != e.id || l.kind != e.kind || l.name != e.name || l.isConfirmed != e.isConfirmed { f.append("factor \(e.id): a field changed") }
            if l.createdAt != e.createdAt || l.lastUsedAt != e.lastUsedAt { f.append("factor \(e.id): a date changed") }
            if l.material != e.material { f.append("factor \(e.id): the material changed (not shown)") }
        }
        return f
    }

    @Sendable private static func compareAndSwap(_ store: any HeldFactorStore) async throws -> [String] {
        var f: [String] = []
        let first = try await store.save(record(tag: "a"), expectedVersion: nil)
        if !(await conflicts { try await store.save(record(tag: "b"), expectedVersion: nil) }) {
            f.append("a save expecting no record succeeded over one")
        }
        if !(await conflicts { try await store.save(record(tag: "b"), expectedVersion: first.version + 1) }) {
            f.append("a save expecting a later version succeeded")
        }
        if try await store.load(owner)?.factors.first?.id != "authhub.totp-a" { f.append("a refused save changed the record") }
        let second = try await store.save(record(tag: "c"), expectedVersion: first.version)
        if second.version != first.version + 1 { f.append("a save at the right version returned \(second.version), expected \(first.version + 1)") }
        if try await store.load(owner)?.factors.first?.id != "authhub.totp-c" { f.append("a save at the right version was not stored") }
        return f
    }

    @Sendable private static func ownersAreKeptApart(_ store: any HeldFactorStore) async throws -> [String] {
        var f: [String] = []
        let others = [HeldFactorOwner(provider: "conformance", user: "user|2"), HeldFactorOwner(provider: "other", user: "user|1"),
                      HeldFactorOwner(provider: "conformance", user: "ユーザー/../1")]
        try await store.save(record(tag: "mine"), expectedVersion: nil)
        for (index, other) in others.enumerated() {
            if try await store.load(other) != nil { f.append("owner \(index) sees another owner's record") }
            try await store.save(record(other, tag: "other\(index)"), expectedVersion: nil)
            if try await store.load(other)?.factors.first?.id != "authhub.totp-other\(index)" { f.append("owner \(index)'s record did not round-trip") }
        }
        if try await store.load(owner)?.factors.first?.id != "authhub.totp-mine" { f.append("another owner's save changed this owner's record") }
        return f
    }

    @Sendable private static func concurrentSavesHaveOneWinner(_ store: any HeldFactorStore) async throws -> [String] {
        let base = try await store.save(record(tag: "base"), expectedVersion: nil)
        let wins = await withTaskGroup(of: Bool.self) { group in
            for i in 0..<16 {
                group.addTask { (try? await store.save(record(tag: "w\(i)"), expectedVersion: base.version)) != nil }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        return wins == 1 ? [] : ["\(wins) of 16 concurrent saves at the same version succeeded, expected exactly 1"]
    }

    @Sendable private static func removeForgets(_ store: any HeldFactorStore) async throws -> [String] {
        var f: [String] = []
        try await store.remove(owner)
        try await store.save(record(tag: "a"), expectedVersion: nil)
        try await store.remove(owner)
        if try await store.load(owner) != nil { f.append("a removed record still loads") }
        if (try? await store.save(record(tag: "b"), expectedVersion: nil))?.version != 1 { f.append("a save after removal is not version 1 of a new record") }
        return f
    }
}
