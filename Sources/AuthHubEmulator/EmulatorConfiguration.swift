import struct AuthHub.AuthError
import struct AuthHub.AuthErrorCode
import protocol AuthHub.AuthClock
import struct AuthHub.SystemClock
import protocol AuthHub.RandomSource
import struct AuthHub.SystemRandom
import Foundation
import Logging

/// How an ``Emulator`` listens and what it runs with.
///
/// The emulator is a development tool that hands out tokens for made-up users, so by default it
/// only binds to a loopback address (`127.0.0.0/8`, `::1`, `localhost`). Binding to anything else
/// must be asked for explicitly with ``allowNonLoopback``.
public struct EmulatorConfiguration: Sendable {
    /// The address to bind to. Default `127.0.0.1`.
    public var host: String
    /// The TCP port to bind to; `0` picks a free ephemeral port (read it back from
    /// ``RunningEmulator/port``). Default `0`.
    public var port: Int
    /// Whether a host outside the loopback range is accepted. Default `false`.
    public var allowNonLoopback: Bool
    /// Where the emulator logs. Requests are logged at `debug` with method, path (never the query
    /// string), status and duration — never bodies. Default: a logger that discards everything.
    public var logger: Logger
    /// The clock modules use for token lifetimes and expiry. Default: the system clock.
    public var clock: any AuthClock
    /// The randomness modules use for ids, codes and tokens. Default: the system generator.
    public var random: any RandomSource
    /// How long ``RunningEmulator/stop()`` waits for in-flight requests before cancelling them.
    /// Default 5 seconds.
    public var shutdownTimeout: Duration

    /// Creates a configuration.
    /// - Parameters:
    ///   - host: the address to bind to; must be a loopback address unless `allowNonLoopback`.
    ///   - port: the port, or `0` for an ephemeral one.
    ///   - allowNonLoopback: accept a host outside the loopback range.
    ///   - logger: where to log; nil discards all log output.
    ///   - clock: the time source for modules.
    ///   - random: the randomness for modules.
    ///   - shutdownTimeout: the grace period for in-flight requests on stop.
    public init(
        host: String = "127.0.0.1",
        port: Int = 0,
        allowNonLoopback: Bool = false,
        logger: Logger? = nil,
        clock: any AuthClock = SystemClock(),
        random: any RandomSource = SystemRandom(),
        shutdownTimeout: Duration = .seconds(5)
    ) {
        self.host = host
        self.port = port
        self.allowNonLoopback = allowNonLoopback
        self.logger = logger ?? Logger(label: "authhub.emulator", factory: { _ in SwiftLogNoOpLogHandler() })
        self.clock = clock
        self.random = random
        self.shutdownTimeout = shutdownTimeout
    }

    /// Checks the host and port.
    /// - Throws: ``AuthError`` with code `invalidConfiguration` for an empty or non-loopback host
    ///   (unless ``allowNonLoopback``) or a port outside 0...65535.
    public func validate() throws {
        let trimmed = host.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed == host else {
            throw AuthError(.invalidConfiguration, message: "The emulator host must be a non-empty address without spaces.")
        }
        guard (0...65_535).contains(port) else {
            throw AuthError(.invalidConfiguration, message: "The emulator port must be between 0 and 65535 (got \(port)).")
        }
        if !allowNonLoopback && !Self.isLoopback(host) {
            throw AuthError(
                .invalidConfiguration,
                message: "Refusing to bind the emulator to non-loopback host \(host); use 127.0.0.1 or allow non-loopback hosts explicitly."
            )
        }
    }

    /// The host as it appears in a URL: IPv6 literals are wrapped in brackets.
    var urlHost: String {
        let bare = Self.stripBrackets(host)
        return bare.contains(":") ? "[\(bare)]" : bare
    }

    /// The host as handed to the socket layer: IPv6 literals without brackets.
    var bindHost: String { Self.stripBrackets(host) }

    /// Whether `host` names the loopback interface: `localhost`, an IPv4 address in `127.0.0.0/8`,
    /// or the IPv6 loopback `::1` (with or without brackets).
    public static func isLoopback(_ host: String) -> Bool {
        let bare = stripBrackets(host).lowercased()
        if bare == "localhost" { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, bare, &v4) == 1 {
            // s_addr is in network byte order: the first octet is the lowest-addressed byte.
            let firstOctet = withUnsafeBytes(of: &v4) { $0.first ?? 0 }
            return firstOctet == 127
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, bare, &v6) == 1 {
            let bytes = withUnsafeBytes(of: &v6) { Array($0) }
            return bytes.count == 16 && bytes.prefix(15).allSatisfy { $0 == 0 } && bytes[15] == 1
        }
        return false
    }

    private static func stripBrackets(_ host: String) -> String {
        if host.hasPrefix("["), host.hasSuffix("]"), host.count >= 2 {
            return String(host.dropFirst().dropLast())
        }
        return host
    }
}
