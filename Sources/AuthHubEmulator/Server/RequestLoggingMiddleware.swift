import Hummingbird
import Logging

/// Logs every request at `debug`: method, path, status and duration.
///
/// Never the query string and never a body: authorization codes, tokens and API keys travel
/// there (`?code=…`, `?key=…`, `?oobCode=…`).
struct RequestLoggingMiddleware: RouterMiddleware {
    typealias Context = EmulatorRequestContext

    let logger: Logger

    func handle(
        _ request: Request,
        context: EmulatorRequestContext,
        next: (Request, EmulatorRequestContext) async throws -> Response
    ) async throws -> Response {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            log(request, status: Int(response.status.code), start: start)
            return response
        } catch let error as any HTTPResponseError {
            log(request, status: Int(error.status.code), start: start)
            throw error
        } catch {
            log(request, status: 500, start: start)
            throw error
        }
    }

    private func log(_ request: Request, status: Int, start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        let micros = elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000
        logger.debug(
            "request",
            metadata: [
                "method": .string(request.method.rawValue),
                "path": .string(request.uri.path),
                "status": .stringConvertible(status),
                "duration_us": .stringConvertible(micros),
            ]
        )
    }
}
