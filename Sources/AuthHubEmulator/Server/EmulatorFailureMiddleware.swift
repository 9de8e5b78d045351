import Hummingbird

/// Keeps a provider's error format for errors its handlers did not foresee: a thrown `Failure`
/// passes through (Hummingbird renders it), anything else becomes `Failure.internalError`, so the
/// reply is the provider's `500` and never the error's text, which could hold request data.
///
/// Each provider module builds its routes in a collection made with
/// `RouteCollection(failures:)`, which puts one in front of every route.
struct EmulatorFailureMiddleware<Failure: EmulatorFailure>: EmulatorErrorMiddleware {
    typealias Context = EmulatorRequestContext

    func recover(from error: any Error, request: Request) throws -> Response {
        throw error as? Failure ?? Failure.internalError
    }
}

extension RouteCollection where Context == EmulatorRequestContext {
    /// An empty collection for one provider's routes, with an ``EmulatorFailureMiddleware`` in
    /// front of every route added to it.
    /// - Parameter failures: the provider's failure type.
    convenience init<Failure: EmulatorFailure>(failures: Failure.Type) {
        self.init(context: EmulatorRequestContext.self)
        add(middleware: EmulatorFailureMiddleware<Failure>())
    }
}
