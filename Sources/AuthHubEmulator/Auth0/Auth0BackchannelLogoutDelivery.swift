import enum AuthHub.JSONValue
import Foundation

/// One back-channel logout delivery the emulated Auth0 tenant attempted: a logout token POSTed to
/// one of a client's `oidc_logout.backchannel_logout_urls` (OpenID Connect Back-Channel Logout 1.0,
/// section 2.5), with its outcome.
///
/// Deliveries are recorded, oldest first, when a browser session ends at `GET /auth0/v2/logout` and
/// when `POST /auth0/__emulator/logout-token` is asked to send; read them with
/// `GET /auth0/__emulator/backchannel-logouts` or ``RunningEmulator/auth0BackchannelLogouts(clientId:)``.
/// The emulator keeps the last 1,000.
public struct Auth0BackchannelLogoutDelivery: Sendable, Hashable {
    /// The client (the logout token's `aud`).
    public var clientId: String
    /// The back-channel logout URL the token was POSTed to.
    public var url: String
    /// The logout token's `sid`, nil when it had none.
    public var sessionId: String?
    /// The logout token's `sub`, nil when it had none.
    public var subject: String?
    /// The logout token's `jti`.
    public var jti: String?
    /// The logout token itself (compact JWS), so that a test can replay it.
    public var logoutToken: String
    /// The HTTP status the receiver answered (a redirect is not followed: its 3xx status is
    /// recorded); nil when there was no answer.
    public var status: Int?
    /// Why there was no answer (connection refused, the 5-second timeout, a URL refused by the
    /// emulator), nil when there was one.
    public var error: String?
    /// When the delivery was made, by the emulator's clock.
    public var sentAt: Date

    /// Whether the receiver acknowledged the logout: it answered 200 (section 2.8: "If the logout
    /// succeeded, the RP MUST respond with HTTP 200 OK"; 204 is also accepted here, as many
    /// frameworks answer an empty body so).
    public var succeeded: Bool { status == 200 || status == 204 }

    /// The most back-channel logout URLs one client may register (Auth0 takes one today; the
    /// emulator allows a few, so that one session's logout can reach several receivers).
    static let maximumURLs = 10
    /// The longest back-channel logout URL accepted.
    static let maximumURLLength = 2_048
    /// How long one delivery may take before it is recorded as failed.
    static let timeout = Duration.seconds(5)
    /// The logout token's lifetime (`exp` − `iat`), two minutes.
    static let tokenLifetime: TimeInterval = 120
    /// The `events` member that makes a JWT a logout token (section 2.4).
    static let event = "http://schemas.openid.net/event/backchannel-logout"
    /// The JOSE header `typ` of a logout token, as section 2.4 recommends (`application/logout+jwt`
    /// without the `application/` prefix, RFC 7515, section 4.1.9).
    static let tokenType = "logout+jwt"

    /// Whether the emulator may send logout tokens to `url`: an absolute `http` or `https` URL
    /// without user information or a fragment, with a port (when it has one) of 1…65535, whose host is a loopback address (`127.0.0.0/8`,
    /// `::1`) or `localhost`, at most ``maximumURLLength`` characters. Auth0 itself requires public
    /// HTTPS endpoints; an emulator for tests talks to receivers on the same machine only.
    static func isAcceptable(_ url: String) -> Bool {
        guard url.utf8.count <= maximumURLLength, let components = URLComponents(string: url),
              let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
              components.user == nil, components.password == nil, components.fragment == nil,
              let host = components.host?.lowercased(), !host.isEmpty,
              components.port.map({ (1...65_535).contains($0) }) ?? true
        else { return false }
        return isLoopback(host)
    }

    /// Whether `host` (as `URLComponents` gives it: IPv6 without brackets on Linux, with them on
    /// some platforms) names the loopback interface.
    static func isLoopback(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if bare == "localhost" || bare == "::1" || bare == "0:0:0:0:0:0:0:1" { return true }
        let octets = bare.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4, octets[0] == "127" else { return false }
        return octets.allSatisfy { octet in
            (1...3).contains(octet.utf8.count) && octet.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
                && (Int(octet) ?? 256) <= 255
        }
    }

    /// The JSON form of the test-control routes: `{client_id, url, sid, sub, jti, logout_token,
    /// status, error, sent_at}` (`sid`, `sub`, `jti`, `status`, `error` null when absent).
    var json: JSONValue {
        [
            "client_id": .string(clientId), "url": .string(url),
            "sid": sessionId.map(JSONValue.string) ?? .null, "sub": subject.map(JSONValue.string) ?? .null,
            "jti": jti.map(JSONValue.string) ?? .null, "logout_token": .string(logoutToken),
            "status": status.map { .number(Double($0)) } ?? .null, "error": error.map(JSONValue.string) ?? .null,
            "sent_at": .string(Auth0Tenant.timestamp(sentAt)),
        ]
    }
}
