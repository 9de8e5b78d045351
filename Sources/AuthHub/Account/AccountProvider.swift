import Foundation

/// A provider through which the signed-in user manages their own account: the methods they sign in
/// with, adding and removing factors, the password, the profile. What the account pages, the
/// headless account API (``AuthHub/accountMethods(provider:account:)`` and its siblings) and
/// `authhub account` drive, the same for every provider.
///
/// Every operation gets the ``SessionManager`` of the signed-in session: it reads a valid session
/// from it (renewed when needed), exchanges tokens through it where the provider's account API
/// wants its own (Auth0's My Account audience), and stores the session the provider answers with
/// when an operation issues new tokens (Firebase after a password change or an enrollment). An
/// operation the provider lacks throws ``AuthErrorCode/unsupported``; ``accountCapabilities`` says
/// beforehand what it has.
///
/// Sensitive operations (enrolling or removing a method, the password, the email, deleting the
/// account) may throw an error for which ``AuthError/requiresReauthentication`` holds (a sign-in
/// that is too old, a missing step-up): sign the user in again, then repeat the operation.
public protocol AccountProvider: AuthProvider {
    /// What the signed-in user can do here; the default is none.
    var accountCapabilities: Set<AccountCapability> { get }
    /// The user's sign-in methods and factors.
    func accountMethods(_ manager: SessionManager) async throws -> [AccountMethod]
    /// Starts adding a method; the challenge says what to show the user.
    func startMethodEnrollment(_ request: MethodEnrollmentRequest, options: MethodEnrollmentOptions,
                               manager: SessionManager) async throws -> MethodEnrollmentChallenge
    /// Finishes adding a method with the user's response; returns the method when the provider
    /// names it.
    func confirmMethodEnrollment(_ challenge: MethodEnrollmentChallenge, response: MethodEnrollmentResponse,
                                 manager: SessionManager) async throws -> AccountMethod?
    /// Removes a method (one of ``accountMethods(_:)``).
    func deleteMethod(_ method: AccountMethod, manager: SessionManager) async throws
    /// Changes the password (`current` where the provider asks for it).
    func changePassword(current: Secret<String>?, new: Secret<String>, manager: SessionManager) async throws
    /// Changes the display name or the email address.
    func changeProfile(_ change: AccountProfileChange, manager: SessionManager) async throws -> AccountProfileChangeResult
}

extension AccountProvider {
    public var accountCapabilities: Set<AccountCapability> { [] }
    public func accountMethods(_ manager: SessionManager) async throws -> [AccountMethod] {
        throw unsupported("listing sign-in methods")
    }
    public func startMethodEnrollment(_ request: MethodEnrollmentRequest, options: MethodEnrollmentOptions,
                                      manager: SessionManager) async throws -> MethodEnrollmentChallenge {
        throw unsupported("enrolling \(request.kind)")
    }
    public func confirmMethodEnrollment(_ challenge: MethodEnrollmentChallenge, response: MethodEnrollmentResponse,
                                        manager: SessionManager) async throws -> AccountMethod? {
        throw unsupported("enrolling \(challenge.kind)")
    }
    public func deleteMethod(_ method: AccountMethod, manager: SessionManager) async throws {
        throw unsupported("removing a sign-in method")
    }
    public func changePassword(current: Secret<String>?, new: Secret<String>, manager: SessionManager) async throws {
        throw unsupported("changing the password")
    }
    public func changeProfile(_ change: AccountProfileChange, manager: SessionManager) async throws -> AccountProfileChangeResult {
        throw unsupported("changing the profile")
    }
}
