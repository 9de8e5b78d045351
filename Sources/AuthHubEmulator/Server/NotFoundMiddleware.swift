import enum AuthHub.JSONValue
import Hummingbird

/// Turns the router's 404 into a JSON 404 in the style of the module that owns the path, or
/// `{"error":"not_found"}` outside every module.
///
/// Also catches a known path requested with a method it does not serve: Hummingbird's router
/// reports that as a 404 too, and the providers answer such requests with their 404 body.
/// The body never echoes the path: paths can carry identifiers worth keeping out of replies.
struct NotFoundMiddleware: EmulatorErrorMiddleware {
    typealias Context = EmulatorRequestContext

    /// Prefix → 404 body, longest prefix first.
    let bodies: [(prefix: String, body: JSONValue)]

    init(modules: [any EmulatorModule]) {
        var bodies: [(prefix: String, body: JSONValue)] = []
        for module in modules {
            let body = module.notFoundBody()
            for prefix in module.pathPrefixes { bodies.append((prefix, body)) }
        }
        self.bodies = bodies.sorted { $0.prefix.count > $1.prefix.count }
    }

    func recover(from error: any Error, request: Request) throws -> Response {
        guard let error = error as? HTTPError, error.status == .notFound else { throw error }
        return EmulatorResponse.json(body(for: request.uri.path), status: .notFound)
    }

    /// The 404 body for `path`.
    func body(for path: String) -> JSONValue {
        bodies.first { EmulatorPaths.path(path, isUnder: $0.prefix) }?.body ?? ["error": "not_found"]
    }
}
