import Foundation

/// A kind of authentication factor. Open and string-backed.
public struct FactorKind: RawRepresentable, Hashable, Sendable, Codable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public var description: String { rawValue }

    public static let password: FactorKind = "password"
    public static let emailCode: FactorKind = "emailCode"
    public static let smsCode: FactorKind = "smsCode"
    public static let totp: FactorKind = "totp"
    public static let push: FactorKind = "push"
    public static let recoveryCode: FactorKind = "recoveryCode"
    public static let passkey: FactorKind = "passkey"
    /// An account at another identity provider (Google, Apple, a wallet) linked to the user's.
    public static let linkedAccount: FactorKind = "linkedAccount"
}

/// An authentication factor with a two-phase ceremony: ``start()`` yields a challenge (a QR code, a
/// "code sent" notice, WebAuthn options), ``confirm(_:response:)`` completes it with the user's
/// response (a code, an assertion) and yields the result (an enrolled factor, a session).
///
/// Factors hold no UI; ``FactorFlow`` drives one as a state machine any UI can observe.
public protocol Factor: Sendable {
    associatedtype Challenge: Sendable
    associatedtype Response: Sendable
    associatedtype Output: Sendable

    /// What kind of factor this is.
    var kind: FactorKind { get }
    /// Begins the ceremony.
    func start() async throws -> Challenge
    /// Completes the ceremony with the user's response to `challenge`.
    func confirm(_ challenge: Challenge, response: Response) async throws -> Output
}

/// The state of a headless flow: `idle → loading → challenge → confirming → completed | failed`,
/// with a side state for step-up: when an operation is refused in a way that signing in again fixes
/// (``AuthError/requiresReauthentication``), the flow waits in `reauthenticationRequired` instead
/// of failing.
public enum FlowState<Challenge: Sendable, Output: Sendable>: Sendable {
    case idle
    case loading
    case challenge(Challenge)
    case confirming(Challenge)
    case completed(Output)
    case failed(AuthError)
    /// The provider wants the user to sign in again (or pass a second factor) first; after that,
    /// ``FactorFlow/resume()`` repeats the refused step.
    case reauthenticationRequired(AuthError)

    /// A short name of the state (`idle`, `loading`, …).
    public var name: String {
        switch self {
        case .idle: "idle"
        case .loading: "loading"
        case .challenge: "challenge"
        case .confirming: "confirming"
        case .completed: "completed"
        case .failed: "failed"
        case .reauthenticationRequired: "reauthenticationRequired"
        }
    }

    /// The error of a `failed` or `reauthenticationRequired` state.
    public var error: AuthError? {
        switch self {
        case .failed(let error), .reauthenticationRequired(let error): error
        default: nil
        }
    }
}

/// Signs the user in again after a step-up refusal (prompting for a password or a second factor,
/// opening a browser, …) so that the refused step can be repeated. Throwing ends the flow as failed.
public typealias ReauthenticationHandler = @Sendable (AuthError) async throws -> Void

