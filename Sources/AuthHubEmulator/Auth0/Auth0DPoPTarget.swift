import Foundation
import Hummingbird

/// The URL a client used for a request, as the emulator reconstructs it for the `htu` check of a
/// DPoP proof (RFC 9449, section 4.3, check 9).
///
/// The scheme is the emulator's (`http`, from its base URL); host and port come from the request's
/// `Host` header (the name the client used — `localhost` and `127.0.0.1` are different URLs to the
/// client, so they are to the check); the path is the request's, as sent. `htu` matches when its
/// scheme and host are equal ignoring case, its port (or the scheme's default port) is equal, and
/// its path is equal after percent-decoding (an empty path is `/`); a query or fragment in `htu`
/// is ignored, as the RFC says.
struct Auth0DPoPTarget: Sendable, Equatable {
    var scheme: String
    var host: String
    var port: Int
    var path: String

    /// The target of `request` for an emulator whose base URL is `baseURL` (nil before it is known:
    /// `http` and the `Host` header alone).
    init?(request: Request, baseURL: URL?) {
        let scheme = baseURL?.scheme?.lowercased() ?? "http"
        let fallback = baseURL.flatMap { url in url.host.map { host in url.port.map { "\(host):\($0)" } ?? host } }
        guard let authority = request.head.authority ?? fallback, authority.utf8.count <= 300,
              let components = URLComponents(string: "\(scheme)://\(authority)/"),
              let host = components.host, !host.isEmpty
        else { return nil }
        self.scheme = scheme
        self.host = host.lowercased()
        self.port = components.port ?? Self.defaultPort(scheme)
        self.path = Self.normalizedPath(request.uri.path)
    }

    /// Whether the `htu` claim `htu` names this target.
    func matches(_ htu: String) -> Bool {
        guard let components = URLComponents(string: htu), let scheme = components.scheme?.lowercased(),
              let host = components.host?.lowercased(), components.user == nil, components.password == nil
        else { return false }
        let port = components.port ?? Self.defaultPort(scheme)
        return scheme == self.scheme && host == self.host && port == self.port
            && Self.normalizedPath(components.percentEncodedPath) == path
    }

    /// `path` percent-decoded (as sent when it does not decode), `/` for an empty one.
    static func normalizedPath(_ path: String) -> String {
        let decoded = path.removingPercentEncoding ?? path
        return decoded.isEmpty ? "/" : decoded
    }

    /// 443 for `https`, 80 otherwise.
    static func defaultPort(_ scheme: String) -> Int { scheme == "https" ? 443 : 80 }
}
