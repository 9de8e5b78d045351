import Foundation

/// An MFA transaction opened by `mfa_required`.
struct Auth0MFATransaction: Sendable {
    var grant: Auth0Grant
    var expiresAt: Date
}
