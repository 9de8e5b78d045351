import Dispatch
import Foundation
import Logging

/// A ``SessionStore`` that keeps one file per session in a directory, safe to share between
/// processes, optionally encrypted at rest with AES-256-GCM.
///
/// - **Layout.** The directory is created with mode 0700 (an existing one with looser permissions is
///   tightened to 0700); session files have mode 0600. File names are escaped forms of the key
///   (`auth0/default` → `session.auth0.default.json`), reversible for any provider and account
///   string; see `SessionFileName` for the scheme. Hidden `.lock`, `.refresh` and `.tmp-` files
///   next to them are the store's own.
/// - **Atomic, durable writes.** A save writes a temporary file in the same directory, `fsync`s it,
///   renames it over the session file and `fsync`s the directory. Readers — in this process or
///   another — see the old file or the new one, never a torn one, and take no lock.
/// - **Compare-and-swap across processes.** A save or remove holds an exclusive `flock` on the key's
///   write lock file (`.<name>.lock`) while it reads the current version and writes, so two
///   processes can never both win a compare-and-swap. Within a process, writers of one key queue on
///   an in-process lock first.
/// - **Refresh lock.** ``makeRefreshLock()`` returns a ``FileRefreshLock`` on the same directory:
///   a different lock file (`.<name>.refresh`), since a save happens while the refresh lock is held.
/// - **Encryption.** With `encryptionKey`, every file is sealed with AES-256-GCM, the file's name
///   being authenticated data; see `SessionFileFormat`. A store with a key refuses plain files
///   (someone could plant one), and a store without a key cannot read sealed ones.
/// - **Errors.** A file that cannot be read (corrupted, truncated, wrong format, wrong key) makes
///   ``load(_:)`` throw ``AuthErrorCode/storageFailure`` naming the file and the reason — never
///   a crash and never "no session". ``keys()`` still lists such a key, so it can be removed or
///   overwritten by a new sign-in (an unconditional save replaces an unreadable file; a conditional
///   one throws the read error, since the expected version cannot be checked).
/// - **Threads.** Writes and removals (`fsync`, which can take milliseconds) and directory listings
///   run on the store's own dispatch queue, and lock waits poll with a non-blocking `flock` and a
///   short back-off, so no call blocks Swift's cooperative thread pool on the disk. A load reads one
///   small file (no `fsync`, no lock) on the caller's thread, as opening the lock file does: moving
///   it to the queue and back costs two thread wake-ups, ~50 µs on a 2-core virtual machine, several
///   times the read itself (BENCHMARKS.md, `filestore.save+load`).
///
/// Long keys whose escaped name would exceed file-system limits are stored under a SHA-256 name;
/// their key is read back from the file, so an unreadable file with such a name is left out of
/// ``keys()`` (with a warning in the log).
public final class FileSessionStore: SessionStore {
    /// The directory holding the session files.
    public let directory: URL

    private let directoryPath: String
    private let format: SessionFileFormat
    private let logger: Logger
    private let writers = InProcessRefreshLock()
    private let refreshLock: FileRefreshLock
    private let queue = DispatchQueue(label: "authhub.file-session-store", qos: .userInitiated, attributes: .concurrent)
    private let random: any RandomSource = SystemRandom()

