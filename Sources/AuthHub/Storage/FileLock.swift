import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive `flock(2)` on a lock file, held from ``acquire(path:)`` until ``release()``.
///
/// `flock` locks belong to an open file description, so two holders conflict whether they live in
/// different processes or in one process with two descriptors of the same file. That is what makes
/// the file store's compare-and-swap and refresh lock safe across processes — and why the write lock
/// and the refresh lock must be different files: a save runs while the refresh lock is held.
///
/// Acquisition never blocks a thread: it tries `LOCK_EX | LOCK_NB` and, while another holder has the
/// lock, suspends the task with an exponential back-off (1 ms doubling up to 25 ms). Swift's
/// cooperative pool is never stuck in a blocking `flock`, and a cancelled task stops waiting.
///
/// Lock files are never deleted: unlinking a lock file while another process waits on its
/// descriptor would let a third process lock a new file of the same name, and two holders would
/// both believe they hold the lock.
package final class FileLock: Sendable {
    /// The path of the lock file.
    package let path: String
    private let descriptor: Mutex<Int32?>

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = Mutex(descriptor)
    }

    deinit {
        release()
    }

    /// Opens (creating with mode 0600 when missing) the lock file at `path` and takes an exclusive
    /// lock on it, waiting as long as another holder keeps it.
    /// - Throws: ``AuthErrorCode/storageFailure`` when the file cannot be opened or locked;
    ///   `CancellationError` when the task is cancelled while waiting.
    package static func acquire(path: String) async throws -> FileLock {
        // O_NOFOLLOW: a lock file replaced by a link is refused rather than followed somewhere else.
        let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw AuthError(.storageFailure, message: "Cannot open lock file \(path): \(POSIXFile.errorText()).")
        }
        var delayMilliseconds: UInt64 = 1
        while true {
            if flock(fd, LOCK_EX | LOCK_NB) == 0 {
                return FileLock(path: path, descriptor: fd)
            }
            let code = errno
            if code != EWOULDBLOCK && code != EAGAIN && code != EINTR {
                close(fd)
                throw AuthError(.storageFailure,
                                message: "Cannot lock \(path): \(POSIXFile.errorText(code)).")
            }
            do {
                try await Task.sleep(nanoseconds: delayMilliseconds * 1_000_000)
            } catch {
                close(fd)
                throw error
            }
            delayMilliseconds = min(delayMilliseconds * 2, 25)
        }
    }

    /// Releases the lock and closes the file. Calling it again does nothing.
    package func release() {
        guard let fd = descriptor.withLock({ d -> Int32? in defer { d = nil }; return d }) else { return }
        _ = flock(fd, LOCK_UN)
        close(fd)
    }

    /// Runs `body` while holding the lock on `path`; the lock is released however `body` ends
    /// (returns, throws, or is cancelled).
    package static func withLock<T>(path: String, _ body: () async throws -> T) async throws -> T {
        let lock = try await acquire(path: path)
        defer { lock.release() }
        return try await body()
    }
}
