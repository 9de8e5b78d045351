import Dispatch
import Foundation
import Logging

/// A ``SessionStore`` that keeps one file per session in a directory, safe to share between
/// processes, optionally encrypted at rest with AES-256-GCM.
///
/// - **Layout.** The directory is created with mode 0700 (an existing one with looser permissions is
///   tightened to 0700); session files have mode 0600. File names are escaped forms of the key
///   (`auth0/default` → `session.auth0.default.json`), reversible for any provider and account
///   string; see `SessionFileName` for the scheme. Hidden `.lock`, `.refresh` and `.pending` files
///   next to them are the store's own.
/// - **Atomic, durable writes.** A save writes the key's pending file `.<name>.pending` in the same
///   directory, `fsync`s it, renames it over the session file and `fsync`s the directory. Readers —
///   in this process or another — see the old file or the new one, never a torn one, and take no lock.
/// - **Killed writers.** A refresh's new tokens exist nowhere but in the process that received them,
///   and with rotating refresh tokens the old ones may already be revoked. So a conditional save
///   writes the new session to the pending file first — before the compare-and-swap read and any
///   `fsync`; a file is in the kernel's page cache the moment `write` returns, whatever then happens
///   to the process. The next load, save or remove of the key that finds a pending file takes the
///   write lock (so no live writer owns it) and rolls it forward when it is complete and newer than
///   the session file, or deletes it (a torn or stale pending file still holds tokens). The window
///   left is between the reply arriving and that first write (RELIABILITY.md). Temporary files of
///   earlier builds (`.<name>.tmp-…`) are deleted by ``keys()`` once ten minutes old.
/// - **Compare-and-swap across processes.** A save or remove holds an exclusive `flock` on the key's
///   write lock file (`.<name>.lock`) while it reads the current version and writes, so two
///   processes can never both win a compare-and-swap. Within a process, writers of one key queue on
///   an in-process lock first.
/// - **Refresh lock.** ``makeRefreshLock()`` returns a ``FileRefreshLock`` on the same directory:
///   a different lock file (`.<name>.refresh`), since a save happens while the refresh lock is held.
/// - **Encryption.** With `encryptionKey`, every file is sealed with AES-256-GCM, the file's name
///   being authenticated data; see `SessionFileFormat`. A store with a key refuses plain files
///   (someone could plant one), and a store without a key cannot read sealed ones.
/// - **Hostile files.** Files are opened without following symbolic links and with `O_NONBLOCK`,
///   must be regular files of at most 1 MiB, and must hold the session of the key their name
///   encodes (envelope and session alike); anything else is a ``AuthErrorCode/storageFailure``
///   naming the file, never a hang, a crash or another key's session.
/// - **Errors.** A file that cannot be read (corrupted, truncated, wrong format, wrong key) makes
///   ``load(_:)`` throw ``AuthErrorCode/storageFailure`` naming the file and the reason — never
///   a crash and never "no session". ``keys()`` still lists such a key, so it can be removed or
///   overwritten by a new sign-in (an unconditional save replaces an unreadable file; a conditional
///   one throws the read error, since the expected version cannot be checked).
/// - **Threads.** Writes and removals (`fsync`, which can take milliseconds) and directory listings
///   run on the store's own dispatch queue, and lock waits poll with a non-blocking `flock` and a
///   short back-off, so no call blocks Swift's cooperative thread pool on the disk. A load reads one
///   small file (no `fsync`, no lock) on the caller's thread, as opening the lock file does: moving
///   it to the queue and back would cost more than the read itself.
///
/// Long keys whose escaped name would exceed file-system limits are stored under a SHA-256 name;
/// their key is read back from the file, so an unreadable file with such a name is left out of
/// ``keys()`` (with a warning in the log).
///
/// **The index by user** (``UserIndexedSessionStore``): saving a session with a user id first makes
/// an empty marker file, `ref.` and the session file's name, in `.by-user/<SHA-256 of provider, NUL, user id>/`
/// (made once per key and user, made durable before the session is), so a crash can leave a stale
/// marker but never hide a session; ``keys(provider:userID:)`` lists the markers, reads each session
/// to confirm its provider and user, and deletes the markers that no longer match. A removal deletes
/// the removed session's marker (the directories stay: another writer may be about to use them).
public final class FileSessionStore: UserIndexedSessionStore, HeldFactorStoring {
    /// The directory holding the session files.
    public let directory: URL

