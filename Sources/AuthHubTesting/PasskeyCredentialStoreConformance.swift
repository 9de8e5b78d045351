import AuthHub
import AuthHubFactors
import Foundation

/// Checks that a ``PasskeyCredentialStore`` keeps the contract `SoftwarePasskeyAuthenticator`
/// relies on: faithful round trips (private key included), replacement by ID, lookup by RP ID in
/// creation order, removal, counters that increase by one and never repeat under concurrency, and
/// `passkeyNotFound` for an unknown credential.
///
/// Framework-agnostic, like ``SessionStoreConformance``: ``run(only:)`` returns failure
/// descriptions, empty when the store conforms.
///
/// ```swift
/// let failures = await PasskeyCredentialStoreConformance { try MyKeychainStore(service: UUID().uuidString) }.run()
/// #expect(failures.isEmpty, "\(failures)")
/// ```
///
/// `makeStore` is called once per check and must return an EMPTY store each time. Failures never
/// show a private key, only which field differs.
public struct PasskeyCredentialStoreConformance: Sendable {
    private let makeStore: @Sendable () async throws -> any PasskeyCredentialStore
    private let timeout: Duration

    /// Creates the suite.
    /// - Parameters:
    ///   - timeout: the longest any one check may take before it is reported as hung.
    ///   - makeStore: returns a new, empty store; called once per check.
    public init(timeout: Duration = .seconds(30),
                makeStore: @escaping @Sendable () async throws -> any PasskeyCredentialStore) {
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

    private struct Check: Sendable {
        var name: String
        var body: @Sendable (any PasskeyCredentialStore) async throws -> [String]
    }

    private static let checks: [Check] = [
        Check(name: "emptyStoreHasNothing", body: emptyStoreHasNothing),
        Check(name: "roundTripKeepsEveryField", body: roundTripKeepsEveryField),
        Check(name: "saveReplacesByID", body: saveReplacesByID),
        Check(name: "lookupByRPIDKeepsCreationOrder", body: lookupByRPIDKeepsCreationOrder),
        Check(name: "removeDeletesOnlyThatCredential", body: removeDeletesOnlyThatCredential),
        Check(name: "signCountIncrementsAndPersists", body: signCountIncrementsAndPersists),
        Check(name: "unknownCredentialCountIsNotFound", body: unknownCredentialCountIsNotFound),
        Check(name: "concurrentCountsNeverRepeat", body: concurrentCountsNeverRepeat),
    ]

    static func sample(_ n: UInt8, rp: String = "example.com") -> PasskeyCredential {
        PasskeyCredential(
            id: [n, 0xa0, n], relyingPartyID: rp,
            user: PasskeyUser(id: [0x75, n], name: "user\(n)@example.com", displayName: "User \(n) ✓"),
            privateKey: Secret((0..<32).map { UInt8($0) &* 7 &+ n }), signCount: UInt32(n) * 3,
            discoverable: n.isMultiple(of: 2), createdAt: Date(timeIntervalSince1970: 1_700_000_000 + Double(n)))
    }

    /// Which fields differ, never their secret values.
    static func differences(_ a: PasskeyCredential, _ b: PasskeyCredential) -> [String] {
        var fields: [String] = []
        if a.id != b.id { fields.append("id") }
        if a.relyingPartyID != b.relyingPartyID { fields.append("relyingPartyID") }
        if a.user != b.user { fields.append("user") }
        if a.algorithm != b.algorithm { fields.append("algorithm") }
        if a.privateKey != b.privateKey { fields.append("privateKey") }
        if a.signCount != b.signCount { fields.append("signCount") }
        if a.discoverable != b.discoverable { fields.append("discoverable") }
        if abs(a.createdAt.timeIntervalSince(b.createdAt)) > 0.001 { fields.append("createdAt") }
        return fields
    }

    private static func emptyStoreHasNothing(_ store: any PasskeyCredentialStore) async throws -> [String] {
        var failures: [String] = []
        if try await !store.all().isEmpty { failures.append("a new store is not empty") }
        if try await store.credential(id: [1]) != nil { failures.append("credential(id:) found something in an empty store") }
        if try await !store.credentials(relyingPartyID: "example.com").isEmpty { failures.append("credentials(relyingPartyID:) is not empty") }
        return failures
    }

    private static func roundTripKeepsEveryField(_ store: any PasskeyCredentialStore) async throws -> [String] {
        let original = sample(4)
        try await store.save(original)
        guard let loaded = try await store.credential(id: original.id) else { return ["a saved credential is not found by ID"] }
        let differing = differences(original, loaded)
        return differing.isEmpty ? [] : ["fields changed in a round trip: \(differing.joined(separator: ", "))"]
    }

    private static func saveReplacesByID(_ store: any PasskeyCredentialStore) async throws -> [String] {
        try await store.save(sample(1))
        var renamed = sample(1)
        renamed.user.displayName = "Renamed"
        try await store.save(renamed)
        let all = try await store.all()
        var failures: [String] = []
        if all.count != 1 { failures.append("saving the same ID twice left \(all.count) credentials") }
        if all.first?.user.displayName != "Renamed" { failures.append("the second save did not replace the first") }
        return failures
    }

    private static func lookupByRPIDKeepsCreationOrder(_ store: any PasskeyCredentialStore) async throws -> [String] {
        for (n, rp) in [(UInt8(1), "example.com"), (2, "example.org"), (3, "example.com"), (4, "sub.example.com")] {
            try await store.save(sample(n, rp: rp))
        }
        var failures: [String] = []
        let ids = try await store.credentials(relyingPartyID: "example.com").map(\.id)
        if ids != [sample(1).id, sample(3).id] { failures.append("credentials(relyingPartyID: example.com) returned \(ids.count) credentials in the wrong set or order") }
        if try await store.all().map(\.id) != [1, 2, 3, 4].map({ sample($0).id }) { failures.append("all() is not every credential, oldest first") }
        return failures
    }

    private static func removeDeletesOnlyThatCredential(_ store: any PasskeyCredentialStore) async throws -> [String] {
        try await store.save(sample(1))
        try await store.save(sample(2))
        try await store.remove(id: sample(1).id)
        try await store.remove(id: sample(1).id)
        try await store.remove(id: [0xff])
        var failures: [String] = []
        if try await store.credential(id: sample(1).id) != nil { failures.append("a removed credential is still found") }
        if try await store.credential(id: sample(2).id) == nil { failures.append("removing one credential removed another") }
        return failures
    }

    private static func signCountIncrementsAndPersists(_ store: any PasskeyCredentialStore) async throws -> [String] {
        try await store.save(sample(2))
        let start = sample(2).signCount
        var failures: [String] = []
        for step in 1...3 {
            let next = try await store.nextSignCount(for: sample(2).id)
            if next != start + UInt32(step) { failures.append("nextSignCount returned \(next), expected \(start + UInt32(step))") }
        }
        if try await store.credential(id: sample(2).id)?.signCount != start + 3 { failures.append("the stored counter was not updated") }
        return failures
    }

    private static func unknownCredentialCountIsNotFound(_ store: any PasskeyCredentialStore) async throws -> [String] {
        do {
            _ = try await store.nextSignCount(for: [0xde, 0xad])
            return ["nextSignCount for an unknown credential did not throw"]
        } catch let error as AuthError where error.code == .passkeyNotFound {
            return []
        } catch {
            return ["nextSignCount for an unknown credential threw \(error), not passkeyNotFound"]
        }
    }

    private static func concurrentCountsNeverRepeat(_ store: any PasskeyCredentialStore) async throws -> [String] {
        try await store.save(sample(0))
        let counters = try await withThrowingTaskGroup(of: UInt32.self) { group in
            for _ in 0..<50 { group.addTask { try await store.nextSignCount(for: sample(0).id) } }
            return try await group.reduce(into: [UInt32]()) { $0.append($1) }
        }
        var failures: [String] = []
        if counters.sorted() != Array(1...50) { failures.append("50 concurrent increments gave \(Set(counters).count) distinct values, not 1...50") }
        if try await store.credential(id: sample(0).id)?.signCount != 50 { failures.append("the stored counter is not 50 after 50 increments") }
        return failures
    }
}
