import AuthHub
@testable import AuthHubFactors
import AuthHubTesting
import Foundation
import Testing

@Suite struct PasskeyCredentialStoreTests {
    private static func credential(_ id: UInt8, rp: String = "example.com", at seconds: Double = 0) -> PasskeyCredential {
        PasskeyCredential(id: [id, id], relyingPartyID: rp, user: PasskeyUser(id: [id], name: "u\(id)", displayName: "U \(id)"),
                          privateKey: Secret(Array(repeating: id, count: 32)), createdAt: Date(timeIntervalSince1970: seconds))
    }

    private static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("authhub-passkeys-\(UUID().uuidString)")
    }

    private static let key = Secret(Data((0..<32).map { UInt8($0) }).base64EncodedString())

    @Test func inMemoryStoreConforms() async {
        let failures = await PasskeyCredentialStoreConformance { InMemoryPasskeyCredentialStore() }.run()
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test(arguments: [false, true])
    func fileStoreConforms(encrypted: Bool) async {
        let root = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let failures = await PasskeyCredentialStoreConformance {
            try FilePasskeyCredentialStore(directory: root.appendingPathComponent(UUID().uuidString),
                                           encryptionKey: encrypted ? Self.key : nil)
        }.run()
        #expect(failures.isEmpty, "\(failures)")
    }

    /// The suite is worth running only if it fails broken stores.
    @Test(arguments: [
        (BrokenPasskeyStore.Fault.racyCounter, "concurrentCountsNeverRepeat"),
        (.dropsPrivateKey, "roundTripKeepsEveryField"),
        (.appendsDuplicates, "saveReplacesByID"),
        (.silentUnknownCounter, "unknownCredentialCountIsNotFound"),
        (.unorderedLookup, "lookupByRPIDKeepsCreationOrder"),
    ])
    func conformanceCatchesBrokenStores(fault: BrokenPasskeyStore.Fault, check: String) async {
        let failures = await PasskeyCredentialStoreConformance { BrokenPasskeyStore(fault) }.run()
        #expect(failures.contains { $0.hasPrefix("[\(check)]") }, "\(failures)")
        #expect(!failures.joined().contains("privateKey: ["), "failures must not print keys")
        let clean = await PasskeyCredentialStoreConformance { BrokenPasskeyStore(nil) }.run()
        #expect(clean.isEmpty, "\(clean)")
    }

    @Test func fileStorePersistsPrivatelyAcrossInstances() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try FilePasskeyCredentialStore(directory: directory)
        try await first.save(Self.credential(5))
        let second = try FilePasskeyCredentialStore(directory: directory)
        #expect(try await second.credential(id: [5, 5])?.user.name == "u5")
        #expect(try await second.nextSignCount(for: [5, 5]) == 1)
        #expect(try await first.credential(id: [5, 5])?.signCount == 1)

        let attributes = try FileManager.default.attributesOfItem(atPath: first.fileURL.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let directoryAttributes = try FileManager.default.attributesOfItem(atPath: directory.path)
        #expect((directoryAttributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("tmp") }.isEmpty)
    }

    @Test func twoStoreInstancesIncrementWithoutLosingUpdates() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let a = try FilePasskeyCredentialStore(directory: directory)
        let b = try FilePasskeyCredentialStore(directory: directory)
        try await a.save(Self.credential(7))
        let counters = try await withThrowingTaskGroup(of: UInt32.self) { group in
            for index in 0..<30 {
                let store = index.isMultiple(of: 2) ? a : b
                group.addTask { try await store.nextSignCount(for: [7, 7]) }
            }
            return try await group.reduce(into: [UInt32]()) { $0.append($1) }
        }
        #expect(counters.sorted() == Array(1...30))
    }

    @Test func sealedFilesHideKeysAndNeedTheirKey() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let sealed = try FilePasskeyCredentialStore(directory: directory, encryptionKey: Self.key)
        try await sealed.save(Self.credential(4))
        let text = try String(contentsOf: sealed.fileURL, encoding: .utf8)
        #expect(!text.contains("example.com") && !text.contains(Base64URL.encode(Array(repeating: UInt8(4), count: 32))))

        let otherKey = Secret(Data(repeating: 9, count: 32).base64EncodedString())
        for store in [try FilePasskeyCredentialStore(directory: directory, encryptionKey: otherKey),
                      try FilePasskeyCredentialStore(directory: directory)] {
            let error = await #expect(throws: AuthError.self) { try await store.all() }
            #expect(error?.code == .storageFailure)
            // A write that cannot read the file does not replace it.
            await #expect(throws: AuthError.self) { try await store.save(Self.credential(8)) }
        }
        #expect(try await sealed.all().map(\.id) == [[4, 4]])

        let plainDirectory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: plainDirectory) }
        try await FilePasskeyCredentialStore(directory: plainDirectory).save(Self.credential(4))
        let strict = try FilePasskeyCredentialStore(directory: plainDirectory, encryptionKey: Self.key)
        #expect(await (#expect(throws: AuthError.self) { try await strict.all() })?.message.contains("not encrypted") == true)

        #expect((#expect(throws: AuthError.self) {
            try FilePasskeyCredentialStore(directory: directory, encryptionKey: Secret("too short"))
        })?.code == .invalidConfiguration)
    }

    @Test(arguments: ["", "{", "[]", #"{"format":"other","version":1,"credentials":[]}"#,
                      #"{"format":"authhub-passkeys","version":2,"credentials":[]}"#,
                      #"{"format":"authhub-passkeys","version":1,"credentials":[{"id":"!!"}]}"#])
    func damagedFilesFailLoudlyAndSurvive(contents: String) async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try FilePasskeyCredentialStore(directory: directory)
        try Data(contents.utf8).write(to: store.fileURL)
        let error = await #expect(throws: AuthError.self) { try await store.credentials(relyingPartyID: "example.com") }
        #expect(error?.code == .storageFailure)
        #expect(error?.message.contains(store.fileURL.path) == true)
        await #expect(throws: AuthError.self) { try await store.save(Self.credential(1)) }
        await #expect(throws: AuthError.self) { try await store.remove(id: [1, 1]) }
        #expect(try String(contentsOf: store.fileURL, encoding: .utf8) == contents)
    }

    @Test func softwareAuthenticatorWorksOverAFileStoreAcrossRestarts() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let rp = WebAuthnRelyingParty(id: PasskeyLab.rpID)
        let challenge = PasskeyLab.challenge()
        let before = try SoftwarePasskeyAuthenticator(store: try FilePasskeyCredentialStore(directory: directory, encryptionKey: Self.key))
        let record = try rp.verifyRegistration(try await before.makeCredential(PasskeyLab.registrationOptions(challenge)),
                                               challenge: challenge)
        let after = try SoftwarePasskeyAuthenticator(store: try FilePasskeyCredentialStore(directory: directory, encryptionKey: Self.key))
        let next = PasskeyLab.challenge()
        let assertion = try await after.getAssertion(PasskeyAssertionOptions(relyingPartyID: PasskeyLab.rpID, challenge: next))
        #expect(try rp.verifyAssertion(assertion, challenge: next, credential: record).signCount == 1)
    }
}