/// Drives a ``Factor`` through ``FlowState``: any UI (the CLI, SwiftUI) observes ``states()`` and calls
/// ``start()``, ``confirm(_:)`` and ``retry()``.
///
/// A failed confirmation returns to the challenge on ``retry()`` (the user may retype a code); a
/// failed start restarts from idle.
///
/// Step-up: when a step fails with an error for which ``AuthError/requiresReauthentication`` holds
/// (an MFA requirement, a missing scope, an expired session), the flow moves to
/// `reauthenticationRequired`. With a ``ReauthenticationHandler`` it calls the handler at once and
/// repeats the step once; without one it waits until the UI has signed the user in again and calls
/// ``resume()``.
public actor FactorFlow<F: Factor> {
    public typealias State = FlowState<F.Challenge, F.Output>

    /// The step a re-authentication interrupted.
    private enum Step {
        case start
        case confirm(F.Challenge, F.Response)
    }

    private let factor: F
    private let reauthenticate: ReauthenticationHandler?
    /// Whether a confirmation's output is the next challenge (a screen that stays open: an
    /// overview whose changes each yield the new overview) rather than the end of the flow.
    private let repeats: Bool
    public private(set) var state: State = .idle
    private var lastChallenge: F.Challenge?
    private var interrupted: Step?
    private var observers = FlowObservers<State>()

    /// Creates a flow in `idle`.
    /// - Parameters:
    ///   - factor: the factor to drive.
    ///   - reauthenticate: called when a step needs the user to sign in again; without it the flow
    ///     waits in `reauthenticationRequired` for ``resume()``.
    public init(_ factor: F, reauthenticate: ReauthenticationHandler? = nil) {
        self.factor = factor
        self.reauthenticate = reauthenticate
        self.repeats = false
    }

    /// Creates a flow in `idle` whose every confirmation yields the next challenge: `challenge →
    /// confirming → challenge(output)`, never `completed` — for a screen that stays open, such as an
    /// overview of authentication methods where each change answers with the new overview. Failures,
    /// ``retry()`` (back to the last challenge) and re-authentication behave as in any flow.
    public init(repeating factor: F, reauthenticate: ReauthenticationHandler? = nil) where F.Output == F.Challenge {
        self.factor = factor
        self.reauthenticate = reauthenticate
        self.repeats = true
    }

    /// Fails the flow with `error` without running a step: for a response the UI layer refused
    /// before sending (an empty name). ``retry()`` returns to the last challenge.
    package func fail(_ error: AuthError) {
        interrupted = nil
        transition(.failed(error))
    }

    /// A stream of states, starting with the current one.
    public func states() -> AsyncStream<State> { observers.stream(startingWith: state) }

    private func transition(_ newState: State) {
        state = newState
        observers.publish(newState)
    }

    /// Starts the ceremony; valid from `idle` or `failed`.
    @discardableResult
    public func start() async -> State {
        switch state {
        case .idle, .failed: break
        default: return state
        }
        await run(.start, handlerAllowed: true)
        return state
    }

    /// Confirms the current challenge with the user's response; valid in `challenge`.
    ///
    /// While a start or another confirmation is in flight (a double-tapped button), the call changes
    /// nothing and returns the current state; the call in flight publishes the outcome.
    @discardableResult
    public func confirm(_ response: F.Response) async -> State {
        let challenge: F.Challenge
        switch state {
        case .challenge(let current):
            challenge = current
        case .loading, .confirming:
            return state
        default:
            transition(.failed(AuthError(.invalidRequest, message: "There is no challenge to confirm (state: \(state.name)).")))
            return state
        }
        await run(.confirm(challenge, response), handlerAllowed: true)
        return state
    }

    /// After a failure: back to the last challenge if there was one (retype the code), else start
    /// again. In `reauthenticationRequired` it is ``resume()``.
    @discardableResult
    public func retry() async -> State {
        if case .reauthenticationRequired = state { return await resume() }
        guard case .failed = state else { return state }
        if let lastChallenge {
            transition(.challenge(lastChallenge))
            return state
        }
        return await start()
    }

    /// Repeats the step a re-authentication interrupted, once the user has signed in again; valid
    /// in `reauthenticationRequired`.
    @discardableResult
    public func resume() async -> State {
        guard case .reauthenticationRequired = state, let step = interrupted else { return state }
        interrupted = nil
        await run(step, handlerAllowed: false)
        return state
    }

    private func run(_ step: Step, handlerAllowed: Bool) async {
        await runFlowStep(handler: reauthenticate, handlerAllowed: handlerAllowed) {
            switch step {
            case .start:
                transition(.loading)
                let challenge = try await factor.start()
                lastChallenge = challenge
                transition(.challenge(challenge))
            case .confirm(let challenge, let response):
                transition(.confirming(challenge))
                let output = try await factor.confirm(challenge, response: response)
                if repeats, let next = output as? F.Challenge {
                    lastChallenge = next
                    transition(.challenge(next))
                } else {
                    transition(.completed(output))
                }
            }
        } interrupted: { error in
            interrupted = step
            transition(.reauthenticationRequired(error))
        } failed: { error in
            interrupted = nil
            transition(.failed(error))
        }
    }
}
