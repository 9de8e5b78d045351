import AuthHub
import Foundation

/// One enrolled second factor (`mfaInfo[]` of a sign-in that needs MFA, or of a user).
public struct FirebaseMFAEnrollment: Sendable, Hashable, Codable {
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

    enum CodingKeys: String, CodingKey { case enrollmentID = "mfaEnrollmentId", displayName, phoneInfo, totpInfo, enrolledAt }

    /// Reads one `mfaInfo` entry (tolerant: every member optional).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let factor: String
        if c.contains(.phoneInfo) { factor = "phone" } else if c.contains(.totpInfo) { factor = "totp" } else { factor = "unknown" }
        self.init(enrollmentID: c.firebaseString(.enrollmentID) ?? "", displayName: c.looseString(.displayName),
                  factor: factor, phoneInfo: c.looseString(.phoneInfo), enrolledAt: c.firebaseString(.enrolledAt))
    }

    /// Writes the entry (`totpInfo: {}` for a TOTP factor).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        if !enrollmentID.isEmpty { try c.encode(enrollmentID, forKey: .enrollmentID) }
        try c.encodeIfPresent(displayName, forKey: .displayName)
        try c.encodeIfPresent(phoneInfo, forKey: .phoneInfo)
        if factor == "totp" { try c.encode([String: String](), forKey: .totpInfo) }
        try c.encodeIfPresent(enrolledAt, forKey: .enrolledAt)
    }
}
