import protocol AuthHub.AuthClock
import protocol AuthHub.RandomSource
import Logging

/// What a module's handlers may use: the shared state, the clock, randomness and a logger.
///
/// Handed to ``EmulatorModule/register(routes:environment:)``; handlers capture it.
public struct EmulatorEnvironment: Sendable {
    /// Users, sessions, codes and the emulator's base URL.
    public let state: EmulatorState
    /// The time source for token lifetimes and expiry.
    public let clock: any AuthClock
    /// The randomness for ids, codes and tokens.
    public let random: any RandomSource
    /// A logger for the module. Never log bodies, tokens, passwords or codes.
    public let logger: Logger

    /// Creates an environment.
    public init(state: EmulatorState, clock: any AuthClock, random: any RandomSource, logger: Logger) {
        self.state = state
        self.clock = clock
        self.random = random
        self.logger = logger
    }
}
