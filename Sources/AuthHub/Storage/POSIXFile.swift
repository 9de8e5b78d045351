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

    /// The whole contents of the file at `path`, or nil when there is no such file.
    package static func contents(of path: String) throws -> Data? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw AuthError(.storageFailure, message: "Cannot open file \(path): \(errorText()).")
        }
        defer { close(fd) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
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
    /// Writes a temporary file `tempPath` (mode 0600, in the same directory so `rename` is atomic),
    /// `fsync`s it, renames it over `path` and `fsync`s the directory so the rename is durable.
    package static func writeAtomically(_ data: Data, to path: String, tempPath: String, directory: String) throws {
        let fd = open(tempPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw AuthError(.storageFailure, message: "Cannot create temporary file \(tempPath): \(errorText()).")
        }
        var committed = false
        defer {
            if !committed { unlink(tempPath) }
        }
        do {
            defer { close(fd) }
            guard fchmod(fd, 0o600) == 0 else {
                throw AuthError(.storageFailure, message: "Cannot set the mode of \(tempPath): \(errorText()).")
            }
            try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
                var offset = 0
                while offset < raw.count {
                    let written = write(fd, raw.baseAddress.map { $0 + offset }, raw.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        throw AuthError(.storageFailure, message: "Cannot write \(tempPath): \(errorText()).")
                    }
                    offset += written
                }
            }
            guard fsync(fd) == 0 else {
                throw AuthError(.storageFailure, message: "Cannot flush \(tempPath) to disk: \(errorText()).")
            }
        }
        guard rename(tempPath, path) == 0 else {
            throw AuthError(.storageFailure, message: "Cannot move \(tempPath) to \(path): \(errorText()).")
        }
        committed = true
        try syncDirectory(directory)
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
