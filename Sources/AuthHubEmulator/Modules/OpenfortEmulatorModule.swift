import enum AuthHub.JSONValue

/// The Openfort share of the emulator, under `/openfort`, standing in for
/// `https://api.openfort.io` (spec/openfort.md §1): the auth API arrives as
/// `/openfort/iam/v2/auth/…` and the user API as `/openfort/iam/v2/me`.
///
/// This skeleton serves only the info route; the flows are added by later work.
public struct OpenfortEmulatorModule: EmulatorModule {
    public let name = "openfort"
    public let pathPrefixes = ["/openfort"]

    public init() {}

    public func register(routes: EmulatorRouteBuilder, environment: EmulatorEnvironment) {}

    /// A flat better-auth error body (spec/openfort.md §6, shape 1) with code `NOT_FOUND`.
    public func notFoundBody() -> JSONValue {
        ["code": "NOT_FOUND", "message": "Not Found"]
    }
}
