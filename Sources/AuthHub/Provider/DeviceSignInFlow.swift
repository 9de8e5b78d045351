import Foundation

/// A device sign-in (RFC 8628) as a headless state machine that any UI drives — the CLI prints the
/// code and a QR code; an app could show them on a TV screen:
///
/// ```swift
/// let flow = try hub.deviceSignIn(provider: "auth0")
/// let code = try await flow.start()          // show code.userCode and code.verificationURI
/// let session = try await flow.waitForApproval()
/// ```
///
/// States: `idle → requestingCode → waitingForUser(authorization) → completed(session) | failed(error)`;
/// ``states()`` streams them.
///
/// Polling follows RFC 8628, section 3.5: the first poll comes one interval after the code was
/// issued; `authorization_pending` polls again after the interval; `slow_down` adds 5 seconds to the
/// interval for every later poll; `access_denied` fails with ``AuthErrorCode/accessDenied``;
/// `expired_token`, or the code's lifetime passing without an answer, fails with
/// ``AuthErrorCode/timeout``. A network failure, a timeout, a 5xx or a 429 while polling is not the
/// end: the next poll comes after the interval (after the 429's `Retry-After` if longer), until the
/// code expires. No pause outlasts the code: each ends at the earliest of the interval (at most
/// ``maxPause``, whatever `interval`, `slow_down` or `Retry-After` asked for), the code's expiry and the
/// caller's deadline. Cancelling the waiting task fails the flow with ``AuthErrorCode/userCancelled``.
/// All waiting goes through the provider's ``AuthClock``, so tests need no real time.
public actor DeviceSignInFlow {
    /// Where the flow is.
    public enum State: Sendable, CustomStringConvertible {
        case idle
        case requestingCode
        case waitingForUser(DeviceAuthorization)
        case completed(Session)
        case failed(AuthError)

        public var description: String {
            switch self {
            case .idle: "idle"
            case .requestingCode: "requestingCode"
            case .waitingForUser: "waitingForUser"
            case .completed: "completed"
            case .failed(let error): "failed(\(error.code))"
            }
        }
    }

    /// The provider that issues the codes and the tokens.
    public nonisolated let provider: any DeviceSignInProvider
    /// The choices sent with the request.
    public nonisolated let options: DeviceSignInOptions
    private let clock: any AuthClock
    private let complete: @Sendable (Session) async throws -> Session
    private let finished: @Sendable (Result<Session, AuthError>) -> Void
    private var observers = FlowObservers<State>()
    private var polling = false
    /// The current state.
    public private(set) var state: State = .idle {
        didSet { observers.publish(state) }
    }

    /// The most polls one flow sends, whatever the code's lifetime and interval: a bound even for a
    /// clock that does not advance.
    public static let maxPolls = 2_000

    /// Creates a flow.
    /// - Parameters:
    ///   - provider: the provider.
    ///   - options: scope and audience.
    ///   - clock: waits between polls and tells when the code expired.
    ///   - complete: receives the approved session and returns what to hand back (the hub stores
    ///     it there); by default the session itself.
    ///   - finished: told once how the flow ended (the hub counts it).
    public init(provider: any DeviceSignInProvider, options: DeviceSignInOptions = DeviceSignInOptions(), clock: any AuthClock,
                complete: @escaping @Sendable (Session) async throws -> Session = { $0 },
                finished: @escaping @Sendable (Result<Session, AuthError>) -> Void = { _ in }) {
        self.provider = provider
        self.options = options
        self.clock = clock
        self.complete = complete
        self.finished = finished
    }

    /// The states from now on, starting with the current one.
    public func states() -> AsyncStream<State> { observers.stream(startingWith: state) }

    /// Asks the provider for a code: `idle` (or `failed`, to start over) → `requestingCode` →
    /// `waitingForUser`.
    /// - Returns: what to show the user.
    /// - Throws: the provider's error (the flow is then `failed`); ``AuthErrorCode/invalidRequest``
    ///   when a code is already being waited for or the flow has completed.
    @discardableResult
    public func start() async throws -> DeviceAuthorization {
        switch state {
        case .idle, .failed: break
        case .requestingCode, .waitingForUser, .completed:
            throw AuthError(.invalidRequest, message: "This device sign-in has already started.", provider: provider.id)
        }
        state = .requestingCode
        do {
            let authorization = try await provider.startDeviceSignIn(options: options)
            state = .waitingForUser(authorization)
            return authorization
        } catch {
            throw fail(error)
        }
    }

    /// Polls until the user approves, denies, or the code expires.
    /// - Parameter timeout: the longest this call waits, if shorter than the code's lifetime; nil waits
    ///   until the code expires. Every pause between polls ends at the earliest of the interval, the
    ///   code's expiry and this deadline (and at once when the task is cancelled).
    /// - Returns: the session (as `complete` returned it).
    /// - Throws: ``AuthErrorCode/accessDenied``, ``AuthErrorCode/timeout``,
    ///   ``AuthErrorCode/userCancelled``, or the provider's error; ``AuthErrorCode/invalidRequest``
    ///   when ``start()`` has not given a code.
    public func waitForApproval(timeout: Duration? = nil) async throws -> Session {
        guard case .waitingForUser(let authorization) = state else {
            if case .completed(let session) = state { return session }
            throw AuthError(.invalidRequest, message: "Start the device sign-in before waiting for it.", provider: provider.id)
        }
        // One poller per code: a second one would double the polling rate (and earn `slow_down`).
        guard !polling else {
            throw AuthError(.invalidRequest, message: "This device sign-in is already being waited for.", provider: provider.id)
        }
        polling = true
        defer { polling = false }
        // A caller's timeout is clamped to 0…1 day before it becomes a date.
        let deadline = timeout.map { clock.now.addingTimeInterval(min(max($0.seconds, 0), 86_400)) }
        do {
            let session = try await complete(try await poll(authorization, deadline: deadline))
            state = .completed(session)
            finished(.success(session))
            return session
        } catch {
            throw fail(error)
        }
    }

    /// The longest pause between polls, whatever the provider asks for (`interval`, `slow_down`,
    /// `Retry-After`): twice the longest interval accepted from a provider.
    public static let maxPause: Duration = .seconds(DeviceAuthorization.intervalRange.upperBound * 2)

    private func poll(_ authorization: DeviceAuthorization, deadline: Date?) async throws -> Session {
        var interval = min(authorization.interval, Self.maxPause)
        for _ in 0..<Self.maxPolls {
            // The pause ends at the earliest of the interval, the code's expiry and the caller's deadline.
            let end = min(authorization.expiresAt, deadline ?? .distantFuture)
            let left = end.timeIntervalSince(clock.now)
            guard left > 0 else { throw deadline.map { $0 <= authorization.expiresAt } == true ? deadlinePassed() : expired() }
            do {
                try await clock.sleep(for: min(interval, .milliseconds(Int64((min(left, 86_400) * 1000).rounded(.up)))))
            } catch {
                throw AuthError(.userCancelled, message: "The device sign-in was cancelled.", provider: provider.id)
            }
            guard clock.now < authorization.expiresAt else { throw expired() }
            if let deadline, clock.now >= deadline { throw deadlinePassed() }
            let result: DevicePollResult
            do {
                result = try await provider.pollDeviceSignIn(authorization, options: options)
            } catch {
                let error = AuthError.wrap(error, provider: provider.id)
                if error.providerCode == "expired_token" { throw expired(statusCode: error.statusCode) }
                // Not the end: the code may still be approved once the provider is reachable again.
                guard [.network, .timeout, .providerUnavailable, .rateLimited].contains(error.code) else {
                    throw error
                }
                if let wait = error.retryAfter, wait > interval { interval = min(wait, Self.maxPause) }
                continue
            }
            switch result {
            case .pending:
                continue
            case .slowDown:
                interval = min(interval + .seconds(5), Self.maxPause)
            case .approved(let session):
                return session
            }
        }
        throw expired()
    }

    private func deadlinePassed() -> AuthError {
        AuthError(.timeout, message: "The sign-in was not approved within the time given; start again.", provider: provider.id,
                  isRetryable: false, details: ["reason": "deadline"])
    }

    private func expired(statusCode: Int? = nil) -> AuthError {
        AuthError(.timeout, message: "The code expired before the sign-in was approved; start again.", provider: provider.id,
                  providerCode: "expired_token", statusCode: statusCode, isRetryable: false)
    }

    private func fail(_ error: any Error) -> AuthError {
        var wrapped = AuthError.wrap(error, provider: provider.id)
        if error is CancellationError { wrapped = AuthError(.userCancelled, message: "The device sign-in was cancelled.", provider: provider.id) }
        state = .failed(wrapped)
        finished(.failure(wrapped))
        return wrapped
    }
}
