import Crypto
import Foundation

/// AuthHub-held factors in files: one per owner, `<directory>/<owner reference>.json`
/// (``HeldFactorOwner/reference``: neither id appears on disk), mode 0600 in a 0700 directory,
/// replaced atomically and `fsync`ed (as session files are), saved under an exclusive `flock` on a
/// lock file beside it so processes sharing the directory compare-and-swap correctly.
///
/// With an encryption key (the file session store passes its own: ``FileSessionStore`` keeps its
/// held factors in `.factors/` of its directory), each record is sealed with AES-256-GCM, the file's
/// name as authenticated data — a record copied over another owner's file does not open. Without one,
/// the record is plain JSON; its TOTP secrets and passkey keys are then as safe as the directory.
///
/// A file that cannot be read (damaged, too large, for another owner, sealed without a key) is
/// ``AuthErrorCode/storageFailure``: a second step is refused, never skipped.
public final class FileHeldFactorStore: HeldFactorStore {
    /// The directory holding the records.
    public let directory: URL
    private let directoryPath: String
    private let key: SymmetricKey?
    private let writers = InProcessRefreshLock()

    static let formatName = "authhub.held-factors"
    static let formatVersion = 1
    static let cipherName = "AES-256-GCM"
    /// A record is a few factors; anything larger is not one.
    static let maximumFileBytes = 256 * 1024