    private let directoryPath: String
    private let format: SessionFileFormat
    /// AuthHub-held factors, in `.factors/` of this directory, sealed with this store's key.
    public let heldFactorStore: any HeldFactorStore
    private let logger: Logger
    private let writers = InProcessRefreshLock()
    private let refreshLock: FileRefreshLock
    private let queue = DispatchQueue(label: "authhub.file-session-store", qos: .userInitiated, attributes: .concurrent)

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
        self.heldFactorStore = try FileHeldFactorStore(directory: self.directory.appendingPathComponent(".factors"), encryptionKey: encryptionKey)
    }

    /// The path of the file that holds `key`'s session (it may not exist).
    public func fileURL(for key: SessionKey) -> URL {
        URL(fileURLWithPath: filePath(SessionFileName(key).fileName))
    }

    // MARK: SessionStore

    /// The session stored under `key`, or nil when its file does not exist. Takes no lock: files are
    /// replaced atomically. Reads on the caller's thread (see "Threads" above). When a pending file of
    /// a killed save is present, it is first rolled forward or deleted under the write lock (see
    /// "Killed writers" above).
    /// - Throws: ``AuthErrorCode/storageFailure`` naming the file when it exists but cannot be read.
    public func load(_ key: SessionKey) async throws -> Session? {
        let name = SessionFileName(key)
        let path = filePath(name.fileName)
        if POSIXFile.exists(filePath(name.pendingName)) {
            try await withWriteLock(key, name) { try await self.io { self.recoverPending(key, name) } }
        }
        guard let data = try POSIXFile.contents(of: path) else { return nil }
        return try format.decode(data, path: path, name: name, expecting: key)
    }

    /// Stores `session` under `key` if `expectedVersion` holds (see ``SessionStore``), holding the key's
    /// write lock across processes; returns the stored session with its new version.
    ///
    /// A conditional save (a refresh's) writes the new session to the pending file before anything
    /// else — before the compare-and-swap read and before any `fsync` — so that once this process has
    /// it, a kill cannot lose it (see "Killed writers" above).
    /// - Throws: ``AuthErrorCode/conflict`` when the expectation fails; ``AuthErrorCode/storageFailure``
    ///   on I/O errors, or for a conditional save over a file that cannot be read.
    @discardableResult
    public func save(_ session: Session, for key: SessionKey, expectedVersion: UInt64?) async throws -> Session {
        let name = SessionFileName(key)
        let path = filePath(name.fileName)
        let pendingPath = filePath(name.pendingName)
        let directoryPath = directoryPath
        let format = format
        let logger = logger
        return try await withWriteLock(key, name) {
            if POSIXFile.exists(pendingPath) { try await self.io { self.recoverPending(key, name) } }
            let writtenEarly = expectedVersion != nil
            if let expectedVersion {
                do {
                    let stored = try session.storedCopy(for: key, currentVersion: expectedVersion, expectedVersion: expectedVersion)
                    try POSIXFile.writeFile(try format.encode(stored, for: key, name: name), to: pendingPath)
                } catch {
                    try? POSIXFile.remove(pendingPath)
                    throw error
                }
            }
            return try await self.io {
                do {
                    var found: UInt64 = 0
                    do {
                        if let data = try POSIXFile.contents(of: path) {
                            found = try format.storedVersion(data, path: path, name: name, expecting: key)
                        }
                    } catch {
                        // A file that cannot be read (damaged, a link, a FIFO, too large) is replaced by an
                        // unconditional save — a new sign-in — but fails a compare-and-swap.
                        guard expectedVersion == nil else { throw error }
                        logger.warning("replacing an unreadable session file", metadata: ["key": "\(key)"])
                    }
                    let stored = try session.storedCopy(for: key, currentVersion: found, expectedVersion: expectedVersion)
                    let encoded = writtenEarly ? nil : try format.encode(stored, for: key, name: name)
                    if let userID = stored.userID { try self.writeUserMarker(key.provider, userID, name) }
                    if let encoded { try POSIXFile.writeFile(encoded, to: pendingPath) }
                    try POSIXFile.commit(pendingPath, to: path, directory: directoryPath)
                    logger.debug("session saved", metadata: ["key": "\(key)", "version": "\(stored.version)"])
                    return stored
                } catch {
                    // The pending file holds tokens; a failed or refused save leaves none behind.
                    try? POSIXFile.remove(pendingPath)
                    throw error
                }
            }
        }
    }

    /// Deletes `key`'s session file (and a pending file of a killed save) under the write lock; a
    /// missing file is not an error. The hidden lock files stay (deleting a lock file another process
    /// waits on would break the lock).
    public func remove(_ key: SessionKey) async throws {
        let name = SessionFileName(key)
        let path = filePath(name.fileName)
        let pendingPath = filePath(name.pendingName)
        let directoryPath = directoryPath
        let format = format
        let logger = logger
        try await withWriteLock(key, name) {
            try await self.io {
                let pending = POSIXFile.exists(pendingPath)
                guard pending || POSIXFile.exists(path) else { return }
                // The user's marker goes with the session (one that cannot be read leaves its marker
                // to the next look-up by user, which drops it).
                let userID = (try? POSIXFile.contents(of: path)).flatMap { $0 }
                    .flatMap { try? format.decode($0, path: path, name: name, expecting: key) }?.userID
                try POSIXFile.remove(pendingPath)
                try POSIXFile.remove(path)
                if let userID { try? POSIXFile.remove(self.userDirectoryPath(key.provider, userID) + "/" + Self.markerPrefix + name.fileName) }
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
            let now = Date()
            for entry in try POSIXFile.entries(of: directoryPath) {
                if entry.hasPrefix("."), entry.contains(SessionFileName.legacyTemporaryInfix) {
                    Self.deleteIfAbandoned(directoryPath + "/" + entry, now: now, logger: logger)
                    continue
                }
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

    /// The keys of `provider`'s sessions whose user id is `userID`, sorted: the user's markers, each
    /// confirmed by reading its session (a marker whose session is gone or now another user's is
    /// deleted; one whose session cannot be read is kept and left out, with a warning).
    public func keys(provider: String, userID: String) async throws -> [SessionKey] {
        let userDirectory = userDirectoryPath(provider, userID)
        let directoryPath = directoryPath
        let format = format
        let logger = logger
        return try await io {
            guard POSIXFile.exists(userDirectory) else { return [] }
            var keys: [SessionKey] = []
            for entry in try POSIXFile.entries(of: userDirectory) {
                guard entry.hasPrefix(Self.markerPrefix), let (name, parsed) = SessionFileName.parse(fileName: String(entry.dropFirst(Self.markerPrefix.count))) else { continue }
                let path = directoryPath + "/" + name.fileName
                let marker = userDirectory + "/" + entry
                let contents: Data?
                do {
                    contents = try POSIXFile.contents(of: path)
                } catch {
                    logger.warning("a session indexed by user cannot be read", metadata: ["path": "\(path)"])
                    continue
                }
                guard let data = contents else {
                    try? POSIXFile.remove(marker)
                    continue
                }
                guard let key = parsed ?? SessionFileFormat.storedKey(in: data),
                      let session = try? format.decode(data, path: path, name: name, expecting: key) else {
                    logger.warning("a session indexed by user cannot be read", metadata: ["path": "\(path)"])
                    continue
                }
                if key.provider == provider, session.userID == userID {
                    keys.append(key)
                } else {
                    try? POSIXFile.remove(marker)
                }
            }
            return keys.sorted()
        }
    }

    /// A marker's name is this and its session file's name (so that nothing looking for session
    /// files by name, `session.*`, finds a marker).
    static let markerPrefix = "ref."

    /// `.by-user/<hex SHA-256 of provider, NUL, user id>` (a user id may hold any character).
    private func userDirectoryPath(_ provider: String, _ userID: String) -> String {
        filePath(".by-user/" + SessionUserReference.hex(provider: provider, userID: userID))
    }

    /// Makes the user's marker of the session file `name` when it is missing, durable before the
    /// session is written.
    private func writeUserMarker(_ provider: String, _ userID: String, _ name: SessionFileName) throws {
        let userDirectory = userDirectoryPath(provider, userID)
        let marker = userDirectory + "/" + Self.markerPrefix + name.fileName
        guard !POSIXFile.exists(marker) else { return }
        try POSIXFile.ensurePrivateDirectory(userDirectory)
        try POSIXFile.writeFile(Data(), to: marker)
        try POSIXFile.syncDirectory(userDirectory)
        try POSIXFile.syncDirectory(filePath(".by-user"))
    }

    /// The store's ``FileRefreshLock`` (one per store, so managers in this process queue in-process
    /// before contending for the file lock).
    public func makeRefreshLock() -> any RefreshLock { refreshLock }

    // MARK: Killed writers

    /// How old a temporary file of an earlier build must be before ``keys()`` deletes it: ten minutes,
    /// far longer than any save takes, so no live writer can still own it.
    static let abandonedTemporaryAge: TimeInterval = 600

    /// Rolls forward or deletes the pending file of `key`. Runs under the key's write lock, so no live
    /// writer owns the file: its writer was killed between writing it and renaming it.
    ///
    /// A pending file that decodes completely for `key` and is newer than the session file (or there
    /// is no readable session file) holds tokens the provider already issued — possibly having revoked
    /// the stored ones — so it becomes the session file; anything else (torn, older, another key) is
    /// deleted, since it holds tokens too. Never throws: a failure leaves the files as they were for
    /// the next attempt, and the log says why.
    private func recoverPending(_ key: SessionKey, _ name: SessionFileName) {
        let pendingPath = filePath(name.pendingName)
        let path = filePath(name.fileName)
        do {
            guard let data = try? POSIXFile.contents(of: pendingPath),
                  let pending = try? format.decode(data, path: pendingPath, name: name, expecting: key) else {
                try POSIXFile.remove(pendingPath)
                try POSIXFile.syncDirectory(directoryPath)
                logger.warning("deleted an incomplete session file left by a killed save", metadata: ["key": "\(key)"])
                return
            }
            var current: UInt64?
            if let stored = try? POSIXFile.contents(of: path) {
                current = try? format.storedVersion(stored, path: path, name: name, expecting: key)
            }
            if let current, current >= pending.version {
                try POSIXFile.remove(pendingPath)
                try POSIXFile.syncDirectory(directoryPath)
                logger.info("deleted a stale session file left by a killed save", metadata: ["key": "\(key)"])
                return
            }
            try POSIXFile.commit(pendingPath, to: path, directory: directoryPath)
            logger.warning("recovered the session a killed save had written", metadata: [
                "key": "\(key)", "version": "\(pending.version)",
            ])
        } catch {
            logger.error("cannot recover a killed save's session file", metadata: ["key": "\(key)", "error": "\(error)"])
        }
    }

    /// Deletes a temporary file of an earlier build once it is older than ``abandonedTemporaryAge``.
    private static func deleteIfAbandoned(_ path: String, now: Date, logger: Logger) {
        guard let modified = POSIXFile.modificationTime(path), now.timeIntervalSince(modified) > abandonedTemporaryAge else { return }
        if (try? POSIXFile.remove(path)) != nil {
            logger.info("deleted an abandoned temporary session file", metadata: ["path": "\(path)"])
        }
    }

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
