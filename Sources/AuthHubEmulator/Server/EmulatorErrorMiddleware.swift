import Hummingbird

/// A middleware that steps in only when the routes behind it throw: ``recover(from:request:)``
/// answers the error or throws one for Hummingbird to render.
protocol EmulatorErrorMiddleware: RouterMiddleware where Context == EmulatorRequestContext {
    /// Answers, or throws on, an error the routes behind the middleware threw.
    /// - Parameters:
    ///   - error: the error.
    ///   - request: the request being answered.
    /// - Returns: the reply in place of the error.
    /// - Throws: the error to pass on (the same one or another).
    func recover(from error: any Error, request: Request) throws -> Response
}

extension EmulatorErrorMiddleware {
    func handle(
        _ request: Request,
        context: EmulatorRequestContext,
        next: (Request, EmulatorRequestContext) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            return try recover(from: error, request: request)
        }
    }
}