    /// Opens the store in `directory` (created, mode 0700, by the first save).
    /// - Parameter encryptionKey: 32 random bytes as base64 or base64url to seal every record with;
    ///   nil for plain JSON.
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` for a key that is not 32 bytes of base64;
    public init(directory: URL, encryptionKey: Secret<String>? = nil) throws {
        if let encryptionKey {
            guard let bytes = Base64URL.decode(encryptionKey.revealed().trimmingCharacters(in: .whitespacesAndNewlines)), bytes.count == 32 else {
                throw AuthError(.invalidConfiguration, message: "The held-factor store's encryption key must be 32 bytes encoded as base64.")
            }
            key = SymmetricKey(data: bytes)
        } else {
            key = nil
        }
        self.directory = directory.standardizedFileURL
        directoryPath = self.directory.path
    }

    /// Whether records are sealed.
    public var isEncrypted: Bool { key != nil }

    public func load(_ owner: HeldFactorOwner) async throws -> HeldFactorRecord? {
        let name = owner.reference + ".json"
        guard let data = try POSIXFile.contents(of: path(name), maxBytes: Self.maximumFileBytes) else { return nil }
        return try decode(data, name: name, owner: owner)
    }

    @discardableResult
    public func save(_ record: HeldFactorRecord, expectedVersion: UInt64?) async throws -> HeldFactorRecord {
        let name = record.owner.reference + ".json"
        let lockKey = SessionKey(provider: "held-factors", account: name)
        return try await writers.withLock(lockKey) {
            try POSIXFile.ensurePrivateDirectory(self.directoryPath)
            return try await FileLock.withLock(path: self.path("." + record.owner.reference + ".lock")) {
                let found = try POSIXFile.contents(of: self.path(name), maxBytes: Self.maximumFileBytes)
                    .map { try self.decode($0, name: name, owner: record.owner).version }
                let stored = try record.storedCopy(found: found, expectedVersion: expectedVersion)
                guard stored.version <= 1 << 53 else {
                    throw AuthError(.storageFailure, message: "The factors of \(record.owner) have a version beyond 2^53.")
                }
                try POSIXFile.writeAtomically(try self.encode(stored, name: name), to: self.path(name),
                                              tempPath: self.path("." + name + ".tmp"), directory: self.directoryPath)
                return stored
            }
        }
    }

    public func remove(_ owner: HeldFactorOwner) async throws {
        let name = owner.reference + ".json"
        try await writers.withLock(SessionKey(provider: "held-factors", account: name)) {
            guard POSIXFile.exists(self.path(name)) else { return }
            try await FileLock.withLock(path: self.path("." + owner.reference + ".lock")) {
                guard POSIXFile.exists(self.path(name)) else { return }
                try POSIXFile.remove(self.path(name))
                try POSIXFile.syncDirectory(self.directoryPath)
            }
        }
    }

    private func path(_ name: String) -> String { directoryPath + "/" + name }

    // MARK: Format

    private static func coders() -> (JSONEncoder, JSONDecoder) {
        let encoder = JSONEncoder(), decoder = JSONDecoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .secondsSince1970
        decoder.dateDecodingStrategy = .secondsSince1970
        return (encoder, decoder)
    }

    private func encode(_ record: HeldFactorRecord, name: String) throws -> Data {
        for factor in record.factors {
            for date in [factor.createdAt, factor.lastUsedAt].compactMap({ $0 }) where !SessionTimeLimits.isValidDate(date.timeIntervalSince1970) {
                throw AuthError(.storageFailure, message: "Cannot store the factors of \(record.owner): a date lies outside the years 1970–9999.")
            }
        }
        let body = try Self.coders().0.encode(record)
        var envelope: [String: JSONValue] = ["format": .string(Self.formatName), "version": .number(Double(Self.formatVersion)),
                                             "owner": .string(record.owner.reference)]
        if let key {
            guard let combined = try AES.GCM.seal(body, using: key, authenticating: Data(name.utf8)).combined else {
                throw AuthError(.storageFailure, message: "Cannot seal the factors of \(record.owner).")
            }
            envelope["cipher"] = .string(Self.cipherName)
            envelope["sealed"] = .string(combined.base64EncodedString())
        } else {
            envelope["record"] = .string(String(decoding: body, as: UTF8.self))
        }
        return try JSONValue.object(envelope).serialized()
    }

    private func decode(_ data: Data, name: String, owner: HeldFactorOwner) throws -> HeldFactorRecord {
        func failure(_ reason: String) -> AuthError {
            AuthError(.storageFailure, message: "Cannot read the held factors in \(path(name)): \(reason).", details: ["path": path(name)])
        }
        guard case .object(let envelope)? = try? JSONValue.parse(data) else { throw failure("not a JSON object") }
        guard envelope["format"] == .string(Self.formatName) else { throw failure("not a held-factor file") }
        guard envelope["version"] == .number(Double(Self.formatVersion)) else { throw failure("an unknown format version") }
        guard envelope["owner"] == .string(owner.reference) else { throw failure("it belongs to another owner") }
        let body: Data
        switch (envelope["sealed"], envelope["record"]) {
        case (.string(let sealed)?, nil):
            guard let key else { throw failure("it is sealed and this store has no encryption key") }
            guard envelope["cipher"] == .string(Self.cipherName), let combined = Data(base64Encoded: sealed),
                  let box = try? AES.GCM.SealedBox(combined: combined),
                  let opened = try? AES.GCM.open(box, using: key, authenticating: Data(name.utf8)) else {
                throw failure("it does not open with this store's key")
            }
            body = opened
        case (nil, .string(let plain)?):
            guard key == nil else { throw failure("it is not sealed and this store seals every record") }
            body = Data(plain.utf8)
        default:
            throw failure("it has neither a record nor a sealed one")
        }
        guard let record = try? Self.coders().1.decode(HeldFactorRecord.self, from: body) else { throw failure("the record is malformed") }
        guard record.owner == owner else { throw failure("it belongs to another owner") }
        guard record.factors.count <= HeldFactorRecord.maximumFactors, record.version <= 1 << 53,
              record.factors.allSatisfy({ factor in
                  [factor.createdAt, factor.lastUsedAt].compactMap({ $0 }).allSatisfy { SessionTimeLimits.isValidDate($0.timeIntervalSince1970) }
              }) else {
            throw failure("a number in it is out of range")
        }
        return record
    }
}
