import AuthHub
import Foundation

/// The `totpSessionInfo` of a `v2/accounts/mfaEnrollment:start` reply (firebase-js-sdk
/// `StartTotpMfaEnrollmentResponse`, firebase-ios-sdk `AuthProtoStartMFATOTPEnrollmentResponseInfo`):
/// `{sharedSecretKey, verificationCodeLength, hashingAlgorithm, periodSec, sessionInfo,
/// finalizeEnrollmentTime}`.
///
/// Every value is range-checked when read: the secret is 1 to 1,024 base32 characters, the code
/// length 6 to 8 digits (what authenticator apps and RFC 4226 allow), the period 1 to 3,600
/// seconds, `sessionInfo` 1 to 4,096 characters.
public struct FirebaseTOTPSessionInfo: Sendable {
    /// `sharedSecretKey`: the new secret, base32 (as the SDKs put it into the `otpauth://` URI).
    public var sharedSecretKey: Secret<String>
    /// `verificationCodeLength`: digits per code (6 in practice).
    public var verificationCodeLength: Int
    /// `hashingAlgorithm`: the HMAC name, e.g. `SHA1`.
    public var hashingAlgorithm: String
    /// `periodSec`: seconds per code (30 in practice).
    public var periodSec: Int
    /// `sessionInfo`: the opaque value `mfaEnrollment:finalize` sends back.
    public var sessionInfo: Secret<String>
    /// `finalizeEnrollmentTime`: the deadline for finishing the enrollment (a timestamp string), if sent.
    public var finalizeEnrollmentTime: String?

    /// Creates a value.
    public init(sharedSecretKey: Secret<String>, verificationCodeLength: Int, hashingAlgorithm: String, periodSec: Int,
                sessionInfo: Secret<String>, finalizeEnrollmentTime: String? = nil) {
        self.sharedSecretKey = sharedSecretKey
        self.verificationCodeLength = verificationCodeLength
        self.hashingAlgorithm = hashingAlgorithm
        self.periodSec = periodSec
        self.sessionInfo = sessionInfo
        self.finalizeEnrollmentTime = finalizeEnrollmentTime
    }

    /// Reads `totpSessionInfo` of a reply.
    /// - Throws: ``AuthErrorCode/invalidRequest`` naming the member that is missing or out of range (never its value).
    static func read(_ reply: [String: JSONValue], provider: String) throws -> FirebaseTOTPSessionInfo {
        let what = "mfaEnrollment:start"
        func bad(_ member: String) -> AuthError {
            AuthError(.invalidRequest, message: "The \(what) reply from '\(provider)' has no valid totpSessionInfo.\(member).", provider: provider)
        }
        guard let info = reply["totpSessionInfo"]?.objectValue else { throw bad("") }
        guard let secret = info["sharedSecretKey"]?.stringValue, (1...1_024).contains(secret.count) else { throw bad("sharedSecretKey") }
        guard let digits = info["verificationCodeLength"]?.firebaseNumber, (6...8).contains(digits), digits.rounded() == digits else {
            throw bad("verificationCodeLength")
        }
        guard let algorithm = info["hashingAlgorithm"]?.stringValue, (1...32).contains(algorithm.count) else { throw bad("hashingAlgorithm") }
        guard let period = info["periodSec"]?.firebaseNumber, (1...3_600).contains(period), period.rounded() == period else {
            throw bad("periodSec")
        }
        guard let session = info["sessionInfo"]?.stringValue, (1...4_096).contains(session.count) else { throw bad("sessionInfo") }
        let deadline = info["finalizeEnrollmentTime"]?.firebaseString.flatMap { $0.count <= 64 ? $0 : nil }
        return FirebaseTOTPSessionInfo(sharedSecretKey: Secret(secret), verificationCodeLength: Int(digits), hashingAlgorithm: algorithm,
                                       periodSec: Int(period), sessionInfo: Secret(session), finalizeEnrollmentTime: deadline)
    }
}
