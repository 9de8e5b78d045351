import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The few POSIX file operations the file store needs, with durable, atomic writes.
///
/// Every function is synchronous and may block on the disk (`fsync`); ``FileSessionStore`` calls
/// them on its own dispatch queue, never on Swift's cooperative thread pool. Failures throw
/// ``AuthErrorCode/storageFailure`` naming the path and the system error; file contents never
/// appear in a message.
package enum POSIXFile {
    /// `strerror` text with the numeric code, e.g. `Permission denied (errno 13)`.
    package static func errorText(_ code: Int32 = errno) -> String {
        "\(String(cString: strerror(code))) (errno \(code))"
    }

    /// Creates `path` (and missing parents) with mode 0700, or tightens an existing directory whose
    /// mode lets group or others in to 0700.
    package static func ensurePrivateDirectory(_ path: String) throws {
        var info = stat()
        if stat(path, &info) != 0 {
            guard errno == ENOENT else {
                throw AuthError(.storageFailure, message: "Cannot inspect directory \(path): \(errorText()).")
            }
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
            } catch {
                throw AuthError(.storageFailure, message: "Cannot create directory \(path).",
                                underlying: error)
            }
            // The umask may have removed bits; make the mode exactly 0700.
            guard chmod(path, 0o700) == 0, stat(path, &info) == 0 else {
                throw AuthError(.storageFailure, message: "Cannot set the mode of directory \(path): \(errorText()).")
            }
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw AuthError(.storageFailure, message: "The path \(path) exists and is not a directory.")
        }
        if (info.st_mode & 0o777) != 0o700 {
            guard chmod(path, 0o700) == 0 else {
                throw AuthError(.storageFailure,
                                message: "Cannot restrict directory \(path) to mode 0700: \(errorText()).")
            }
        }
    }

    /// The largest file ``contents(of:maxBytes:followSymlinks:)`` reads by default: 1 MiB, far above a
    /// session file (a few KiB) and small enough that a hostile file cannot exhaust memory.
    package static let defaultMaxBytes = 1 << 20
    /// The ``AuthError/details`` key saying why ``contents(of:maxBytes:followSymlinks:)`` refused a
    /// file: `symlink`, `notRegularFile` or `tooLarge`.
    package static let refusalKey = "refused"

    /// The whole contents of the regular file at `path`, or nil when there is no such file.
    ///
    /// Outside files are hostile: the file is opened with `O_NONBLOCK` (a FIFO or device never
    /// hangs the open or the read) and, unless `followSymlinks`, `O_NOFOLLOW` (a symbolic link is
    /// refused, so a session file cannot be pointed at `/dev/zero` or another user's file); it must be
    /// a regular file, and no more than `maxBytes` are ever read — a larger file is refused.
    /// - Throws: ``AuthErrorCode/storageFailure`` naming `path` and the reason.
    package static func contents(of path: String, maxBytes: Int = defaultMaxBytes, followSymlinks: Bool = false) throws -> Data? {
        var flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK
        if !followSymlinks { flags |= O_NOFOLLOW }
        let fd = open(path, flags)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT { return nil }
            if code == ELOOP {
                throw AuthError(.storageFailure, message: "Refusing to read \(path): it is a symbolic link.",
                                details: [refusalKey: "symlink"])
            }
            throw AuthError(.storageFailure, message: "Cannot open file \(path): \(errorText(code)).")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw AuthError(.storageFailure, message: "Cannot inspect file \(path): \(errorText()).")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw AuthError(.storageFailure, message: "Refusing to read \(path): it is not a regular file.",
                            details: [refusalKey: "notRegularFile"])
        }
        let limit = max(0, maxBytes)
        guard info.st_size >= 0, Int64(info.st_size) <= Int64(limit) else {
            throw AuthError(.storageFailure, message: "Refusing to read \(path): it is larger than \(limit) bytes.",
                            details: [refusalKey: "tooLarge"])
        }
        var data = Data()
        data.reserveCapacity(Int(info.st_size))
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                // The file may have grown since fstat: the cap holds for what is read, not what was seen.
                guard data.count + count <= limit else {
                    throw AuthError(.storageFailure, message: "Refusing to read \(path): it is larger than \(limit) bytes.",
                            details: [refusalKey: "tooLarge"])
                }
                data.append(contentsOf: buffer[0..<count])
            } else if count == 0 {
                return data
            } else if errno != EINTR {
                throw AuthError(.storageFailure, message: "Cannot read file \(path): \(errorText()).")
            }
        }
    }

    /// Replaces the file at `path` with `data` so that readers see either the old or the new
    /// contents, never a mix, and the new contents survive a crash once this returns.
    ///
    /// Writes `tempPath` (see ``writeFile(_:to:)``; in the same directory so `rename` is atomic), then
    /// ``commit(_:to:directory:)``s it. On failure the temporary file is deleted.
    package static func writeAtomically(_ data: Data, to path: String, tempPath: String, directory: String) throws {
        do {
            try writeFile(data, to: tempPath)
            try commit(tempPath, to: path, directory: directory)
        } catch {
            unlink(tempPath)
            throw error
        }
    }

    /// Writes `data` to `path` (created with mode 0600 or truncated; a symbolic link there is refused)
    /// without `fsync`: once this returns the bytes are in the kernel's page cache, so they survive the
    /// process being killed, though not a power loss until ``commit(_:to:directory:)``.
    package static func writeFile(_ data: Data, to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw AuthError(.storageFailure, message: "Cannot create file \(path): \(errorText()).")
        }
        defer { close(fd) }
        guard fchmod(fd, 0o600) == 0 else {
            throw AuthError(.storageFailure, message: "Cannot set the mode of \(path): \(errorText()).")
        }
        try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < raw.count {
                let written = write(fd, raw.baseAddress.map { $0 + offset }, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw AuthError(.storageFailure, message: "Cannot write \(path): \(errorText()).")
                }
                offset += written
            }
        }
    }

    /// Makes the written file `tempPath` durable and moves it over `path`: `fsync`s it, renames it and
    /// `fsync`s the directory so the rename is durable too.
    package static func commit(_ tempPath: String, to path: String, directory: String) throws {
        let fd = open(tempPath, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            throw AuthError(.storageFailure, message: "Cannot open \(tempPath): \(errorText()).")
        }
        let synced = fsync(fd) == 0
        let code = errno
        close(fd)
        guard synced else {
            throw AuthError(.storageFailure, message: "Cannot flush \(tempPath) to disk: \(errorText(code)).")
        }
        guard rename(tempPath, path) == 0 else {
            throw AuthError(.storageFailure, message: "Cannot move \(tempPath) to \(path): \(errorText()).")
        }
        try syncDirectory(directory)
    }

    /// Whether anything (a file, a link, a directory) exists at `path`; one `lstat`, no read.
    package static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// The modification time of the entry at `path` (not following a link), or nil when there is none.
    package static func modificationTime(_ path: String) -> Date? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        #if canImport(Darwin)
        return Date(timeIntervalSince1970: TimeInterval(info.st_mtimespec.tv_sec))
        #else
        return Date(timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec))
        #endif
    }

    /// Deletes the file at `path`; a missing file is not an error.
    package static func remove(_ path: String) throws {
        if unlink(path) != 0, errno != ENOENT {
            throw AuthError(.storageFailure, message: "Cannot delete file \(path): \(errorText()).")
        }
    }

    /// `fsync`s a directory, making renames and deletions in it durable.
    package static func syncDirectory(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else {
            throw AuthError(.storageFailure, message: "Cannot open directory \(path): \(errorText()).")
        }
        defer { close(fd) }
        // Some file systems refuse fsync on directories (EINVAL); the rename is still atomic there.
        if fsync(fd) != 0, errno != EINVAL {
            throw AuthError(.storageFailure, message: "Cannot flush directory \(path): \(errorText()).")
        }
    }

    /// The names of the entries of a directory.
    package static func entries(of path: String) throws -> [String] {
        do {
            return try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw AuthError(.storageFailure, message: "Cannot list directory \(path).", underlying: error)
        }
    }
}
