import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads lines typed or piped on standard input, for prompts.
///
/// - A line is read byte by byte from descriptor 0, at most ``maxLineBytes`` (a longer one, e.g.
///   `/dev/zero` piped in, is refused with a one-line error instead of filling memory).
/// - A secret (password, one-time or recovery code) is read with terminal echo off when standard
///   input is a terminal, and echo is restored on every way out: the line ends, input ends, or the
///   process is interrupted (SIGINT, SIGTERM, SIGHUP, SIGQUIT restore the terminal, then take their
///   default action).
enum TerminalInput {
    /// The longest line accepted: 64 KiB.
    static let maxLineBytes = 64 * 1024

    /// Prints `prompt` (if any) to standard error and reads one line without its newline; nil at end
    /// of input. With `secret`, nothing typed is echoed.
    static func readLine(prompt: String?, secret: Bool) -> String? {
        // Echo goes off before the prompt is shown, so nothing typed after the prompt is ever echoed.
        let quiet = secret && isatty(STDIN_FILENO) == 1 && EchoGuard.disable()
        defer { if quiet { EchoGuard.restore() } }
        if let prompt { CLI.stderr(prompt) }
        return readRawLine()
    }

    private static func readRawLine() -> String? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = read(STDIN_FILENO, &byte, 1)
            if count < 0, errno == EINTR { continue }
            guard count == 1 else { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if byte == UInt8(ascii: "\n") { break }
            guard bytes.count < maxLineBytes else {
                EchoGuard.restore()
                CLI.fail("the input line is longer than \(maxLineBytes) bytes")
            }
            bytes.append(byte)
        }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Turns terminal echo off for one read and back on afterwards — also from a signal handler, which is
/// why the saved settings live in process-wide state: a C signal handler can capture nothing.
private enum EchoGuard {
    /// The terminal settings before echo was turned off, while it is off. Written only by the main
    /// flow (`disable`/`restore`), read by the handlers; `tcsetattr` is async-signal-safe.
    nonisolated(unsafe) static var saved = termios()
    nonisolated(unsafe) static var active: sig_atomic_t = 0
    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    static func disable() -> Bool {
        var settings = termios()
        guard tcgetattr(STDIN_FILENO, &settings) == 0 else { return false }
        saved = settings
        for signal in signals { _ = Glibc_signal(signal, handler) }
        var quiet = settings
        quiet.c_lflag &= ~tcflag_t(ECHO)
        quiet.c_lflag |= tcflag_t(ECHONL)  // the Enter still moves the cursor to the next line
        active = 1
        guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet) == 0 else {
            restore()
            return false
        }
        return true
    }

    static func restore() {
        guard active == 1 else { return }
        active = 0
        _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
        for signal in signals { _ = Glibc_signal(signal, SIG_DFL) }
    }

    /// Restores the terminal and re-raises the signal with its default action.
    static let handler: @convention(c) (Int32) -> Void = { signal in
        if EchoGuard.active == 1 {
            _ = tcsetattr(STDIN_FILENO, TCSANOW, &EchoGuard.saved)
            EchoGuard.active = 0
        }
        _ = Glibc_signal(signal, SIG_DFL)
        _ = raise(signal)
    }
}

#if canImport(Glibc)
private func Glibc_signal(_ signal: Int32, _ handler: (@convention(c) (Int32) -> Void)?) -> sighandler_t? {
    Glibc.signal(signal, handler)
}
#else
private func Glibc_signal(_ signal: Int32, _ handler: (@convention(c) (Int32) -> Void)?) -> sig_t? {
    Darwin.signal(signal, handler)
}
#endif
