import Foundation

/// A provider that signs in through the user's browser with an RFC 8252 loopback redirect — what
/// `authhub login --browser` and desktop apps use.
public protocol BrowserSignInProvider: AuthProvider {
    /// Listens on `127.0.0.1`, calls `open` with the sign-in URL (open a browser, or print it),
    /// waits for the one redirect and completes the sign-in (code exchange, ID-token validation).
    ///
    /// The loopback port is a free one, unless the provider's configuration sets a loopback
    /// `redirectURI` (`http://127.0.0.1:PORT/path`), which is then listened on as registered.
    /// - Parameters:
    ///   - timeout: how long to wait for the browser.
    ///   - options: per-sign-in choices (``BrowserSignInOptions``); options a provider cannot honour
    ///     are ``AuthErrorCode/unsupported``, never silently dropped.
    ///   - open: shows the authorization URL; it must return without waiting for the sign-in.
    /// - Throws: ``AuthErrorCode/timeout`` when no redirect arrives within `timeout`, and every
    ///   error of the flow (``AuthErrorCode/stateMismatch``, ``AuthErrorCode/accessDenied``, …).
    func signInWithBrowser(timeout: Duration, options: BrowserSignInOptions,
                           open: @Sendable (URL) async throws -> Void) async throws -> Session
}

extension BrowserSignInProvider {
    /// ``signInWithBrowser(timeout:options:open:)`` with the configuration's defaults.
    public func signInWithBrowser(timeout: Duration, open: @Sendable (URL) async throws -> Void) async throws -> Session {
        try await signInWithBrowser(timeout: timeout, options: BrowserSignInOptions(), open: open)
    }
}

/// Where a browser sign-in of this process can receive its redirect.
public enum LoopbackRedirect {
    /// The port and path of a configured redirect URI this process can listen on itself —
    /// `http://127.0.0.1:PORT/path` or `http://localhost:PORT/path` (IPv4 loopback) with an
    /// explicit port — or nil for any other URI (a server's callback, an app's custom scheme).
    public static func listenable(_ uri: URL) -> (port: UInt16, path: String)? {
        guard uri.scheme?.lowercased() == "http", let host = uri.host?.lowercased(),
              ["127.0.0.1", "localhost"].contains(host),
              let port = uri.port, (1...65_535).contains(port), uri.query == nil, uri.fragment == nil
        else { return nil }
        let path = uri.path.isEmpty ? "/" : uri.path
        return (UInt16(port), path)
    }
}
