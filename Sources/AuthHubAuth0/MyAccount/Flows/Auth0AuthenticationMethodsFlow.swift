import AuthHub
import Foundation

/// The user's enrolled authentication methods and the factor types the tenant offers, as shown by
/// an "authentication methods" screen.
public struct Auth0AuthenticationMethodsOverview: Sendable {
    /// Confirmed methods, in the API's order.
    public var methods: [Auth0AuthenticationMethod]
    /// Factor types enabled for the tenant, with their usage (`primary`, `secondary`).
    public var factors: [(type: String, usage: [String])]

    /// Factor types the user has no method of yet.
    public var enrollable: [String] {
        let have = Set(methods.compactMap(\.type))
        return factors.map(\.type).filter { !have.contains($0) }
    }
}

/// The headless "authentication methods" overview (<doc:Auth0Endpoints>: “Endpoints”): load the methods and
/// factors, rename or delete a method, with the same failure, retry and step-up behaviour as the
/// enrollment flows — it *is* core's ``FactorFlow`` (in its repeating form, where each change answers
/// with the new overview), with the states named for an overview screen.
///
/// States: `idle → loading → loaded(overview)`; a change goes `loaded → updating → loaded`; any
/// refusal becomes `failed(error)` (``retry()`` repeats the step) or, when signing in again fixes it
/// (``AuthError/requiresReauthentication``), `reauthenticationRequired(error)` until ``resume()`` —
/// or at once through the ``ReauthenticationHandler`` given to the initialiser.
public actor Auth0AuthenticationMethodsFlow {
    /// The overview's states.
    public enum State: Sendable {
        case idle
        case loading
        case loaded(Auth0AuthenticationMethodsOverview)
        /// A rename or delete is in flight; the overview is the one shown before it.
        case updating(Auth0AuthenticationMethodsOverview)
        case failed(AuthError)
        case reauthenticationRequired(AuthError)

        /// A short name of the state.
        public var name: String {
            switch self {
            case .idle: "idle"
            case .loading: "loading"
            case .loaded: "loaded"
            case .updating: "updating"
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

        /// The overview of a `loaded` or `updating` state.
        public var overview: Auth0AuthenticationMethodsOverview? {
            switch self {
            case .loaded(let overview), .updating(let overview): overview
            default: nil
            }
        }

        /// The overview screen's name for a ``FactorFlow`` state.
        init(_ state: FactorFlow<Overview>.State) {
            switch state {
            case .idle: self = .idle
            case .loading: self = .loading
            case .challenge(let overview), .completed(let overview): self = .loaded(overview)
            case .confirming(let overview): self = .updating(overview)
            case .failed(let error): self = .failed(error)
            case .reauthenticationRequired(let error): self = .reauthenticationRequired(error)
            }
        }
    }

    /// The overview as a ``Factor``: starting loads it; a change is confirmed against it and
    /// answers with the overview loaded again.
    struct Overview: Factor {
        enum Change: Sendable {
            case reload
            case delete(String)
            case rename(String, String)
        }
        let api: Auth0MyAccountAPI
        var kind: FactorKind { "authenticationMethods" }

        func start() async throws -> Auth0AuthenticationMethodsOverview {
            Auth0AuthenticationMethodsOverview(methods: try await api.authenticationMethods(), factors: try await api.factors())
        }

        func confirm(_ challenge: Auth0AuthenticationMethodsOverview, response: Change) async throws -> Auth0AuthenticationMethodsOverview {
            switch response {
            case .reload: break
            case .delete(let id): try await api.deleteAuthenticationMethod(id: id)
            case .rename(let id, let name): _ = try await api.updateAuthenticationMethod(id: id, name: name)
            }
            return try await start()
        }
    }

    private let flow: FactorFlow<Overview>

    /// The current state.
    public var state: State {
        get async { State(await flow.state) }
    }

    /// Creates the flow in `idle`.
    public init(api: Auth0MyAccountAPI, reauthenticate: ReauthenticationHandler? = nil) {
        flow = FactorFlow(repeating: Overview(api: api), reauthenticate: reauthenticate)
    }

    /// A stream of states, starting with the current one.
    public func states() async -> AsyncStream<State> {
        let inner = await flow.states()
        return AsyncStream { continuation in
            let task = Task {
                for await state in inner { continuation.yield(State(state)) }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Loads (or reloads) the methods and factors.
    @discardableResult
    public func load() async -> State {
        switch await flow.state {
        case .idle, .failed: return State(await flow.start())
        case .challenge: return State(await flow.confirm(.reload))
        default: return await state
        }
    }

    /// Deletes a method, then reloads. Valid once loaded.
    @discardableResult
    public func delete(id: String) async -> State {
        guard case .loaded = await state else { return await state }
        return State(await flow.confirm(.delete(id)))
    }

    /// Renames a method, then reloads. Valid once loaded.
    @discardableResult
    public func rename(id: String, to name: String) async -> State {
        guard case .loaded = await state else { return await state }
        guard !name.trimmingCharacters(in: .whitespaces).isEmpty else {
            await flow.fail(AuthError(.invalidRequest, message: "A name cannot be empty.", details: ["field": "name"]))
            return await state
        }
        return State(await flow.confirm(.rename(id, name)))
    }

    /// After a failure, shows the last overview again (if there was one) or loads it.
    @discardableResult
    public func retry() async -> State { State(await flow.retry()) }

    /// Repeats the step a re-authentication interrupted.
    @discardableResult
    public func resume() async -> State { State(await flow.resume()) }
}