    /// Opens (creating when missing) a store in `directory`.
    /// - Parameters:
    ///   - directory: where the session files live; created with mode 0700, or tightened to 0700.
    ///   - encryptionKey: 32 random bytes as base64 (base64url accepted) to seal every file with
    ///     AES-256-GCM; nil stores plain JSON (still mode 0600).
    ///   - logger: receives debug lines about saves and removals (keys and versions, never tokens).
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` for an encryption key that is not 32 bytes of
    ///   base64; ``AuthErrorCode/storageFailure`` when the directory cannot be created or secured.
    public init(directory: URL, encryptionKey: Secret<String>? = nil, logger: Logger = Logger(label: "authhub.store")) throws {
        self.format = try SessionFileFormat(encryptionKey: encryptionKey)
        self.directory = directory.standardizedFileURL
        self.directoryPath = self.directory.path
        var logger = logger
        logger[metadataKey: "store"] = .string(self.directoryPath)
        self.logger = logger
        try POSIXFile.ensurePrivateDirectory(directoryPath)
        self.refreshLock = FileRefreshLock(directory: self.directory)
    }

    /// The path of the file that holds `key`'s session (it may not exist).
    public func fileURL(for key: SessionKey) -> URL {
        URL(fileURLWithPath: filePath(SessionFileName(key).fileName))
    }

    // MARK: SessionStore

    /// The session stored under `key`, or nil when its file does not exist. Takes no lock: files are
    /// replaced atomically. Reads on the caller's thread (see "Threads" above).
    /// - Throws: ``AuthErrorCode/storageFailure`` naming the file when it exists but cannot be read.
    public func load(_ key: SessionKey) async throws -> Session? {
        let name = SessionFileName(key)
        let path = filePath(name.fileName)
        guard let data = try POSIXFile.contents(of: path) else { return nil }
        return try format.decode(data, path: path, name: name, expecting: key)
    }

    /// Stores `session` under `key` if `expectedVersion` holds (see ``SessionStore``), holding the key's
    /// write lock across processes; returns the stored session with its new version.
    /// - Throws: ``AuthErrorCode/conflict`` when the expectation fails; ``AuthErrorCode/storageFailure``
    ///   on I/O errors, or for a conditional save over a file that cannot be read.
    @discardableResult
    public func save(_ session: Session, for key: SessionKey, expectedVersion: UInt64?) async throws -> Session {
        let name = SessionFileName(key)
        let path = filePath(name.fileName)
        let tempPath = filePath(name.temporaryName(Hex.lowercase(random.bytes(8))))
        let directoryPath = directoryPath
        let format = format
        let logger = logger
        return try await withWriteLock(key, name) {
            try await self.io {
                var found: UInt64 = 0
                if let data = try POSIXFile.contents(of: path) {
                    do {
                        found = try format.storedVersion(data, path: path, name: name, expecting: key)
                    } catch {
                        guard expectedVersion == nil else { throw error }
                        logger.warning("replacing an unreadable session file", metadata: ["key": "\(key)"])
                    }
                }
                let stored = try session.storedCopy(for: key, currentVersion: found, expectedVersion: expectedVersion)
                let data = try format.encode(stored, for: key, name: name)
                try POSIXFile.writeAtomically(data, to: path, tempPath: tempPath, directory: directoryPath)
                logger.debug("session saved", metadata: ["key": "\(key)", "version": "\(stored.version)"])
                return stored
            }
        }
    }

    /// Deletes `key`'s session file under the write lock; a missing file is not an error. The hidden
    /// lock files stay (deleting a lock file another process waits on would break the lock).
    public func remove(_ key: SessionKey) async throws {
        let name = SessionFileName(key)
        let path = filePath(name.fileName)
        let directoryPath = directoryPath
        let logger = logger
        try await withWriteLock(key, name) {
            try await self.io {
                guard try POSIXFile.contents(of: path) != nil else { return }
                try POSIXFile.remove(path)
                try POSIXFile.syncDirectory(directoryPath)
                logger.debug("session removed", metadata: ["key": "\(key)"])
            }
        }
    }

    /// Every key with a session file, sorted — including keys whose file cannot be read, so they can
    /// be removed or replaced.
    public func keys() async throws -> [SessionKey] {
        let directoryPath = directoryPath
        let logger = logger
        return try await io {
            var keys = Set<SessionKey>()
            for entry in try POSIXFile.entries(of: directoryPath) {
                guard let (name, key) = SessionFileName.parse(fileName: entry) else { continue }
                if let key {
                    keys.insert(key)
                    continue
                }
                // A hashed name: the key is recorded in the file.
                let path = directoryPath + "/" + entry
                if let data = try? POSIXFile.contents(of: path), let stored = SessionFileFormat.storedKey(in: data),
                   SessionFileName(stored) == name {
                    keys.insert(stored)
                } else {
                    logger.warning("skipping an unreadable session file whose name does not encode its key",
                                   metadata: ["path": "\(path)"])
                }
            }
            return keys.sorted()
        }
    }

    /// The store's ``FileRefreshLock`` (one per store, so managers in this process queue in-process
    /// before contending for the file lock).
    public func makeRefreshLock() -> any RefreshLock { refreshLock }

    // MARK: Helpers

    private func filePath(_ fileName: String) -> String { directoryPath + "/" + fileName }

    /// Runs `body` holding the key's write lock: in-process FIFO first, then the `flock`.
    private func withWriteLock<T: Sendable>(_ key: SessionKey, _ name: SessionFileName,
                                            _ body: @Sendable () async throws -> T) async throws -> T {
        let lockPath = filePath(name.writeLockName)
        return try await writers.withLock(key) {
            try await FileLock.withLock(path: lockPath, body)
        }
    }

    /// Runs blocking file work on the store's queue and resumes the caller with its result.
    private func io<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }
}
