import Foundation

/// A provider that signs in through the user's browser with an RFC 8252 loopback redirect — what
/// `authhub login --browser` and desktop apps use.
public protocol BrowserSignInProvider: AuthProvider {
    /// Listens on `127.0.0.1`, calls `open` with the sign-in URL (open a browser, or print it),
    /// waits for the one redirect and completes the sign-in (code exchange, ID-token validation).
    /// - Throws: ``AuthErrorCode/timeout`` when no redirect arrives within `timeout`, and every
    ///   error of the flow (``AuthErrorCode/stateMismatch``, ``AuthErrorCode/accessDenied``, …).
    func signInWithBrowser(timeout: Duration, open: @Sendable (URL) async throws -> Void) async throws -> Session
}
