import AuthHub
import Foundation
import Testing

@Suite struct FileSessionStoreTests {
    let key = SessionKey(provider: "auth0", account: "default")

    // MARK: Layout and permissions

    @Test func createsPrivateDirectoryAndFiles() async throws {
        let root = try TemporaryDirectory("modes")
        defer { root.remove() }
        let directory = root.child("nested/sessions")
        let store = try FileSessionStore(directory: directory)
        #expect(try StorageFixtures.mode(of: directory) == 0o700)

        try await store.save(StorageFixtures.session(key), for: key, expectedVersion: nil)
        let file = store.fileURL(for: key)
        #expect(file.lastPathComponent == "session.auth0.default.json")
        #expect(try StorageFixtures.mode(of: file) == 0o600)
        // Lock files are private too; no temporary file is left behind.
        let entries = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(entries == [".by-user", ".session.auth0.default.lock", "session.auth0.default.json"])
        #expect(try StorageFixtures.mode(of: directory.appendingPathComponent(".by-user")) == 0o700, "the index by user is private too")
        #expect(try StorageFixtures.mode(of: directory.appendingPathComponent(".session.auth0.default.lock")) == 0o600)
    }

    @Test func tightensALooseExistingDirectory() throws {
        let root = try TemporaryDirectory("loose")
        defer { root.remove() }
        let directory = root.child("sessions")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o755])
        #expect(try StorageFixtures.mode(of: directory) == 0o755)
        _ = try FileSessionStore(directory: directory)
        #expect(try StorageFixtures.mode(of: directory) == 0o700)
    }

    @Test func refusesAPathThatIsAFile() throws {
        let root = try TemporaryDirectory("not-a-dir")
        defer { root.remove() }
        let file = root.url.appendingPathComponent("sessions")
        try Data("x".utf8).write(to: file)
        let error = try #require(throws: AuthError.self) { try FileSessionStore(directory: file) }
        #expect(error.code == .storageFailure)
        #expect(error.message.contains(file.path))
    }

    @Test func namesAreEscapedAndLongKeysHashed() async throws {
        let root = try TemporaryDirectory("names")
        defer { root.remove() }
        let store = try FileSessionStore(directory: root.url)
        let slash = SessionKey(provider: "My IdP/..", account: "ä")
        #expect(store.fileURL(for: slash).lastPathComponent == "session.~4dy~20~49d~50~2f~2e~2e.~c3~a4.json")
        let long = SessionKey(provider: String(repeating: "p", count: 300), account: "a")
        let longName = store.fileURL(for: long).lastPathComponent
        #expect(longName.hasPrefix("session-sha256.") && longName.utf8.count < 100)

        try await store.save(StorageFixtures.session(slash), for: slash, expectedVersion: nil)
        try await store.save(StorageFixtures.session(long), for: long, expectedVersion: nil)
        #expect(try await store.keys() == [slash, long].sorted())
        #expect(try await store.load(long)?.version == 1)
        // Foreign files in the directory are not sessions.
        try Data("{}".utf8).write(to: root.url.appendingPathComponent("notes.json"))
        try Data("{}".utf8).write(to: root.url.appendingPathComponent("session.UPPER.case.json"))
        #expect(try await store.keys() == [slash, long].sorted())
    }

    // MARK: Persistence

    @Test func dataSurvivesANewStoreInstance() async throws {
        let root = try TemporaryDirectory("persist")
        defer { root.remove() }
        let encryption = StorageFixtures.randomKey()
        let first = try FileSessionStore(directory: root.url, encryptionKey: encryption)
        try await first.save(StorageFixtures.session(key), for: key, expectedVersion: nil)
        try await first.save(StorageFixtures.session(key, access: "access-2"), for: key, expectedVersion: 1)

        let second = try FileSessionStore(directory: root.url, encryptionKey: encryption)
        let loaded = try #require(try await second.load(key))
        #expect(loaded.version == 2)
        #expect(loaded.accessToken.revealed() == "access-2")
        #expect(loaded.refreshToken?.revealed() == "refresh-token-BBB")
        #expect(loaded.secretExtras["sk"]?.revealed() == "secret-extra-DDD")
        #expect(try await second.keys() == [key])
        // The second instance continues the version sequence and the first sees its write.
        try await second.save(StorageFixtures.session(key, access: "access-3"), for: key, expectedVersion: 2)
        #expect(try await first.load(key)?.version == 3)
    }

    @Test func compareAndSwapHoldsAcrossStoreInstances() async throws {
        // Two instances have separate in-process locks, like two processes: only the flock'd write
        // lock can keep them from both winning.
        let root = try TemporaryDirectory("cas")
        defer { root.remove() }
        let a = try FileSessionStore(directory: root.url)
        let b = try FileSessionStore(directory: root.url)
        try await a.save(StorageFixtures.session(key), for: key, expectedVersion: nil)
        let results = await withTaskGroup(of: Result<Session, AuthError>.self) { group in
            for i in 0..<20 {
                let store = i.isMultiple(of: 2) ? a : b
                group.addTask {
                    do {
                        return .success(try await store.save(StorageFixtures.session(key, access: "writer-\(i)"), for: key, expectedVersion: 1))
                    } catch {
                        return .failure(AuthError.wrap(error))
                    }
                }
            }
            var all: [Result<Session, AuthError>] = []
            for await r in group { all.append(r) }
            return all
        }
        let winners = results.compactMap { try? $0.get() }
        #expect(winners.count == 1)
        #expect(results.filter { if case .failure(let e) = $0 { e.code == .conflict } else { false } }.count == 19)
        let stored = try #require(try await b.load(key))
        #expect(stored.version == 2)
        #expect(stored.accessToken == winners.first?.accessToken)
    }

    // MARK: Encryption

    @Test func encryptedFileHidesTokensAndFieldNames() async throws {
        let root = try TemporaryDirectory("sealed")
        defer { root.remove() }
        let store = try FileSessionStore(directory: root.url, encryptionKey: StorageFixtures.randomKey())
        try await store.save(StorageFixtures.session(key), for: key, expectedVersion: nil)
        let raw = try String(decoding: Data(contentsOf: store.fileURL(for: key)), as: UTF8.self)
        for leaked in ["access-token-AAA", "refresh-token-BBB", "id-token-CCC", "secret-extra-DDD", "accessToken",
                       "refreshToken", "secretExtras", "user@example.com"] {
            #expect(!raw.contains(leaked), "encrypted file contains \(leaked)")
        }
        let envelope = try #require(try JSONValue.parse(Data(raw.utf8)).objectValue)
        #expect(envelope["format"] == "authhub.session")
        #expect(envelope["version"] == 1)
        #expect(envelope["cipher"] == "AES-256-GCM")
        #expect(envelope["sealed"]?.stringValue.flatMap { Data(base64Encoded: $0) } != nil)

        // The same session in a plain store does contain them: the check above can fail.
        let plain = try FileSessionStore(directory: root.child("plain"))
        try await plain.save(StorageFixtures.session(key), for: key, expectedVersion: nil)
        let plainRaw = try String(decoding: Data(contentsOf: plain.fileURL(for: key)), as: UTF8.self)
        #expect(plainRaw.contains("access-token-AAA") && plainRaw.contains("accessToken"))
    }

    @Test func wrongKeyIsAStorageFailureNamingTheFile() async throws {
        let root = try TemporaryDirectory("wrong-key")
        defer { root.remove() }
        let writer = try FileSessionStore(directory: root.url, encryptionKey: StorageFixtures.randomKey())
        try await writer.save(StorageFixtures.session(key), for: key, expectedVersion: nil)

        let reader = try FileSessionStore(directory: root.url, encryptionKey: StorageFixtures.randomKey())
        let error = try await #require(throws: AuthError.self) { try await reader.load(key) }
        #expect(error.code == .storageFailure)
        #expect(error.message.contains(writer.fileURL(for: key).path))
        #expect(error.message.contains("cannot decrypt: wrong key or tampered file"))
        #expect(!error.message.contains("access-token-AAA"))
        // The key is still listed, so it can be removed or replaced.
        #expect(try await reader.keys() == [key])
        // A conditional save cannot check the version of an unreadable file…
        let conditional = try await #require(throws: AuthError.self) {
            try await reader.save(StorageFixtures.session(key), for: key, expectedVersion: 1)
        }
        #expect(conditional.code == .storageFailure)
        // …but a new sign-in (unconditional save) replaces it.
        let replaced = try await reader.save(StorageFixtures.session(key, access: "fresh"), for: key, expectedVersion: nil)
        #expect(replaced.version == 1)
        #expect(try await reader.load(key)?.accessToken.revealed() == "fresh")
    }

    @Test func plainAndSealedFilesAreNotMixedUp() async throws {
        let root = try TemporaryDirectory("mixed")
        defer { root.remove() }
        let plain = try FileSessionStore(directory: root.url)
        let sealed = try FileSessionStore(directory: root.url, encryptionKey: StorageFixtures.randomKey())
        let other = SessionKey(provider: "auth0", account: "sealed")
        try await plain.save(StorageFixtures.session(key), for: key, expectedVersion: nil)
        try await sealed.save(StorageFixtures.session(other), for: other, expectedVersion: nil)

        let planted = try await #require(throws: AuthError.self) { try await sealed.load(key) }
        #expect(planted.code == .storageFailure)
        #expect(planted.message.contains("not encrypted but the store requires encryption"))
        let noKey = try await #require(throws: AuthError.self) { try await plain.load(other) }
        #expect(noKey.code == .storageFailure)
        #expect(noKey.message.contains("encrypted but the store has no encryption key"))
    }

    @Test func sealedFileRenamedToAnotherKeyFails() async throws {
        let root = try TemporaryDirectory("renamed")
        defer { root.remove() }
        let store = try FileSessionStore(directory: root.url, encryptionKey: StorageFixtures.randomKey())
        let victim = SessionKey(provider: "auth0", account: "victim")
        try await store.save(StorageFixtures.session(key), for: key, expectedVersion: nil)
        let source = try Data(contentsOf: store.fileURL(for: key))

        // Copied as is: the plaintext key field gives it away.
        try source.write(to: store.fileURL(for: victim))
        let copied = try await #require(throws: AuthError.self) { try await store.load(victim) }
        #expect(copied.code == .storageFailure)
        #expect(copied.message.contains(store.fileURL(for: victim).path))

        // With the key field rewritten too: the authenticated file name makes decryption fail.
        var envelope = try #require(try JSONValue.parse(source).objectValue)
        envelope["key"] = ["provider": "auth0", "account": "victim"]
        try JSONEncoder().encode(JSONValue.object(envelope)).write(to: store.fileURL(for: victim))
        let forged = try await #require(throws: AuthError.self) { try await store.load(victim) }
        #expect(forged.code == .storageFailure)
        #expect(forged.message.contains("cannot decrypt: wrong key or tampered file"))

        // The original still opens.
        #expect(try await store.load(key)?.accessToken.revealed() == "access-token-AAA")
    }

    @Test func badKeysAreInvalidConfiguration() throws {
        let root = try TemporaryDirectory("bad-key")
        defer { root.remove() }
        let short = Data(repeating: 7, count: 16).base64EncodedString()
        let cases = [short, "not base64 at all!", "", Data(repeating: 1, count: 33).base64EncodedString()]
        for bad in cases {
            let error = try #require(throws: AuthError.self) {
                try FileSessionStore(directory: root.url, encryptionKey: Secret(bad))
            }
            #expect(error.code == .invalidConfiguration)
            if !bad.isEmpty { #expect(!error.message.contains(bad), "the key leaked into: \(error.message)") }
        }
        let error = try #require(throws: AuthError.self) { try FileSessionStore(directory: root.url, encryptionKey: Secret(short)) }
        #expect(error.message.contains("32 bytes") && error.message.contains("16 bytes"))
    }

    @Test func acceptsBase64URLKeys() async throws {
        let root = try TemporaryDirectory("b64url")
        defer { root.remove() }
        let bytes = Data((0..<32).map { UInt8(0xf8 + $0 % 8) })  // base64 full of '+' and '/'
        let standard = bytes.base64EncodedString()
        #expect(standard.contains("+") || standard.contains("/"))
        let url = standard.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        let writer = try FileSessionStore(directory: root.url, encryptionKey: Secret(standard))
        try await writer.save(StorageFixtures.session(key), for: key, expectedVersion: nil)
        let reader = try FileSessionStore(directory: root.url, encryptionKey: Secret(url))
        #expect(try await reader.load(key)?.accessToken.revealed() == "access-token-AAA")
    }

    // MARK: Damaged files

    @Test(arguments: [false, true])
    func damagedFilesAreStorageFailuresNamingTheFile(encrypted: Bool) async throws {
        let root = try TemporaryDirectory("damaged")
        defer { root.remove() }
        let store = try FileSessionStore(directory: root.url, encryptionKey: encrypted ? StorageFixtures.randomKey() : nil)
        try await store.save(StorageFixtures.session(key), for: key, expectedVersion: nil)
        let file = store.fileURL(for: key)
        let valid = try Data(contentsOf: file)
        var tampered = try #require(try JSONValue.parse(valid).objectValue)
        if encrypted {
            let sealedText = try #require(tampered["sealed"]?.stringValue)
            var sealed = try #require(Data(base64Encoded: sealedText))
            sealed[sealed.count - 20] ^= 0x01
            tampered["sealed"] = .string(sealed.base64EncodedString())
        } else {
            tampered["session"] = ["providerID": "auth0"]
        }
        let damaged: [(String, Data, String)] = [
            ("truncated", valid.prefix(valid.count / 2), "not valid JSON"),
            ("garbage", Data([0x00, 0xff, 0x13, 0x37, 0x42]), "not valid JSON"),
            ("empty", Data(), "empty"),
            ("not an envelope", Data(#"{"hello":"world"}"#.utf8), "not an AuthHub session file"),
            ("array", Data("[1,2,3]".utf8), "not an AuthHub session file"),
            ("future version", Data(#"{"format":"authhub.session","version":2}"#.utf8), "unsupported format version 2"),
            ("tampered", try JSONEncoder().encode(JSONValue.object(tampered)),
             encrypted ? "cannot decrypt: wrong key or tampered file" : "malformed"),
        ]
        for (label, bytes, reason) in damaged {
            try bytes.write(to: file)
            let error = try await #require(throws: AuthError.self, "\(label)") { try await store.load(key) }
            #expect(error.code == .storageFailure, "\(label)")
            #expect(error.message.contains(file.path), "\(label): \(error.message)")
            #expect(error.message.contains(reason), "\(label): \(error.message)")
            #expect(!error.message.contains("access-token-AAA"), "\(label)")
            #expect(try await store.keys() == [key], "\(label)")
        }
    }

    @Test func removeDeletesTheFileButKeepsLocks() async throws {
        let root = try TemporaryDirectory("remove")
        defer { root.remove() }
        let store = try FileSessionStore(directory: root.url)
        try await store.save(StorageFixtures.session(key), for: key, expectedVersion: nil)
        try await store.remove(key)
        #expect(!FileManager.default.fileExists(atPath: store.fileURL(for: key).path))
        #expect(try await store.keys() == [])
        #expect(try await store.load(key) == nil)
    }
}
