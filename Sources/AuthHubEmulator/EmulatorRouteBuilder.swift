import HTTPTypes
import Hummingbird

/// Adds a module's routes to the emulator's router and remembers them for the info route.
///
/// Paths use Hummingbird's syntax (`/auth0/api/v2/users/:id`, `/emulator/v1/projects/{id}/config`)
/// and must lie under one of the module's ``EmulatorModule/pathPrefixes``; a route outside them is
/// not registered and makes ``Emulator/start()`` fail, so modules cannot shadow each other.
///
/// A builder lives only while the emulator is being set up; it is not used across tasks.
public final class EmulatorRouteBuilder {
    /// One registered route.
    public struct Route: Sendable, Hashable, CustomStringConvertible {
        /// The HTTP method, e.g. `GET`.
        public var method: String
        /// The path pattern as registered.
        public var path: String
        /// `METHOD path`.
        public var description: String { "\(method) \(path)" }
    }

    let router: Router<EmulatorRequestContext>
    let moduleName: String
    let prefixes: [String]
    private(set) var routes: [Route] = []
    private(set) var problems: [String] = []

    init(router: Router<EmulatorRequestContext>, moduleName: String, prefixes: [String]) {
        self.router = router
        self.moduleName = moduleName
        self.prefixes = prefixes
    }

    /// Adds a route.
    /// - Parameters:
    ///   - path: the path pattern, under one of the module's prefixes.
    ///   - method: the HTTP method.
    ///   - handler: produces the response; runs concurrently with other requests.
    public func on(
        _ path: String,
        method: HTTPRequest.Method,
        use handler: @escaping @Sendable (Request, EmulatorRequestContext) async throws -> some ResponseGenerator
    ) {
        guard prefixes.contains(where: { EmulatorPaths.path(path, isUnder: $0) }) else {
            problems.append("module \(moduleName): route \(method.rawValue) \(path) is outside its prefixes \(prefixes)")
            return
        }
        router.on(RouterPath(path), method: method, use: handler)
        routes.append(Route(method: method.rawValue, path: path))
    }

    /// Adds a `GET` route.
    public func get(
        _ path: String,
        use handler: @escaping @Sendable (Request, EmulatorRequestContext) async throws -> some ResponseGenerator
    ) {
        on(path, method: .get, use: handler)
    }

    /// Adds a `POST` route.
    public func post(
        _ path: String,
        use handler: @escaping @Sendable (Request, EmulatorRequestContext) async throws -> some ResponseGenerator
    ) {
        on(path, method: .post, use: handler)
    }

    /// Adds a `PATCH` route.
    public func patch(
        _ path: String,
        use handler: @escaping @Sendable (Request, EmulatorRequestContext) async throws -> some ResponseGenerator
    ) {
        on(path, method: .patch, use: handler)
    }

    /// Adds a `DELETE` route.
    public func delete(
        _ path: String,
        use handler: @escaping @Sendable (Request, EmulatorRequestContext) async throws -> some ResponseGenerator
    ) {
        on(path, method: .delete, use: handler)
    }
}
