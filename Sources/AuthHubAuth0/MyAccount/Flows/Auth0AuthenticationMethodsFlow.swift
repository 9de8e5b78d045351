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
/// enrollment flows.
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
    }

    private enum Step: Sendable {
        case load
        case delete(String)
        case rename(String, String)
    }

    private let api: Auth0MyAccountAPI
    private let reauthenticate: ReauthenticationHandler?
    /// The current state.
    public private(set) var state: State = .idle
    private var last: Auth0AuthenticationMethodsOverview?
    private var pending: Step?
    private var observers = FlowObservers<State>()

    /// Creates the flow in `idle`.
    public init(api: Auth0MyAccountAPI, reauthenticate: ReauthenticationHandler? = nil) {
        self.api = api
        self.reauthenticate = reauthenticate
    }

    /// A stream of states, starting with the current one.
    public func states() -> AsyncStream<State> { observers.stream(startingWith: state) }

    private func transition(_ newState: State) {
        state = newState
        observers.publish(newState)
    }

    /// Loads (or reloads) the methods and factors.
    @discardableResult
    public func load() async -> State {
        if case .loading = state { return state }
        if case .updating = state { return state }
        await run(.load, handlerAllowed: true)
        return state
    }

    /// Deletes a method, then reloads. Valid once loaded.
    @discardableResult
    public func delete(id: String) async -> State {
        guard case .loaded = state else { return state }
        await run(.delete(id), handlerAllowed: true)
        return state
    }

    /// Renames a method, then reloads. Valid once loaded.
    @discardableResult
    public func rename(id: String, to name: String) async -> State {
        guard case .loaded = state else { return state }
        guard !name.trimmingCharacters(in: .whitespaces).isEmpty else {
            transition(.failed(AuthError(.invalidRequest, message: "A name cannot be empty.", details: ["field": "name"])))
            return state
        }
        await run(.rename(id, name), handlerAllowed: true)
        return state
    }

    /// After a failure, shows the last overview again (if there was one) or loads it.
    @discardableResult
    public func retry() async -> State {
        if case .reauthenticationRequired = state { return await resume() }
        guard case .failed = state else { return state }
        if let last {
            transition(.loaded(last))
            return state
        }
        return await load()
    }

    /// Repeats the step a re-authentication interrupted.
    @discardableResult
    public func resume() async -> State {
        guard case .reauthenticationRequired = state, let step = pending else { return state }
        pending = nil
        await run(step, handlerAllowed: false)
        return state
    }

    private func run(_ step: Step, handlerAllowed: Bool) async {
        await runFlowStep(handler: reauthenticate, handlerAllowed: handlerAllowed) {
            if case .load = step { transition(.loading) } else if let last { transition(.updating(last)) }
            switch step {
            case .load: break
            case .delete(let id): try await api.deleteAuthenticationMethod(id: id)
            case .rename(let id, let name): _ = try await api.updateAuthenticationMethod(id: id, name: name)
            }
            let overview = Auth0AuthenticationMethodsOverview(methods: try await api.authenticationMethods(), factors: try await api.factors())
            last = overview
            transition(.loaded(overview))
        } interrupted: { error in
            pending = step
            transition(.reauthenticationRequired(error))
        } failed: { error in
            pending = nil
            transition(.failed(error))
        }
    }
}
