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

/// The state of a headless flow: `idle → loading → challenge → confirming → completed | failed`.
public enum FlowState<Challenge: Sendable, Output: Sendable>: Sendable {
    case idle
    case loading
    case challenge(Challenge)
    case confirming(Challenge)
    case completed(Output)
    case failed(AuthError)

    /// A short name of the state (`idle`, `loading`, …).
    public var name: String {
        switch self {
        case .idle: "idle"
        case .loading: "loading"
        case .challenge: "challenge"
        case .confirming: "confirming"
        case .completed: "completed"
        case .failed: "failed"
        }
    }
}

/// Drives a ``Factor`` through ``FlowState``: any UI (the CLI, SwiftUI) observes ``states()`` and calls
/// ``start()``, ``confirm(_:)`` and ``retry()``.
///
/// A failed confirmation returns to the challenge on ``retry()`` (the user may retype a code); a
/// failed start restarts from idle.
public actor FactorFlow<F: Factor> {
    public typealias State = FlowState<F.Challenge, F.Output>

    private let factor: F
    public private(set) var state: State = .idle
    private var lastChallenge: F.Challenge?
    private var continuations: [UInt64: AsyncStream<State>.Continuation] = [:]
    private var nextID: UInt64 = 0

    public init(_ factor: F) { self.factor = factor }

    /// A stream of states, starting with the current one.
    public func states() -> AsyncStream<State> {
        let (stream, continuation) = AsyncStream<State>.makeStream(bufferingPolicy: .bufferingNewest(64))
        nextID += 1
        let id = nextID
        continuation.yield(state)
        continuations[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.unsubscribe(id) }
        }
        return stream
    }

    private func unsubscribe(_ id: UInt64) { continuations[id] = nil }

    private func transition(_ newState: State) {
        state = newState
        for c in continuations.values { c.yield(newState) }
    }

    /// Starts the ceremony; valid from `idle` or `failed`.
    @discardableResult
    public func start() async -> State {
        switch state {
        case .idle, .failed: break
        default: return state
        }
        transition(.loading)
        do {
            let challenge = try await factor.start()
            lastChallenge = challenge
            transition(.challenge(challenge))
        } catch {
            transition(.failed(AuthError.wrap(error)))
        }
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
        transition(.confirming(challenge))
        do {
            let output = try await factor.confirm(challenge, response: response)
            transition(.completed(output))
        } catch {
            transition(.failed(AuthError.wrap(error)))
        }
        return state
    }

    /// After a failure: back to the last challenge if there was one (retype the code), else start again.
    @discardableResult
    public func retry() async -> State {
        guard case .failed = state else { return state }
        if let lastChallenge {
            transition(.challenge(lastChallenge))
            return state
        }
        return await start()
    }
}