/// A store with one deliberate fault, to prove the conformance suite notices it.
actor BrokenPasskeyStore: PasskeyCredentialStore {
    enum Fault: Sendable { case racyCounter, dropsPrivateKey, appendsDuplicates, silentUnknownCounter, unorderedLookup }
    private let fault: Fault?
    private var list: [PasskeyCredential] = []

    init(_ fault: Fault?) { self.fault = fault }

    func save(_ credential: PasskeyCredential) {
        var credential = credential
        if fault == .dropsPrivateKey { credential.privateKey = Secret([]) }
        if fault != .appendsDuplicates, let index = list.firstIndex(where: { $0.id == credential.id }) {
            list[index] = credential
        } else {
            list.append(credential)
        }
    }

    func credential(id: [UInt8]) -> PasskeyCredential? { list.last { $0.id == id } }

    func credentials(relyingPartyID: String) -> [PasskeyCredential] {
        let found = list.filter { $0.relyingPartyID == relyingPartyID }
        return fault == .unorderedLookup ? found.reversed() : found
    }

    func nextSignCount(for id: [UInt8]) async throws -> UInt32 {
        guard let index = list.firstIndex(where: { $0.id == id }) else {
            if fault == .silentUnknownCounter { return 0 }
            throw AuthError(.passkeyNotFound)
        }
        let next = list[index].signCount + 1
        if fault == .racyCounter { await Task.yield() }  // read, suspend, write: lost updates
        list[index].signCount = next
        return next
    }

    func remove(id: [UInt8]) { list.removeAll { $0.id == id } }
    func all() -> [PasskeyCredential] { list }
}
