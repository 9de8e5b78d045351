import AuthHub
import Foundation

/// One enrolled second factor (`mfaInfo[]` of a sign-in that needs MFA, or of a user).
public struct FirebaseMFAEnrollment: Sendable, Hashable {
    /// `mfaEnrollmentId`.
    public var enrollmentID: String
    /// `displayName`, if set.
    public var displayName: String?
    /// `phone` (with `phoneInfo`), `totp` (with `totpInfo`), or `unknown`.
    public var factor: String
    /// The masked phone number of a phone factor (`phoneInfo`, e.g. `+*******1234`).
    public var phoneInfo: String?
    /// `enrolledAt` (RFC 3339), if present.
    public var enrolledAt: String?

    /// Creates an enrollment from values.
    public init(enrollmentID: String, displayName: String? = nil, factor: String, phoneInfo: String? = nil, enrolledAt: String? = nil) {
        self.enrollmentID = enrollmentID
        self.displayName = displayName
        self.factor = factor
        self.phoneInfo = phoneInfo
        self.enrolledAt = enrolledAt
    }

    /// Reads one `mfaInfo` entry (tolerant: every member optional).
    init(json: JSONValue) {
        let factor: String
        if json["phoneInfo"] != nil { factor = "phone" } else if json["totpInfo"] != nil { factor = "totp" } else { factor = "unknown" }
        self.init(enrollmentID: json["mfaEnrollmentId"]?.firebaseString ?? "", displayName: json["displayName"]?.stringValue,
                  factor: factor, phoneInfo: json["phoneInfo"]?.stringValue, enrolledAt: json["enrolledAt"]?.firebaseString)
    }
}
