import AuthHubWebCore
import Hummingbird

/// Adds ``SecurityHeaders`` to every response (error responses included) that does not set them itself.
public struct AuthHubSecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    public let headers: SecurityHeaders

    public init(_ headers: SecurityHeaders = .standard) { self.headers = headers }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        headers.apply(to: &response.headers)
        return response
    }
}
