import enum AuthHub.JSONValue

/// One provider's share of the emulator: the routes under its path prefixes, speaking that
/// provider's wire format.
///
/// The emulator gives every module, without the module doing anything:
/// - an info route, `GET {first prefix}/__emulator` → `{"module","prefixes","routes"}`;
/// - a JSON 404 in the provider's style (``notFoundBody()``) for any path under one of its
///   prefixes that no route matches (including a known path with the wrong method);
/// - request logging without bodies or query strings.
///
/// Modules must not import a provider module (`AuthHubAuth0`, …): they implement the wire format
/// from the specs on their own, so that integration tests compare two independent readings.
public protocol EmulatorModule: Sendable {
    /// A short unique name (`auth0`, `firebase`, …).
    var name: String { get }

    /// The path prefixes the module owns, each starting with `/` and without a trailing `/`
    /// (e.g. `/auth0`). Prefixes match whole path segments: `/turnkey` does not own
    /// `/turnkey-proxy/x`. No two modules may share a prefix, and `/__authhub` is reserved.
    var pathPrefixes: [String] { get }

    /// Registers the module's routes.
    ///
    /// `routes` takes Hummingbird's route methods (`get`, `post`, `group`, …) and whole
    /// `RouteCollection`s through `addRoutes(_:atPath:)`. A handler answers a refusal by throwing
    /// an error that renders itself (Hummingbird's `HTTPResponseError`).
    /// - Parameters:
    ///   - routes: where to add routes; every route added is listed by the info route.
    ///   - environment: shared state, clock, randomness and logger for the handlers.
    func register(routes: EmulatorRouteBuilder, environment: EmulatorEnvironment)

    /// The body of a 404 for an unknown path under the module's prefixes, in the provider's error
    /// format. Default: `{"error":"not_found"}`.
    func notFoundBody() -> JSONValue

    /// Clears any state the module keeps outside ``EmulatorState`` (state kept there is reset by
    /// the emulator). Called by `POST /__authhub/reset`. Default: does nothing.
    func reset() async
}

extension EmulatorModule {
    public func notFoundBody() -> JSONValue { ["error": "not_found"] }

    public func reset() async {}

    /// The path of the module's info route: `{first prefix}/__emulator`.
    public var infoPath: String { (pathPrefixes.first ?? "/\(name)") + "/__emulator" }

    /// Whether `path` lies under one of the module's prefixes (whole segments only).
    public func owns(path: String) -> Bool {
        pathPrefixes.contains { EmulatorPaths.path(path, isUnder: $0) }
    }
}
