/// What a sign-in does when a session is already stored for its provider and account: the one rule
/// every entry point follows (``SessionManager/signIn(method:policy:upgradesGuest:isolation:_:)``).
///
/// The default, ``replace``, is what Firebase and Auth0.swift do when a user signs in again: the new
/// session replaces the stored one, and the old one is revoked at the provider *off the caller's
/// path* — in a detached task bounded by ``revocationTimeout``, whose failure is logged and counted
/// (``AuthTelemetry/MetricName/revocations``) but never delays or fails the new session.
///
/// ``refusing(providerCode:)`` keeps a vendor SDK's stricter rule (openfort-js: "already logged in,
/// sign out first"): the sign-in is refused with ``AuthErrorCode/conflict`` before any request.
///
/// Either way, a *guest* session of a ``GuestUpgradingProvider`` is not replaced by a sign-in that
/// upgrades guests (sign-up, an emailed code, OAuth): the guest's user becomes the account.
public struct SignInPolicy: Sendable, Equatable {
    /// What happens to a stored session.
    public enum WhileSignedIn: Sendable, Equatable {
        /// The new session replaces it; the old one is revoked in the background.
        case replace
        /// The sign-in is refused with ``AuthErrorCode/conflict`` carrying `providerCode`.
        case refuse(providerCode: String?)
    }

    /// What happens to a stored session.
    public var whileSignedIn: WhileSignedIn
    /// The longest a background revocation of a replaced session may take before it is abandoned
    /// (counted with outcome `timeout`); it never delays the sign-in.
    public var revocationTimeout: Duration

    /// - Parameters:
    ///   - whileSignedIn: replace (default) or refuse.
    ///   - revocationTimeout: the bound of a background revocation (10 s by default).
    public init(whileSignedIn: WhileSignedIn = .replace, revocationTimeout: Duration = .seconds(10)) {
        self.whileSignedIn = whileSignedIn
        self.revocationTimeout = revocationTimeout
    }

    /// Replace the stored session and revoke it in the background (the default of every entry point
    /// but ``refusing(providerCode:)``'s users).
    public static let replace = SignInPolicy()

    /// Refuse a sign-in while signed in (a vendor SDK's own rule), with `providerCode` on the error.
    public static func refusing(providerCode: String? = nil) -> SignInPolicy {
        SignInPolicy(whileSignedIn: .refuse(providerCode: providerCode))
    }
}
