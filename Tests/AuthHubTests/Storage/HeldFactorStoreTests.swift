import AuthHub
import AuthHubTesting
import Foundation
import Testing

/// The built-in held-factor stores against the conformance suite, and the file store's handling of
/// files it did not write.
@Suite struct HeldFactorStoreTests {
    static func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("authhub-held-\(UUID().uuidString)")
    }
    static let key = Secret(Data((0..<32).map { UInt8($0) }).base64EncodedString())

    @Test func theMemoryStoreConforms() async {
        let failures = await HeldFactorStoreConformance { InMemoryHeldFactorStore() }.run()
        #expect(failures.isEmpty, "\(failures)")
    }

    /// A longer deadline per check than the suite's 30 s: sixteen concurrent saves are sixteen
    /// fsyncs in turn, which a full test run's disk load can stretch past 30 s.
    @Test(arguments: [false, true]) func theFileStoreConforms(sealed: Bool) async {
        let failures = await HeldFactorStoreConformance(timeout: .seconds(120)) {
            try FileHeldFactorStore(directory: Self.folder(), encryptionKey: sealed ? Self.key : nil)
        }.run()
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test func theSessionStoresKeepOne() async throws {
        let directory = Self.folder()
        let file = try FileSessionStore(directory: directory, encryptionKey: Self.key)
        let owner = HeldFactorOwner(provider: "p", user: "u")
        try await file.heldFactorStore.save(HeldFactorRecord(owner: owner, factors: [
            HeldFactor(id: "authhub.x", kind: .totp, createdAt: Date(timeIntervalSince1970: 1_767_225_600), isConfirmed: true, material: Secret("TOPSECRET")),
        ]), expectedVersion: nil)
        let path = directory.appendingPathComponent(".factors/\(owner.reference).json").path
        let bytes = try #require(FileManager.default.contents(atPath: path))
        #expect(!String(decoding: bytes, as: UTF8.self).contains("TOPSECRET"), "sealed with the session store's key")
        #expect(!String(decoding: bytes, as: UTF8.self).contains("\"u\""), "the user id is not on disk in clear")
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try await file.keys().isEmpty, "held factors are no sessions")
        let memory = InMemorySessionStore()
        #expect(try await memory.heldFactorStore.load(owner) == nil)
    }

    /// A file the store did not write for this owner is refused as storageFailure — never read as no
    /// factors (which would skip the second step).
    @Test func foreignFilesAreRefused() async throws {
        let directory = Self.folder()
        let sealed = try FileHeldFactorStore(directory: directory, encryptionKey: Self.key)
        let alice = HeldFactorOwner(provider: "p", user: "alice"), bob = HeldFactorOwner(provider: "p", user: "bob")
        try await sealed.save(HeldFactorStoreTestRecords.one(alice), expectedVersion: nil)
        try await sealed.save(HeldFactorStoreTestRecords.one(bob), expectedVersion: nil)
        // Alice's file copied over Bob's: it names another owner (and would not open under Bob's name).
        let alicePath = directory.appendingPathComponent("\(alice.reference).json").path
        let bobPath = directory.appendingPathComponent("\(bob.reference).json").path
        try FileManager.default.removeItem(atPath: bobPath)
        try FileManager.default.copyItem(atPath: alicePath, toPath: bobPath)
        await #expect(throws: AuthError(.storageFailure)) { _ = try await sealed.load(bob) }
        // Sealed records read by a store without the key, and plain ones by a store that seals.
        let plain = try FileHeldFactorStore(directory: directory)
        await #expect(throws: AuthError(.storageFailure)) { _ = try await plain.load(alice) }
        let otherDirectory = Self.folder()
        try await FileHeldFactorStore(directory: otherDirectory).save(HeldFactorStoreTestRecords.one(alice), expectedVersion: nil)
        await #expect(throws: AuthError(.storageFailure)) { _ = try await FileHeldFactorStore(directory: otherDirectory, encryptionKey: Self.key).load(alice) }
        // Damaged and hostile contents.
        for junk in ["", "[]", "{\"format\":\"authhub.held-factors\",\"version\":1}", String(repeating: "x", count: 300_000),
                     "{\"format\":\"authhub.held-factors\",\"version\":1,\"owner\":\"\(alice.reference)\",\"record\":\"{\\\"version\\\":1e300}\"}"] {
            try Data(junk.utf8).write(to: URL(fileURLWithPath: alicePath))
            await #expect(throws: AuthError(.storageFailure), "\(junk.prefix(40))") { _ = try await plain.load(alice) }
        }
        // A save over a damaged file is refused too (its version cannot be compared).
        await #expect(throws: AuthError(.storageFailure)) { try await plain.save(HeldFactorStoreTestRecords.one(alice), expectedVersion: nil) }
    }

    @Test func aBadKeyIsAConfigurationError() {
        #expect(throws: AuthError(.invalidConfiguration)) { _ = try FileHeldFactorStore(directory: Self.folder(), encryptionKey: Secret("c2hvcnQ=")) }
    }
}

enum HeldFactorStoreTestRecords {
    static func one(_ owner: HeldFactorOwner) -> HeldFactorRecord {
        HeldFactorRecord(owner: owner, factors: [
            HeldFactor(id: "authhub.1", kind: .totp, createdAt: Date(timeIntervalSince1970: 1_767_225_600), isConfirmed: true, material: Secret("m")),
        ])
    }
}
