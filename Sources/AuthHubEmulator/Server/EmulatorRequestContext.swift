import Hummingbird

/// The per-request context of every emulator route.
///
/// Its own type (rather than Hummingbird's `BasicRequestContext`) so later modules can add
/// request-scoped values without changing every handler's signature.
public struct EmulatorRequestContext: RequestContext {
    /// Hummingbird's core per-request storage (logger, route parameters, endpoint path).
    public var coreContext: CoreRequestContextStorage

    /// Creates the context for one request.
    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
    }
}
