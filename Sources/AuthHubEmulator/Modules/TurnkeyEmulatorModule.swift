import enum AuthHub.JSONValue

/// The Turnkey share of the emulator (spec/turnkey.md §1–2):
/// - `/turnkey/…` stands in for `https://api.turnkey.com` (`/turnkey/public/v1/query/<name>`,
///   `/turnkey/public/v1/submit/<name>`);
/// - `/turnkey-proxy/…` stands in for the app's proxy (the app-backend proxy such as
///   `/turnkey-proxy/proxy/sub-org-ids`, or Turnkey's auth proxy `/turnkey-proxy/v1/account`).
///
/// This skeleton serves only the info route (at `/turnkey/__emulator`).
public struct TurnkeyEmulatorModule: EmulatorModule {
    public let name = "turnkey"
    public let pathPrefixes = ["/turnkey", "/turnkey-proxy"]

    public init() {}

    public func register(routes: EmulatorRouteBuilder, environment: EmulatorEnvironment) {}

    /// Turnkey's gRPC-status body (spec/turnkey.md §7) with code 5 (`NOT_FOUND`).
    public func notFoundBody() -> JSONValue {
        ["code": 5, "message": "Not Found", "details": []]
    }
}
