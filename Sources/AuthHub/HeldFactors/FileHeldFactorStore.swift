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
    private let format: HeldFactorRecordFormat
    private let writers = InProcessRefreshLock()

    /// A record is a few factors; anything larger is not one.
    static let maximumFileBytes = HeldFactorRecordFormat.maximumBytes

    /// Opens the store in `directory` (created, mode 0700, by the first save).
    /// - Parameter encryptionKey: 32 random bytes as base64 or base64url to seal every record with;
    ///   nil for plain JSON.
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` for a key that is not 32 bytes of base64;
    public init(directory: URL, encryptionKey: Secret<String>? = nil) throws {
        format = try HeldFactorRecordFormat(encryptionKey: encryptionKey)
        self.directory = directory.standardizedFileURL
        directoryPath = self.directory.path
    }

    /// Whether records are sealed.
    public var isEncrypted: Bool { format.isEncrypted }

    public func load(_ owner: HeldFactorOwner) async throws -> HeldFactorRecord? {
        let name = owner.reference + ".json"
        guard let data = try POSIXFile.contents(of: path(name), maxBytes: Self.maximumFileBytes) else { return nil }
        return try format.decode(data, name: name, owner: owner, location: path(name))
    }

    @discardableResult
    public func save(_ record: HeldFactorRecord, expectedVersion: UInt64?) async throws -> HeldFactorRecord {
        let name = record.owner.reference + ".json"
        let lockKey = SessionKey(provider: "held-factors", account: name)
        return try await writers.withLock(lockKey) {
            try POSIXFile.ensurePrivateDirectory(self.directoryPath)
            return try await FileLock.withLock(path: self.path("." + record.owner.reference + ".lock")) {
                let found = try POSIXFile.contents(of: self.path(name), maxBytes: Self.maximumFileBytes)
                    .map { try self.format.decode($0, name: name, owner: record.owner, location: self.path(name)).version }
                let stored = try record.storedCopy(found: found, expectedVersion: expectedVersion)
                guard stored.version <= 1 << 53 else {
                    throw AuthError(.storageFailure, message: "The factors of \(record.owner) have a version beyond 2^53.")
                }
                try POSIXFile.writeAtomically(try self.format.encode(stored, name: name), to: self.path(name),
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

}
