import AuthHub
import Foundation

extension OpenfortProvider: GuestUpgradingProvider {
    /// `isAnonymous` of the session (<doc:OpenfortEndpoints>: “Sessions”).
    public func isGuest(_ session: Session) -> Bool { Self.isAnonymous(session) }

    /// Sign-up with the guest's token as Bearer: the guest's user becomes the account (openfort-js).
    public func signUp(_ request: SignUpRequest, upgrading guest: Session) async throws -> SignUpResult {
        try await signUp(request, callbackURL: nil, upgrading: guest)
    }

    /// Email-OTP sign-in with the guest's token as Bearer; other methods are not upgrades.
    public func signIn(_ request: SignInRequest, upgrading guest: Session) async throws -> Session {
        guard case .emailCode(let email, let code, _) = request else {
            throw unsupported("upgrading a guest with \(request.methodName)")
        }
        return try await signInWithEmailOTP(email: email, otp: code, upgrading: guest)
    }
}
