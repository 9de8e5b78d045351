import HTTPTypes
import Hummingbird

/// Collects a module's routes into a Hummingbird `RouteCollection`, which the emulator adds to its
/// router with `addRoutes(_:atPath:)`, and remembers them for the info route.
///
/// The builder is a Hummingbird `RouterMethods`, so modules use Hummingbird's own API on it:
/// `get`, `post`, `patch`, `delete`, `on`, `group`, `add(middleware:)`, and
/// `addRoutes(_:atPath:)` for a `RouteCollection` of their own. The built-in modules build one
/// collection per provider, with paths relative to a prefix and the provider's failure middleware
/// in front of every route, and add it at that prefix.
///
/// Why a builder rather than handing modules a `RouteCollection`: a collection keeps its routes
/// private, so neither the route list of the info route nor the check that a module's routes lie
/// under its prefixes can be made on one. The builder sees every route as it is added —
/// `addRoutes(_:atPath:)` hands it a collection's routes one by one through
/// ``on(_:method:responder:)`` — and only then passes it on to its own collection.
///
/// Paths use Hummingbird's syntax (`/auth0/api/v2/users/:id`, `/emulator/v1/projects/{id}/config`)
/// and must lie under one of the module's ``EmulatorModule/pathPrefixes``; a route outside them is
/// not registered and makes ``Emulator/start()`` fail, so modules cannot shadow each other.
///
/// A builder lives only while the emulator is being set up; it is not used across tasks.
public final class EmulatorRouteBuilder: RouterMethods {
    /// The request context of every emulator route.
    public typealias Context = EmulatorRequestContext

    /// One registered route.
    public struct Route: Sendable, Hashable, CustomStringConvertible {
        /// The HTTP method, e.g. `GET`.
        public var method: String
        /// The path pattern, captures written `:name`.
        public var path: String
        /// `METHOD path`.
        public var description: String { "\(method) \(path)" }
    }

    /// The routes accepted so far, for the emulator's `router.addRoutes(_:atPath:)`.
    let collection = RouteCollection(context: EmulatorRequestContext.self)
    let moduleName: String
    let prefixes: [String]
    private(set) var routes: [Route] = []
    private(set) var problems: [String] = []

    init(moduleName: String, prefixes: [String]) {
        self.moduleName = moduleName
        self.prefixes = prefixes
    }

    /// Adds a route when its path lies under one of the module's prefixes; otherwise records the
    /// problem (``Emulator/start()`` then fails) and drops the route.
    /// - Parameters:
    ///   - path: the path pattern.
    ///   - method: the HTTP method.
    ///   - responder: answers the requests; runs concurrently with other requests.
    /// - Returns: the builder.
    @discardableResult
    public func on<Responder: HTTPResponder>(
        _ path: RouterPath,
        method: HTTPRequest.Method,
        responder: Responder
    ) -> Self where Responder.Context == EmulatorRequestContext {
        let pattern = Self.pattern(of: path)
        guard prefixes.contains(where: { EmulatorPaths.path(pattern, isUnder: $0) }) else {
            problems.append("module \(moduleName): route \(method.rawValue) \(pattern) is outside its prefixes \(prefixes)")
            return self
        }
        _ = collection.on(path, method: method, responder: responder)
        routes.append(Route(method: method.rawValue, path: pattern))
        return self
    }

    /// Adds a middleware in front of the routes added after it.
    /// - Parameter middleware: the middleware.
    /// - Returns: the builder.
    @discardableResult
    public func add(middleware: any MiddlewareProtocol<Request, Response, EmulatorRequestContext>) -> Self {
        collection.add(middleware: middleware)
        return self
    }

    /// `path` as the info route lists it: Hummingbird's form, with a whole-segment capture
    /// written `:name` however it was registered (`{name}` or `:name`).
    static func pattern(of path: RouterPath) -> String {
        let segments = path.components.map { element -> String in
            let text = element.description
            guard text.count > 2, text.hasPrefix("{"), text.hasSuffix("}"), !text.dropFirst().dropLast().contains("{") else {
                return text
            }
            return ":" + text.dropFirst().dropLast()
        }
        return "/" + segments.joined(separator: "/")
    }
}
