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
package struct FirebaseTOTPSessionInfo: Sendable, Codable {
    /// `sharedSecretKey`: the new secret, base32 (as the SDKs put it into the `otpauth://` URI).
    package var sharedSecretKey: Secret<String>
    /// `verificationCodeLength`: digits per code (6 in practice).
    package var verificationCodeLength: Int
    /// `hashingAlgorithm`: the HMAC name, e.g. `SHA1`.
    package var hashingAlgorithm: String
    /// `periodSec`: seconds per code (30 in practice).
    package var periodSec: Int
    /// `sessionInfo`: the opaque value `mfaEnrollment:finalize` sends back.
    package var sessionInfo: Secret<String>
    /// `finalizeEnrollmentTime`: the deadline for finishing the enrollment (a timestamp string), if sent.
    package var finalizeEnrollmentTime: String?

    /// Creates a value.
    package init(sharedSecretKey: Secret<String>, verificationCodeLength: Int, hashingAlgorithm: String, periodSec: Int,
                sessionInfo: Secret<String>, finalizeEnrollmentTime: String? = nil) {
        self.sharedSecretKey = sharedSecretKey
        self.verificationCodeLength = verificationCodeLength
        self.hashingAlgorithm = hashingAlgorithm
        self.periodSec = periodSec
        self.sessionInfo = sessionInfo
        self.finalizeEnrollmentTime = finalizeEnrollmentTime
    }

    enum CodingKeys: String, CodingKey {
        case sharedSecretKey, verificationCodeLength, hashingAlgorithm, periodSec, sessionInfo, finalizeEnrollmentTime
    }

    /// Reads `totpSessionInfo`.
    /// - Throws: a decoding error naming the member that is missing or out of range (never its value).
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func invalid(_ key: CodingKeys) -> DecodingError {
            DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "out of range")
        }
        func whole(_ key: CodingKeys, _ range: ClosedRange<Double>) throws -> Int {
            guard let value = try c.firebaseNumber(key) else {
                throw DecodingError.keyNotFound(key, .init(codingPath: c.codingPath, debugDescription: "missing"))
            }
            guard range.contains(value), value.rounded() == value else { throw invalid(key) }
            return Int(value)
        }
        let secret = try c.decode(String.self, forKey: .sharedSecretKey)
        guard (1...1_024).contains(secret.count) else { throw invalid(.sharedSecretKey) }
        let digits = try whole(.verificationCodeLength, 6...8)
        let algorithm = try c.decode(String.self, forKey: .hashingAlgorithm)
        guard (1...32).contains(algorithm.count) else { throw invalid(.hashingAlgorithm) }
        let period = try whole(.periodSec, 1...3_600)
        let session = try c.decode(String.self, forKey: .sessionInfo)
        guard (1...4_096).contains(session.count) else { throw invalid(.sessionInfo) }
        let deadline = c.firebaseString(.finalizeEnrollmentTime).flatMap { $0.count <= 64 ? $0 : nil }
        self.init(sharedSecretKey: Secret(secret), verificationCodeLength: digits, hashingAlgorithm: algorithm,
                  periodSec: period, sessionInfo: Secret(session), finalizeEnrollmentTime: deadline)
    }
}
