import AuthHub
import Foundation
#if canImport(Glibc)
import Glibc
#endif

enum FileStoreBenchmarks {
    /// Writes `data` to the new file `fd` and `fsync`s it, then closes it.
    static func writeAndSync(_ fd: Int32, _ data: Data) throws {
        let written = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        defer { close(fd) }
        guard written == data.count, fsync(fd) == 0 else { throw BenchFailure("write/fsync: errno \(errno)") }
    }

    /// write(2) `data` to `temp`, fsync it, rename it over `path`, optionally fsync the directory, then read `path` back.
    static func plainWriteFsyncRenameRead(_ data: Data, path: String, temp: String, directory: String, syncDirectory: Bool) throws {
        let fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw BenchFailure("open \(temp): errno \(errno)") }
        try writeAndSync(fd, data)
        guard rename(temp, path) == 0 else { throw BenchFailure("rename: errno \(errno)") }
        if syncDirectory {
            let dfd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if dfd >= 0 {
                _ = fsync(dfd)
                close(dfd)
            }
        }
        let rfd = open(path, O_RDONLY | O_CLOEXEC)
        guard rfd >= 0 else { throw BenchFailure("open \(path): errno \(errno)") }
        defer { close(rfd) }
        var buffer = [UInt8](repeating: 0, count: data.count + 1)
        let read = buffer.withUnsafeMutableBytes { Glibc.read(rfd, $0.baseAddress, $0.count) }
        guard read == data.count else { throw BenchFailure("read back \(read) of \(data.count) bytes") }
    }

    /// The store's own system calls with none of its Swift work: `flock` on a lock file, read the
    /// current file (the compare-and-swap), a new temporary file (`O_EXCL`, `fchmod` 0600), write,
    /// `fsync`, rename, `fsync` of the directory, unlock, then read `path` back (the load).
    static func storeProtocol(_ data: Data, path: String, lockPath: String, directory: String, counter: inout UInt64) throws {
        let lock = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lock >= 0, flock(lock, LOCK_EX | LOCK_NB) == 0 else { throw BenchFailure("lock: errno \(errno)") }
        defer {
            _ = flock(lock, LOCK_UN)
            close(lock)
        }
        var buffer = [UInt8](repeating: 0, count: data.count + 1)
        func readBack() throws -> Int {
            let rfd = open(path, O_RDONLY | O_CLOEXEC)
            guard rfd >= 0 else { throw BenchFailure("open \(path): errno \(errno)") }
            defer { close(rfd) }
            return buffer.withUnsafeMutableBytes { Glibc.read(rfd, $0.baseAddress, $0.count) }
        }
        _ = try readBack()
        counter += 1
        let temp = directory + "/.tmp-\(counter)"
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0, fchmod(fd, 0o600) == 0 else { throw BenchFailure("open \(temp): errno \(errno)") }
        try writeAndSync(fd, data)
        guard rename(temp, path) == 0 else { throw BenchFailure("rename: errno \(errno)") }
        let dfd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dfd >= 0 {
            _ = fsync(dfd)
            close(dfd)
        }
        guard try readBack() == data.count else { throw BenchFailure("read back") }
    }

    static func run(_ options: BenchOptions) async throws -> [Row] {
        let names = ["filestore.save+load", "filestore.save+load.vs-dirsync", "filestore.save+load.vs-protocol", "filestore.protocol.vs-plain"]
        guard names.contains(where: options.wants) else { return [] }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("authhub-bench-store-\(getpid())")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let store = try FileSessionStore(directory: root.appendingPathComponent("store"))
        let key = SessionKey(provider: "auth0", account: "default")
        let session = SessionBenchmarks.validSession(provider: "auth0")
        _ = try await store.save(session, for: key, expectedVersion: nil)
        let bytes = try Data(contentsOf: store.fileURL(for: key))
        let plainDirectory = root.appendingPathComponent("plain").path
        try FileManager.default.createDirectory(atPath: plainDirectory, withIntermediateDirectories: true)
        let plainPath = plainDirectory + "/session.json"
        let plainTemp = plainDirectory + "/.session.json.tmp"

        let ops = options.batch(100)
        var rows: [Row] = []
        var counter: UInt64 = 0
        let protocolPath = plainDirectory + "/session.auth0.default.json"
        let protocolLock = plainDirectory + "/.session.auth0.default.lock"
        try bytes.write(to: URL(fileURLWithPath: protocolPath))
        let variants: [(name: String, label: String, plain: () throws -> Void)] = [
            ("filestore.save+load", "write+fsync+rename+read", {
                try plainWriteFsyncRenameRead(bytes, path: plainPath, temp: plainTemp, directory: plainDirectory, syncDirectory: false)
            }),
            ("filestore.save+load.vs-dirsync", "write+fsync+rename+fsync(dir)+read", {
                try plainWriteFsyncRenameRead(bytes, path: plainPath, temp: plainTemp, directory: plainDirectory, syncDirectory: true)
            }),
            ("filestore.save+load.vs-protocol", "the store's system calls alone (flock, read, O_EXCL temp, write, fsync, rename, fsync(dir), read)", {
                try storeProtocol(bytes, path: protocolPath, lockPath: protocolLock, directory: plainDirectory, counter: &counter)
            }),
        ]
        for variant in variants where options.wants(variant.name) {
            let result = try await paired(samples: options.samples, baseline: {
                try Clock.perOpThrowing(ops) {
                    for _ in 0..<ops { try variant.plain() }
                }
            }, subject: {
                try await Clock.perOp(ops) {
                    for _ in 0..<ops {
                        _ = try await store.save(session, for: key, expectedVersion: nil)
                        guard try await store.load(key) != nil else { throw BenchFailure("the saved session did not load") }
                    }
                }
            })
            let allocOps = options.batch(20)
            let allocs = try await Allocations.perOp(allocOps) {
                for _ in 0..<allocOps {
                    _ = try await store.save(session, for: key, expectedVersion: nil)
                    _ = try await store.load(key)
                }
            }
            let baseAllocs = try await Allocations.perOp(allocOps) {
                for _ in 0..<allocOps { try variant.plain() }
            }
            rows.append(timeRow(variant.name, result, unit: "µs/op", baseline: variant.label,
                                targetRatio: 1.5, allocs: allocs, baselineAllocs: baseAllocs,
                                note: "\(bytes.count)-byte session file (plain JSON, no encryption)"))
        }
        // The floor: what the store's guarantees cost in system calls alone (cross-process lock,
        // compare-and-swap read, exclusive temporary file, directory fsync) against the plain baseline.
        if options.wants("filestore.protocol.vs-plain") {
            let result = try await paired(samples: options.samples, baseline: {
                try Clock.perOpThrowing(ops) { for _ in 0..<ops { try variants[0].plain() } }
            }, subject: {
                try Clock.perOpThrowing(ops) { for _ in 0..<ops { try variants[2].plain() } }
            })
            var row = timeRow("filestore.protocol.vs-plain", result, unit: "µs/op", baseline: variants[0].label, targetRatio: .infinity,
                              note: "the store's system calls without any of its code: the floor of filestore.save+load")
            row.target = "report"
            row.verdict = "info"
            rows.append(row)
        }
        return rows
    }
}

extension Clock {
    static func perOpThrowing(_ ops: Int, _ body: () throws -> Void) throws -> Double {
        let start = monotonicNanoseconds()
        try body()
        return Double(monotonicNanoseconds() - start) / Double(ops)
    }
}
