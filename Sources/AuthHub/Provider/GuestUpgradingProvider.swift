import Foundation

/// A provider with guest (anonymous) accounts that become real accounts in place — the same user,
/// keeping what the guest owned (Openfort: the guest's token is sent as Bearer with the sign-up).
///
/// ``AuthHub`` uses it so that signing up, or signing in with an emailed code, while signed in as a
/// guest upgrades that guest instead of replacing it.
public protocol GuestUpgradingProvider: AuthProvider {
    /// Whether `session` is a guest's.
    func isGuest(_ session: Session) -> Bool
    /// Creates an account for `guest`'s user.
    func signUp(_ request: SignUpRequest, upgrading guest: Session) async throws -> SignUpResult
    /// Signs in with `request` (an emailed code), attaching it to `guest`'s user; other requests
    /// are not upgrades and are refused with ``AuthErrorCode/unsupported``.
    func signIn(_ request: SignInRequest, upgrading guest: Session) async throws -> Session
}
