import enum AuthHub.JSONValue

/// The Auth0 share of the emulator, under `/auth0`.
///
/// A tenant's paths hang off the domain (spec/auth0.md §0), so with the domain
/// `http://127.0.0.1:PORT/auth0` in providers.json the SDK's `/oauth/token` arrives here as
/// `/auth0/oauth/token`, `/.well-known/jwks.json` as `/auth0/.well-known/jwks.json`, the My Account
/// API as `/auth0/me/v1/…` and the Management API as `/auth0/api/v2/…`.
///
/// This skeleton serves only the info route; the flows are added by later work.
public struct Auth0EmulatorModule: EmulatorModule {
    public let name = "auth0"
    public let pathPrefixes = ["/auth0"]

    public init() {}

    public func register(routes: EmulatorRouteBuilder, environment: EmulatorEnvironment) {}

    /// Auth0's 404 for an unknown path, in the `{statusCode, error, message}` shape its APIs use
    /// for errors outside OAuth (spec/auth0.md §7).
    public func notFoundBody() -> JSONValue {
        ["statusCode": 404, "error": "Not Found", "message": "Not Found"]
    }
}
