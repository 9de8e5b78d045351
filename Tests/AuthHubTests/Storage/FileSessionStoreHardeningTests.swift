import AuthHub
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Hostile session files (links, FIFOs, devices, huge or out-of-range contents, another key's
/// session) and the pending files a killed save leaves behind.
@Suite struct FileSessionStoreHardeningTests {
    let key = SessionKey(provider: "auth0", account: "default")

    private func pendingURL(_ store: FileSessionStore, _ key: SessionKey) -> URL {
        let file = store.fileURL(for: key)
        let base = String(file.lastPathComponent.dropLast(".json".count))
        return file.deletingLastPathComponent().appendingPathComponent("." + base + ".pending")
    }

    private func entries(_ directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    // MARK: Files that are not what they claim

    @Test func aSessionFileLinkedToDevZeroIsRefusedNotReadForever() async throws {
        let root = try TemporaryDirectory("devzero")
        defer { root.remove() }
        let store = try FileSessionStore(directory: root.url)
        try FileManager.default.createSymbolicLink(atPath: store.fileURL(for: key).path, withDestinationPath: "/dev/zero")
        let error = try await #require(throws: AuthError.self) { try await store.load(key) }
        #expect(error.code == .storageFailure)
        #expect(error.message.contains("symbolic link"))
        #expect(error.message.contains(store.fileURL(for: key).path))
    }

    @Test func aSessionFileThatIsAFIFOIsRefusedWithoutHanging() async throws {
        let root = try TemporaryDirectory("fifo")
        defer { root.remove() }
        let store = try FileSessionStore(directory: root.url)
        #expect(mkfifo(store.fileURL(for: key).path, 0o600) == 0)
        let error = try await #require(throws: AuthError.self) { try await store.load(key) }
        #expect(error.code == .storageFailure)
        #expect(error.message.contains("not a regular file"))
        // And a new sign-in still replaces it.
        try await store.save(StorageFixtures.session(key), for: key, expectedVersion: nil)
        #expect(try await store.load(key)?.accessToken.revealed() == "access-token-AAA")
    }

    @Test func anOversizedSessionFileIsRefused() async throws {
        let root = try TemporaryDirectory("huge")
        defer { root.remove() }
        let store = try FileSessionStore(directory: root.url)
        try Data(repeating: 0x20, count: (1 << 20) + 1).write(to: store.fileURL(for: key))
        let error = try await #require(throws: AuthError.self) { try await store.load(key) }
        #expect(error.code == .storageFailure)
        #expect(error.message.contains("larger than"))
    }

    @Test func aStoredExpiryOutsideTheCalendarIsACannotReadError() async throws {
        let root = try TemporaryDirectory("expiry")
        defer { root.remove() }
        let store = try FileSessionStore(directory: root.url)
        try await store.save(StorageFixtures.session(key), for: key, expectedVersion: nil)
        let file = store.fileURL(for: key)
        for bad in ["1e300", "-1e300", "-5", "253402300800"] {
            let text = try String(contentsOf: file, encoding: .utf8)
            let edited = text.replacingOccurrences(of: #""expiresAt":[-0-9.e]+"#, with: "\"expiresAt\":\(bad)", options: .regularExpression)
            #expect(edited.contains("\"expiresAt\":\(bad)"))
            try Data(edited.utf8).write(to: file)
            let error = try await #require(throws: AuthError.self) { try await store.load(key) }
            #expect(error.code == .storageFailure)
            #expect(error.message.contains("Cannot read session file \(file.path)"))
            #expect(error.message.contains("date out of range"))
        }
    }

    @Test func aSessionOfAnotherKeyInsideTheFileIsRefused() async throws {
        let root = try TemporaryDirectory("mismatch")
        defer { root.remove() }
        let store = try FileSessionStore(directory: root.url)
        try await store.save(StorageFixtures.session(key), for: key, expectedVersion: nil)
        let file = store.fileURL(for: key)
        let text = try String(contentsOf: file, encoding: .utf8)
        // The envelope still names auth0/default; the session inside claims firebase.
        let edited = text.replacingOccurrences(of: #""providerID":"auth0""#, with: #""providerID":"firebase""#)
        #expect(edited != text)
        try Data(edited.utf8).write(to: file)
        let error = try await #require(throws: AuthError.self) { try await store.load(key) }
        #expect(error.code == .storageFailure)
        #expect(error.message.contains("another key"))
    }

    @Test func aSessionWithAnOutOfRangeDateIsNotWritten() async throws {
        let root = try TemporaryDirectory("write-range")
        defer { root.remove() }
        let store = try FileSessionStore(directory: root.url)
        let bad = StorageFixtures.session(key, expiresAt: Date(timeIntervalSince1970: 1e300))
        let error = try await #require(throws: AuthError.self) { try await store.save(bad, for: key, expectedVersion: nil) }
        #expect(error.code == .storageFailure)
        #expect(try entries(root.url).filter { !$0.hasSuffix(".lock") }.isEmpty)
    }

    // MARK: Killed saves

    /// Writes what a save of `session` at `version` would have written to the pending file, as a
    /// process killed between its write and its rename leaves it.
    private func plantPending(_ store: FileSessionStore, _ session: Session, version: UInt64, in root: TemporaryDirectory) async throws {
        let scratch = try TemporaryDirectory("scratch")
        defer { scratch.remove() }
        // A second store in another directory produces the exact bytes for that version.
        let other = try FileSessionStore(directory: scratch.url)
        var expected: UInt64? = nil
        for _ in 0..<version {
            expected = try await other.save(session, for: key, expectedVersion: expected).version
        }
        try FileManager.default.copyItem(at: other.fileURL(for: key), to: pendingURL(store, key))
    }

    @Test func aCompleteNewerPendingFileIsRolledForwardOnLoad() async throws {
        let root = try TemporaryDirectory("rollforward")
        defer { root.remove() }
        let store = try FileSessionStore(directory: root.url)
        try await store.save(StorageFixtures.session(key, refresh: "old-refresh"), for: key, expectedVersion: nil)
        try await plantPending(store, StorageFixtures.session(key, refresh: "rotated-refresh"), version: 2, in: root)

        let loaded = try #require(try await store.load(key))
        #expect(loaded.refreshToken?.revealed() == "rotated-refresh")
        #expect(loaded.version == 2)
        #expect(!FileManager.default.fileExists(atPath: pendingURL(store, key).path))
        #expect(try await store.load(key)?.version == 2)
    }

    @Test func aPendingFileIsRolledForwardBeforeACompareAndSwap() async throws {
        let root = try TemporaryDirectory("rollforward-save")
        defer { root.remove() }
        let store = try FileSessionStore(directory: root.url)
        try await store.save(StorageFixtures.session(key, refresh: "old-refresh"), for: key, expectedVersion: nil)
        try await plantPending(store, StorageFixtures.session(key, refresh: "rotated-refresh"), version: 2, in: root)
        // A writer that read version 1 before the kill loses its compare-and-swap to the rolled-forward file.
        let error = try await #require(throws: AuthError.self) {
            try await store.save(StorageFixtures.session(key, refresh: "late"), for: key, expectedVersion: 1)
        }
        #expect(error.code == .conflict)
        #expect(try await store.load(key)?.refreshToken?.revealed() == "rotated-refresh")
        #expect(!FileManager.default.fileExists(atPath: pendingURL(store, key).path))
    }

    @Test func aTornOrStalePendingFileIsDeletedAndTheStoredSessionKept() async throws {
        let root = try TemporaryDirectory("torn")
        defer { root.remove() }
        let store = try FileSessionStore(directory: root.url)
        var saved = try await store.save(StorageFixtures.session(key, refresh: "r1"), for: key, expectedVersion: nil)
        saved = try await store.save(StorageFixtures.session(key, refresh: "r2"), for: key, expectedVersion: saved.version)

        // Torn: the first half of a complete file.
        try await plantPending(store, StorageFixtures.session(key, refresh: "r3"), version: 3, in: root)
        let full = try Data(contentsOf: pendingURL(store, key))
        try full.prefix(full.count / 2).write(to: pendingURL(store, key))
        #expect(try await store.load(key)?.refreshToken?.revealed() == "r2")
        #expect(!FileManager.default.fileExists(atPath: pendingURL(store, key).path))

        // Stale: a complete file of an older version.
        try await plantPending(store, StorageFixtures.session(key, refresh: "r1-again"), version: 1, in: root)
        #expect(try await store.load(key)?.refreshToken?.revealed() == "r2")
        #expect(!FileManager.default.fileExists(atPath: pendingURL(store, key).path))
    }

    @Test func aPendingFileWithoutASessionFileIsRolledForward() async throws {
        let root = try TemporaryDirectory("first-save")
        defer { root.remove() }
        let store = try FileSessionStore(directory: root.url)
        try await plantPending(store, StorageFixtures.session(key), version: 1, in: root)
        #expect(try await store.load(key)?.version == 1)
        #expect(try entries(root.url).filter { !$0.hasPrefix(".") } == ["session.auth0.default.json"])
    }

    @Test func savesAndRemovesLeaveNoPendingFile() async throws {
        let root = try TemporaryDirectory("no-pending")
        defer { root.remove() }
        let store = try FileSessionStore(directory: root.url)
        let first = try await store.save(StorageFixtures.session(key), for: key, expectedVersion: nil)
        _ = try await store.save(StorageFixtures.session(key), for: key, expectedVersion: first.version)
        // A refused compare-and-swap deletes what it wrote early.
        await #expect(throws: AuthError.self) {
            try await store.save(StorageFixtures.session(key), for: key, expectedVersion: first.version)
        }
        #expect(!FileManager.default.fileExists(atPath: pendingURL(store, key).path))
        // A remove deletes a pending file too (it holds tokens).
        try await plantPending(store, StorageFixtures.session(key), version: 9, in: root)
        try await store.remove(key)
        #expect(try entries(root.url).filter { !$0.hasSuffix(".lock") } == [".by-user"])
        // The removed session's marker is gone; only its (empty) directory stays.
        let index = root.url.appendingPathComponent(".by-user")
        for user in try entries(index) { #expect(try entries(index.appendingPathComponent(user)).isEmpty, "\(user)") }
    }

    @Test func keysDeletesAbandonedTemporaryFilesOfEarlierBuildsOnly() async throws {
        let root = try TemporaryDirectory("legacy-tmp")
        defer { root.remove() }
        let store = try FileSessionStore(directory: root.url)
        try await store.save(StorageFixtures.session(key), for: key, expectedVersion: nil)
        let old = root.url.appendingPathComponent(".session.auth0.default.tmp-0011223344556677")
        let fresh = root.url.appendingPathComponent(".session.auth0.default.tmp-8899aabbccddeeff")
        try Data("{}".utf8).write(to: old)
        try Data("{}".utf8).write(to: fresh)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: old.path)
        #expect(try await store.keys() == [key])
        #expect(!FileManager.default.fileExists(atPath: old.path))
        #expect(FileManager.default.fileExists(atPath: fresh.path))
    }
}
