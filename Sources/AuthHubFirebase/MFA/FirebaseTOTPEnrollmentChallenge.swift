import AuthHub
import AuthHubFactors
import Foundation

/// What ``FirebaseAuth/startTOTPEnrollment(issuer:account:)`` returns: the new TOTP secret, ready
/// for an authenticator app, and the session value that finishes the enrollment.
///
/// The generator is built from the server's `totpSessionInfo` (base32 `sharedSecretKey`,
/// `hashingAlgorithm`, `verificationCodeLength`, `periodSec`), so codes computed with ``totp``
/// are the codes the server accepts. `description` never shows the secret.
public struct FirebaseTOTPEnrollmentChallenge: Sendable, CustomStringConvertible {
    /// The generator with the new secret.
    public let totp: TOTP
    /// The `otpauth://totp/…` URI to show as a QR code (the secret is in it: it is a ``Secret`` there too).
    public let uri: OTPAuthURI
    /// `sessionInfo`, sent back by ``FirebaseAuth/finalizeTOTPEnrollment(_:code:displayName:)``.
    public let sessionInfo: Secret<String>
    /// `finalizeEnrollmentTime`: the server's deadline for finishing, as sent (a timestamp string).
    public let finalizeBy: String?

    /// The secret as base32 (`sharedSecretKey`), for typing into an authenticator by hand.
    public var base32Secret: Secret<String> { totp.secret.map { Base32.encode($0) } }

    /// Builds the challenge from a `totpSessionInfo`.
    /// - Throws: ``AuthErrorCode/invalidRequest`` when the secret is not base32 or the algorithm,
    ///   digits or period are outside what TOTP supports (SHA1/SHA256/SHA512, 6–8 digits).
    package init(sessionInfo info: FirebaseTOTPSessionInfo, account: String, issuer: String?, provider: String) throws {
        func bad(_ what: String) -> AuthError {
            AuthError(.invalidRequest, message: "The mfaEnrollment:start reply from '\(provider)' has an unusable \(what).", provider: provider)
        }
        guard let algorithm = OTPAlgorithm(name: info.hashingAlgorithm) else { throw bad("hashingAlgorithm") }
        guard let secret = try? Base32.decode(info.sharedSecretKey.revealed()), !secret.isEmpty else { throw bad("sharedSecretKey") }
        guard let totp = try? TOTP(secret: Secret(secret), algorithm: algorithm, digits: info.verificationCodeLength, period: info.periodSec)
        else { throw bad("verificationCodeLength or periodSec") }
        guard let uri = try? OTPAuthURI(totp: totp, account: account.isEmpty ? "unknownuser" : account, issuer: issuer) else {
            throw bad("account name")
        }
        self.totp = totp
        self.uri = uri
        self.sessionInfo = info.sessionInfo
        self.finalizeBy = info.finalizeEnrollmentTime
    }

    /// The challenge without the secret.
    public var description: String { "FirebaseTOTPEnrollmentChallenge(\(uri), finalizeBy: \(finalizeBy ?? "unknown"))" }
}
