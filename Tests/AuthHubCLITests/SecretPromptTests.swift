import AuthHubTesting
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The CLI under a pseudo-terminal, as a person types at it: a typed password never appears on the
/// terminal (echo is off while it is read), and echo comes back on every way out, Ctrl-C included.
@Suite(.serialized) struct SecretPromptTests {
    /// A pseudo-terminal pair: the test holds the master side, the CLI gets the slave as its terminal.
    final class PseudoTerminal {
        let master: Int32
        let slave: Int32

        init() throws {
            // posix_openpt and friends are not in Swift's Glibc module (they need _XOPEN_SOURCE): look them up.
            typealias OpenPT = @convention(c) (Int32) -> Int32
            typealias OnFD = @convention(c) (Int32) -> Int32
            typealias PTSName = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?
            func symbol<T>(_ name: String, as: T.Type) throws -> T {
                guard let pointer = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { throw CLITestError("no \(name)") }
                return unsafeBitCast(pointer, to: T.self)
            }
            let openPT = try symbol("posix_openpt", as: OpenPT.self)
            let grant = try symbol("grantpt", as: OnFD.self)
            let unlock = try symbol("unlockpt", as: OnFD.self)
            let name = try symbol("ptsname", as: PTSName.self)
            master = openPT(O_RDWR | O_NOCTTY)
            guard master >= 0, grant(master) == 0, unlock(master) == 0, let path = name(master) else {
                throw CLITestError("no pseudo-terminal")
            }
            let slavePath = String(cString: path)
            slave = open(slavePath, O_RDWR | O_NOCTTY)
            guard slave >= 0 else { throw CLITestError("cannot open the pseudo-terminal's slave side") }
        }

        deinit {
            close(master)
            close(slave)
        }

        /// Whether the terminal echoes what is typed.
        var echoes: Bool {
            var settings = termios()
            _ = tcgetattr(slave, &settings)
            return settings.c_lflag & tcflag_t(ECHO) != 0
        }

        func type(_ text: String) {
            _ = text.withCString { write(master, $0, strlen($0)) }
        }

        /// Everything the terminal showed until `condition` holds on it or `seconds` pass.
        func read(for seconds: Double, until condition: (String) -> Bool = { _ in false }) -> String {
            var shown = Data()
            var buffer = [UInt8](repeating: 0, count: 4096)
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline, !condition(String(decoding: shown, as: UTF8.self)) {
                var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
                guard poll(&descriptor, 1, 50) > 0 else { continue }
                let count = buffer.withUnsafeMutableBytes { Glibc.read(master, $0.baseAddress, $0.count) }
                if count <= 0 { break }
                shown.append(contentsOf: buffer[0..<count])
            }
            return String(decoding: shown, as: UTF8.self)
        }
    }

    /// `authhub login` against an Auth0 tenant on a closed port: it prompts for the password, then
    /// fails to connect — enough to see what the terminal shows.
    static func startLogin(_ terminal: PseudoTerminal) throws -> SpawnedProcess {
        let directory = try AuthHubBinary.directory(withConfig: """
            {"environments":{"dev":{"providers":[{"id":"auth0","type":"auth0","domain":"http://127.0.0.1:9/auth0","clientId":"cli"}]}}}
            """)
        return try SpawnedProcess(try AuthHubBinary.url(), ["login", "--provider", "auth0", "--email", "user@example.com"],
                                  environment: ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"],
                                  directory: directory, input: .descriptor(terminal.slave),
                                  output: .descriptor(terminal.slave), errorOutput: .descriptor(terminal.slave))
    }

    @Test func aTypedPasswordIsNeverShown() async throws {
        // The terminal is read with blocking calls: on a thread of its own, off Swift's cooperative pool.
        try await onOwnThread { try Self.typedPasswordIsNeverShown() }
    }

    static func typedPasswordIsNeverShown() throws {
        let terminal = try PseudoTerminal()
        #expect(terminal.echoes)
        let process = try startLogin(terminal)
        var shown = terminal.read(for: 30) { $0.contains("Password:") }
        #expect(shown.contains("Password:"))
        #expect(!terminal.echoes, "echo is off while the password is read")
        terminal.type("hunter2-typed-SECRET\n")
        shown += terminal.read(for: 30) { $0.contains("error:") }
        let termination = process.waitUntilExit()
        shown += terminal.read(for: 0.2)
        #expect(!shown.contains("hunter2"), "the terminal showed: \(shown)")
        #expect(shown.contains("error:"), "the login went on and failed to connect: \(shown)")
        #expect(termination != .exited(0))
        #expect(terminal.echoes, "echo is back on after the prompt")
    }

    @Test func ctrlCRestoresEcho() async throws {
        try await onOwnThread { try Self.ctrlCRestoresEchoOnTheTerminal() }
    }

    static func ctrlCRestoresEchoOnTheTerminal() throws {
        let terminal = try PseudoTerminal()
        let process = try startLogin(terminal)
        _ = terminal.read(for: 30) { $0.contains("Password:") }
        #expect(!terminal.echoes)
        terminal.type("half-typed")
        // While the prompt waits, what is typed does not appear (this also lets the line discipline take
        // the keystrokes in before the interrupt, as with a person at the keyboard).
        #expect(!terminal.read(for: 0.5).contains("half-typed"))
        process.send(SIGINT)
        #expect(process.waitUntilExit() == .signaled(SIGINT))
        #expect(terminal.echoes, "echo is back on after Ctrl-C")
        #expect(!terminal.read(for: 0.2).contains("half-typed"))
    }

    @Test func aPipedLineLongerThanTheLimitIsRefused() async throws {
        let directory = try AuthHubBinary.directory(withConfig: """
            {"environments":{"dev":{"providers":[{"id":"auth0","type":"auth0","domain":"http://127.0.0.1:9/auth0","clientId":"cli"}]}}}
            """)
        let result = try await AuthHubBinary.runDetached(["login", "--provider", "auth0", "--email", "u@example.com", "--password-stdin"],
                                                         in: directory, stdin: String(repeating: "x", count: 200_000))
        #expect(result.status != 0)
        #expect(result.stderr == "error: the input line is longer than 65536 bytes\n")
    }
}
