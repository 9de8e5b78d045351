import Hummingbird

/// Keeps a provider's error format for errors its handlers did not foresee: a thrown `Failure`
/// passes through (Hummingbird renders it), anything else becomes `Failure.internalError`, so the
/// reply is the provider's `500` and never the error's text, which could hold request data.
///
/// Each provider module builds its routes in a collection made with
/// `RouteCollection(failures:)`, which puts one in front of every route.
struct EmulatorFailureMiddleware<Failure: EmulatorFailure>: RouterMiddleware {
    typealias Context = EmulatorRequestContext

    func handle(
        _ request: Request,
        context: EmulatorRequestContext,
        next: (Request, EmulatorRequestContext) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure.internalError
        }
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
