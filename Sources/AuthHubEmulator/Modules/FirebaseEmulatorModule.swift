import enum AuthHub.JSONValue

/// The Firebase Authentication share of the emulator, in the Firebase Auth Emulator URL form
/// (spec/firebase.md §2): the production URL with `https://` replaced by `http://HOST:PORT/`.
///
/// - `/identitytoolkit.googleapis.com/v1/accounts:<op>?key=…` (Identity Toolkit v1, and `/v2/…`)
/// - `/securetoken.googleapis.com/v1/token?key=…` (refresh)
/// - `/www.googleapis.com/identitytoolkit/v3/relyingparty/<rpc>?key=…` (legacy v3)
/// - `/emulator/v1/projects/{projectId}/…` (emulator-only helpers) and `/emulator/action?…`
///
/// With `"emulatorHost": "127.0.0.1:PORT"` in providers.json a Firebase client talks to these.
/// This skeleton serves only the info route (at `/identitytoolkit.googleapis.com/__emulator`).
public struct FirebaseEmulatorModule: EmulatorModule {
    public let name = "firebase"
    public let pathPrefixes = [
        "/identitytoolkit.googleapis.com",
        "/securetoken.googleapis.com",
        "/www.googleapis.com/identitytoolkit",
        "/emulator",
    ]

    public init() {}

    public func register(routes: EmulatorRouteBuilder, environment: EmulatorEnvironment) {}

    /// The Google API error envelope (spec/firebase.md §5) with code 404 and status `NOT_FOUND`.
    public func notFoundBody() -> JSONValue {
        [
            "error": [
                "code": 404,
                "message": "Not Found",
                "errors": [["message": "Not Found", "domain": "global", "reason": "notFound"]],
                "status": "NOT_FOUND",
            ]
        ]
    }
}
