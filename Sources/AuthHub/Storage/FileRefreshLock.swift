import Foundation

/// A ``RefreshLock`` that serialises refreshes of one session key among every process on the
/// machine that uses the same session directory.
///
/// For each key it holds an exclusive `flock` on the hidden file `.<name>.refresh` in the directory
/// (see ``FileSessionStore``) for the duration of the body. Tasks of one process first queue on an
/// in-process FIFO lock, so only one of them at a time contends for the file lock, and waiting costs
/// no polling. The file lock is released however the body ends — it returns, throws or is cancelled
/// — and by the kernel if the process dies, so a crashed refresher never blocks the others.
///
/// The refresh lock is a different file from the store's write lock: the refresh saves the renewed
/// session while holding it, and two `flock`s on one file conflict even within one process.
public final class FileRefreshLock: RefreshLock {
    /// The session directory the lock files live in.
    public let directory: URL

    private let directoryPath: String
    private let inProcess = InProcessRefreshLock()

    /// A lock over the session files in `directory` (which must exist; ``FileSessionStore`` creates it).
    public init(directory: URL) {
        self.directory = directory.standardizedFileURL
        self.directoryPath = self.directory.path
    }

    /// Runs `body` while holding the refresh lock for `key` in this process and on the file system.
    /// - Throws: whatever `body` throws; ``AuthErrorCode/storageFailure`` when the lock file cannot be
    ///   opened or locked; `CancellationError` when cancelled while waiting for another process.
    public func withLock<T: Sendable>(_ key: SessionKey, _ body: @Sendable () async throws -> T) async throws -> T {
        let lockPath = directoryPath + "/" + SessionFileName(key).refreshLockName
        return try await inProcess.withLock(key) {
            try await FileLock.withLock(path: lockPath, body)
        }
    }
}
