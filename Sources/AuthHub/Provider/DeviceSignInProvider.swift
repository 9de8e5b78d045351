import Foundation

/// What a device authorization request (RFC 8628, section 3.2) gave: what to show the user, and
/// the device code to poll the token endpoint with.
///
/// Built only through ``init(deviceCode:userCode:verificationURI:verificationURIComplete:expiresIn:interval:now:provider:)``,
/// which range-checks every value from the server: a lifetime or interval that is missing, not a
/// number, zero, negative or absurd is refused or clamped, so that no reply can make a client wait
/// forever or poll in a tight loop.
public struct DeviceAuthorization: Sendable, CustomStringConvertible {
    /// The code the user types at ``verificationURI`` (e.g. `BDWP-HQPK`); meant to be shown.
    public let userCode: String
    /// Where the user enters ``userCode``.
    public let verificationURI: URL
    /// The same page with the code filled in (for a link or a QR code), when the server gave one.
    public let verificationURIComplete: URL?
    /// When the device code stops working.
    public let expiresAt: Date
    /// How long to wait between polls (the server's `interval`, 5 s when it gave none).
    public let interval: Duration
    /// The device code: a credential, sent only to the token endpoint.
    public let deviceCode: Secret<String>
    /// The DPoP key every poll proves, when the provider binds tokens to one (RFC 9449): made with
    /// the code, so all polls of one sign-in prove the same key.
    public var dpopKey: DPoPKey?

    /// The polling interval when the server names none (RFC 8628, section 3.2).
    public static let defaultInterval = 5
    /// The accepted `interval` range, in seconds: a shorter one is raised to 1 s, a longer one
    /// lowered to 60 s (the server answers `slow_down` if that is too fast for it).
    public static let intervalRange = 1...60
    /// The longest accepted `expires_in`, in seconds (30 minutes; providers use 5 to 15): a longer
    /// one is lowered to it, so that a client never waits for hours.
    public static let maxLifetime = 1_800

    /// Checks and keeps a device authorization reply.
    /// - Parameters:
    ///   - deviceCode: `device_code` (required, not empty, at most 2 KiB).
    ///   - userCode: `user_code` (required; 1 to 64 printable characters).
    ///   - verificationURI: `verification_uri` (required; an absolute http(s) URL).
    ///   - verificationURIComplete: `verification_uri_complete` (optional; ignored unless an absolute
    ///     http(s) URL).
    ///   - expiresIn: `expires_in` in seconds (required; positive and finite; clamped to ``maxLifetime``).
    ///   - interval: `interval` in seconds (optional; clamped to ``intervalRange``).
    ///   - now: when the reply arrived.
    ///   - provider: the provider id for errors.
    /// - Throws: ``AuthErrorCode/invalidRequest`` naming the field that is missing or malformed.
    public init(deviceCode: String?, userCode: String?, verificationURI: String?, verificationURIComplete: String?,
                expiresIn: Double?, interval: Double?, now: Date, provider: String) throws {
        func invalid(_ field: String, _ problem: String) -> AuthError {
            AuthError(.invalidRequest, message: "The device authorization reply's \(field) \(problem).", provider: provider,
                      details: ["field": field, "operation": AuthOperation.signIn.rawValue])
        }
        guard let deviceCode, !deviceCode.isEmpty else { throw invalid("device_code", "is missing") }
        guard deviceCode.utf8.count <= 2_048 else { throw invalid("device_code", "is too long") }
        guard let userCode, (1...64).contains(userCode.count), userCode.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F })
        else { throw invalid("user_code", "is missing or not a short printable code") }
        guard let uri = verificationURI.flatMap(Self.webURL) else { throw invalid("verification_uri", "is missing or not an http(s) URL") }
        guard let expiresIn else { throw invalid("expires_in", "is missing") }
        guard expiresIn.isFinite, expiresIn > 0 else { throw invalid("expires_in", "is not a positive number of seconds") }
        let lifetime = min(expiresIn, Double(Self.maxLifetime))
        var seconds = Self.defaultInterval
        if let interval {
            guard interval.isFinite else { throw invalid("interval", "is not a number of seconds") }
            seconds = Int(min(max(interval.rounded(.up), Double(Self.intervalRange.lowerBound)), Double(Self.intervalRange.upperBound)))
        }
        self.deviceCode = Secret(deviceCode)
        self.userCode = userCode
        self.verificationURI = uri
        self.verificationURIComplete = verificationURIComplete.flatMap(Self.webURL)
        self.expiresAt = now.addingTimeInterval(lifetime)
        self.interval = .seconds(seconds)
    }

    /// An absolute http(s) URL with a host, or nil.
    static func webURL(_ text: String) -> URL? {
        guard text.utf8.count <= 2_048, let url = URL(string: text), let scheme = url.scheme?.lowercased(),
              scheme == "https" || scheme == "http", url.host?.isEmpty == false else { return nil }
        return url
    }

    /// Shows what a user sees; never the device code.
    public var description: String {
        "DeviceAuthorization(userCode: \(userCode), verificationURI: \(verificationURI.absoluteString), expiresAt: \(expiresAt), interval: \(interval))"
    }
}

/// Per-sign-in choices of a device sign-in.
public struct DeviceSignInOptions: Sendable {
    /// Scopes to ask for instead of the configured ones (space-separated).
    public var scope: String?
    /// The API the access token is for (Auth0 `audience`; sent as a parameter to other providers).
    public var audience: String?

    public init(scope: String? = nil, audience: String? = nil) {
        self.scope = scope
        self.audience = audience
    }
}

/// One poll of the token endpoint with a device code.
public enum DevicePollResult: Sendable {
    /// `authorization_pending`: the user has not answered yet.
    case pending
    /// `slow_down`: poll less often (the interval grows by 5 seconds, RFC 8628, section 3.5).
    case slowDown
    /// The user approved: the new session (its ID token validated as for a browser sign-in).
    case approved(Session)
}

/// A provider that signs users in on a device without a browser (RFC 8628): the device shows a
/// code, the user approves on another device, the device polls for the tokens.
///
/// Drive it with a ``DeviceSignInFlow`` (``AuthHub/deviceSignIn(provider:account:options:)``), which
/// does the waiting and the polling rules.
public protocol DeviceSignInProvider: AuthProvider {
    /// Asks the provider for a device code and a user code.
    /// - Throws: ``AuthErrorCode/unsupported`` when the provider offers no device authorization;
    ///   ``AuthErrorCode/invalidRequest`` for a malformed reply; mapped provider errors.
    func startDeviceSignIn(options: DeviceSignInOptions) async throws -> DeviceAuthorization

    /// Polls the token endpoint once.
    /// - Throws: ``AuthErrorCode/accessDenied`` when the user denied; ``AuthErrorCode/timeout``
    ///   (`providerCode` `expired_token`) when the code expired; other mapped errors.
    func pollDeviceSignIn(_ authorization: DeviceAuthorization, options: DeviceSignInOptions) async throws -> DevicePollResult
}

extension AuthCapability {
    /// Signing in on a device without a browser (RFC 8628 device authorization).
    public static let deviceSignIn: AuthCapability = "deviceSignIn"
}
