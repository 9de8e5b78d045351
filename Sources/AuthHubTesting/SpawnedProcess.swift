import AuthHub
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Test support for this package's own tests (package access: not part of the public kit).

/// A child process started with `posix_spawn`, for tests that run executables (the `authhub` CLI,
/// the refresh worker, Python bridges, the browser scripts).
///
/// Why not Foundation's `Process`: on Linux, corelibs Foundation emulates "close every other file
/// descriptor in the child" by listing `/proc/self/fd`, and copies each directory entry's whole
/// 256-byte `d_name` out of glibc's `readdir` buffer, past the end of the last entry. Once the
/// process holds about 1,360 descriptors the last entry sits at the buffer's end and the copy can
/// fault — the test process, which runs hundreds of loopback servers at once, crashed so (SIGSEGV
/// in `Process.run`, seen in CI at 1,355 descriptors). Here the child's other descriptors are closed
/// by `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34+), and every pipe is created close-on-exec.
///
/// Reaping happens only under a lock (`waitpid` with `WNOHANG`), so a signal is never sent to a
/// process id that was already reaped and possibly reused.
package final class SpawnedProcess: Sendable {
    /// Where the child's standard input comes from.
    package enum Input: Sendable {
        /// A pipe; the parent writes to ``input``.
        case pipe
        case null
        /// A descriptor of this process (a pseudo-terminal, a file), duplicated into the child.
        case descriptor(Int32)
    }

    /// Where the child's standard output or standard error goes.
    package enum Output: Sendable {
        /// A pipe; the parent reads ``output`` or ``errorOutput``.
        case pipe
        case null
        /// Standard error only: the same pipe or descriptor as standard output.
        case standardOutput
        case descriptor(Int32)
    }

    package enum Termination: Equatable, Sendable {
        case exited(Int32)
        case signaled(Int32)

        /// The exit status, or the signal's number for a process killed by one (as Foundation's
        /// `Process.terminationStatus`).
        package var status: Int32 {
            switch self {
            case .exited(let code), .signaled(let code): code
            }
        }
    }

    package struct SpawnError: Error, CustomStringConvertible {
        package var description: String
    }

    package let pid: pid_t
    /// The write end of the child's standard input (`.pipe` only).
    package let input: FileHandle?
    /// The read end of the child's standard output (`.pipe` only).
    package let output: FileHandle?
    /// The read end of the child's standard error (`.pipe` only).
    package let errorOutput: FileHandle?
    private let reaped = Mutex<Termination?>(nil)

    /// Starts `executable` (an absolute path) with `arguments`; `environment` nil inherits this
    /// process's. The child gets a process group of its own, an empty signal mask and the default
    /// action for SIGPIPE (the test process ignores it), as a shell would start it.
    package init(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil, directory: URL? = nil,
                 input: Input = .null, output: Output = .pipe, errorOutput: Output = .pipe) throws {
        var actions = posix_spawn_file_actions_t()
        guard posix_spawn_file_actions_init(&actions) == 0 else { throw SpawnError(description: "posix_spawn_file_actions_init failed") }
        defer { posix_spawn_file_actions_destroy(&actions) }
        // The descriptors the parent keeps (closed here if spawning fails) and the child's ends (closed
        // in the parent after spawning).
        var parentEnds: [Int32] = []
        var childEnds: [Int32] = []
        var spawned = false
        defer {
            for fd in childEnds { close(fd) }
            if !spawned { for fd in parentEnds { close(fd) } }
        }
        func makePipe() throws -> (read: Int32, write: Int32) {
            var fds: [Int32] = [-1, -1]
            guard Self.pipeClosedOnExec(&fds) == 0 else { throw SpawnError(description: "pipe2 failed: errno \(errno)") }
            return (fds[0], fds[1])
        }
        var nullFD: Int32 = -1
        func devNull() throws -> Int32 {
            if nullFD < 0 {
                nullFD = open("/dev/null", O_RDWR | O_CLOEXEC)
                guard nullFD >= 0 else { throw SpawnError(description: "cannot open /dev/null: errno \(errno)") }
                childEnds.append(nullFD)
            }
            return nullFD
        }
        func redirect(_ fd: Int32, to target: Int32) throws {
            guard posix_spawn_file_actions_adddup2(&actions, fd, target) == 0 else {
                throw SpawnError(description: "posix_spawn_file_actions_adddup2 failed")
            }
        }

        var inputHandle: FileHandle?
        switch input {
        case .pipe:
            // A child that stops reading makes writes fail with EPIPE instead of killing this process.
            signal(SIGPIPE, SIG_IGN)
            let pipe = try makePipe()
            parentEnds.append(pipe.write)
            childEnds.append(pipe.read)
            try redirect(pipe.read, to: STDIN_FILENO)
            inputHandle = FileHandle(fileDescriptor: pipe.write, closeOnDealloc: true)
        case .null: try redirect(try devNull(), to: STDIN_FILENO)
        case .descriptor(let fd): try redirect(fd, to: STDIN_FILENO)
        }
        var outputHandle: FileHandle?
        var outputTarget: Int32 = -1
        switch output {
        case .pipe:
            let pipe = try makePipe()
            parentEnds.append(pipe.read)
            childEnds.append(pipe.write)
            outputTarget = pipe.write
            outputHandle = FileHandle(fileDescriptor: pipe.read, closeOnDealloc: true)
        case .null, .standardOutput: outputTarget = try devNull()
        case .descriptor(let fd): outputTarget = fd
        }
        try redirect(outputTarget, to: STDOUT_FILENO)
        var errorHandle: FileHandle?
        switch errorOutput {
        case .pipe:
            let pipe = try makePipe()
            parentEnds.append(pipe.read)
            childEnds.append(pipe.write)
            errorHandle = FileHandle(fileDescriptor: pipe.read, closeOnDealloc: true)
            try redirect(pipe.write, to: STDERR_FILENO)
        case .null: try redirect(try devNull(), to: STDERR_FILENO)
        case .standardOutput: try redirect(outputTarget, to: STDERR_FILENO)
        case .descriptor(let fd): try redirect(fd, to: STDERR_FILENO)
        }
        try Self.closeOthers(&actions)
        if let directory {
            try Self.changeDirectory(&actions, to: directory.path)
        }

        var attributes = posix_spawnattr_t()
        guard posix_spawnattr_init(&attributes) == 0 else { throw SpawnError(description: "posix_spawnattr_init failed") }
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var defaultSignals = sigset_t()
        sigemptyset(&defaultSignals)
        sigaddset(&defaultSignals, SIGPIPE)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &defaultSignals)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var envp: [UnsafeMutablePointer<CChar>?] = []
        if let environment {
            envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        }
        defer { for pointer in envp { free(pointer) } }

        var pid: pid_t = 0
        let result = envp.isEmpty
            ? posix_spawn(&pid, executable.path, &actions, &attributes, argv, environ)
            : posix_spawn(&pid, executable.path, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw SpawnError(description: "cannot start \(executable.path): \(String(cString: strerror(result)))")
        }
        spawned = true
        self.pid = pid
        self.input = inputHandle
        self.output = outputHandle
        self.errorOutput = errorHandle
    }

    /// `pipe2(fds, O_CLOEXEC)`: not in Swift's Glibc module (it needs _GNU_SOURCE), so looked up at run
    /// time; without it, `pipe` and then `FD_CLOEXEC` (not atomic, but the child closes the rest anyway).
    private static func pipeClosedOnExec(_ fds: UnsafeMutablePointer<Int32>) -> Int32 {
        typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pipe2") {
            return unsafeBitCast(symbol, to: Pipe2.self)(fds, O_CLOEXEC)
        }
        guard pipe(fds) == 0 else { return -1 }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        return 0
    }

    /// Closes every descriptor from 3 up in the child, after the redirections.
    private static func closeOthers(_ actions: inout posix_spawn_file_actions_t) throws {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        // Not in Swift's Glibc module (it needs _GNU_SOURCE): looked up at run time.
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
            return  // glibc < 2.34: every descriptor this type opens is close-on-exec anyway
        }
        guard unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3) == 0 else {
            throw SpawnError(description: "posix_spawn_file_actions_addclosefrom_np failed")
        }
    }

    private static func changeDirectory(_ actions: inout posix_spawn_file_actions_t, to path: String) throws {
        typealias ChangeDirectory = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addchdir_np") else {
            throw SpawnError(description: "posix_spawn_file_actions_addchdir_np is missing (glibc 2.29+ needed)")
        }
        guard unsafeBitCast(symbol, to: ChangeDirectory.self)(&actions, path) == 0 else {
            throw SpawnError(description: "posix_spawn_file_actions_addchdir_np failed")
        }
    }

    /// How the process ended, or nil while it runs (reaps it if it ended).
    package var termination: Termination? {
        reaped.withLock { reaped in
            if reaped == nil {
                var status: Int32 = 0
                var result: pid_t
                repeat { result = waitpid(pid, &status, WNOHANG) } while result == -1 && errno == EINTR
                if result == pid {
                    let signal = status & 0x7f
                    reaped = signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal)
                } else if result == -1 {
                    reaped = .exited(-1)  // not our child any more (ECHILD): nothing left to wait for
                }
            }
            return reaped
        }
    }

    package var isRunning: Bool { termination == nil }

    /// Blocks until the process ends (polls; call it off Swift's cooperative pool).
    @discardableResult
    package func waitUntilExit() -> Termination {
        var pause: useconds_t = 500
        while true {
            if let termination { return termination }
            usleep(pause)
            pause = min(pause * 2, 10_000)
        }
    }

    /// Waits for the process to end, on a thread of its own.
    @discardableResult
    package func exit() async -> Termination {
        if let termination { return termination }
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: self.waitUntilExit()) }
        }
    }

    /// Sends `signal` unless the process was already reaped.
    package func send(_ signal: Int32) {
        reaped.withLock { reaped in
            if reaped == nil { _ = kill(pid, signal) }
        }
    }

    package func terminate() { send(SIGTERM) }

    /// Writes `data` to the child's standard input and closes it, on a thread of its own (a large
    /// input can fill the pipe before the child reads). A child that stops reading early is fine.
    package func feedInput(_ data: Data) {
        guard let input else { return }
        Thread.detachNewThread {
            data.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let written = write(input.fileDescriptor, bytes.baseAddress! + offset, bytes.count - offset)
                    if written > 0 { offset += written } else if written < 0 && errno == EINTR { continue } else { break }
                }
            }
            try? input.close()
        }
    }

    /// A finished run's status and everything it wrote.
    package struct Result: Sendable {
        package var termination: Termination
        package var stdout: Data
        package var stderr: Data
        package var status: Int32 { termination.status }
        package var standardOutput: String { String(decoding: stdout, as: UTF8.self) }
        package var standardError: String { String(decoding: stderr, as: UTF8.self) }
    }

    /// Runs `executable` to its end, blocking: feeds `input` (if any, else /dev/null), reads standard
    /// output and standard error at the same time (one after the other deadlocks once the child fills
    /// the second pipe), then reaps it. `mergeErrors` sends standard error into standard output.
    package static func run(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
                            directory: URL? = nil, input: Data? = nil, mergeErrors: Bool = false) throws -> Result {
        let child = try SpawnedProcess(executable, arguments, environment: environment, directory: directory,
                                       input: input == nil ? .null : .pipe, output: .pipe,
                                       errorOutput: mergeErrors ? .standardOutput : .pipe)
        if let input { child.feedInput(input) }
        let errors = Mutex(Data())
        let errorsRead = DispatchSemaphore(value: 0)
        if let errorOutput = child.errorOutput {
            Thread.detachNewThread {
                let data = PipeReader.readAll(errorOutput)
                errors.withLock { $0 = data }
                errorsRead.signal()
            }
        } else {
            errorsRead.signal()
        }
        let output = child.output.map(PipeReader.readAll) ?? Data()
        errorsRead.wait()
        let termination = child.waitUntilExit()
        return Result(termination: termination, stdout: output, stderr: errors.withLock { $0 })
    }

    /// ``run(_:_:environment:directory:input:mergeErrors:)`` on a thread of its own, off Swift's
    /// cooperative pool (a server in this process may need the pool while the child runs).
    package static func runDetached(_ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
                                    directory: URL? = nil, input: Data? = nil, mergeErrors: Bool = false) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Swift.Result {
                    try run(executable, arguments, environment: environment, directory: directory, input: input, mergeErrors: mergeErrors)
                })
            }
        }
    }
}
