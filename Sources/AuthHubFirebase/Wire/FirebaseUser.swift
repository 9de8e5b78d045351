import AuthHub
import Foundation

/// A Firebase user as `accounts:lookup` describes them (<doc:FirebaseEndpoints>: “Lookup” `UserInfo`), read tolerantly:
/// every field but `localId` is optional, numbers sent as strings (`createdAt`, `lastLoginAt`,
/// `validSince`) and as numbers (`passwordUpdatedAt`) are both accepted, unknown fields are kept in
/// ``raw``. `passwordHash` is never kept.
public struct FirebaseUser: Sendable, Hashable {
    /// The uid (`localId`).
    public var uid: String
    /// The email address (`email`).
    public var email: String?
    /// Whether the email address is verified (`emailVerified`).
    public var emailVerified: Bool
    /// The display name (`displayName`).
    public var displayName: String?
    /// The profile photo URL (`photoUrl`).
    public var photoURL: String?
    /// The phone number (`phoneNumber`).
    public var phoneNumber: String?
    /// Whether the account is disabled.
    public var disabled: Bool
    /// `createdAt` (sent as a string of epoch milliseconds).
    public var createdAt: Date?
    /// `lastLoginAt` (sent as a string of epoch milliseconds).
    public var lastLoginAt: Date?
    /// `passwordUpdatedAt` (epoch milliseconds, a number).
    public var passwordUpdatedAt: Date?
    /// `validSince` (a string of epoch seconds): tokens issued before it are rejected.
    public var validSince: Date?
    /// `lastRefreshAt` (RFC 3339), as sent.
    public var lastRefreshAt: String?
    /// `customAttributes`: the custom claims as a JSON string, as sent.
    public var customAttributes: String?
    /// `tenantId`, for Identity Platform tenants.
    public var tenantID: String?
    /// `initialEmail`.
    public var initialEmail: String?
    /// `emailLinkSignin`.
    public var emailLinkSignin: Bool?
    /// `customAuth`.
    public var customAuth: Bool?
    /// `providerUserInfo[]`: the linked sign-in methods.
    public var providers: [FirebaseUserProviderInfo]
    /// `mfaInfo[]`: the enrolled second factors.
    public var mfaEnrollments: [FirebaseMFAEnrollment]
    /// Every member of the reply except `passwordHash`.
    public var raw: [String: JSONValue]

    /// Reads a `users[]` entry.
    /// - Throws: ``AuthErrorCode/invalidRequest`` when it has no `localId`.
    public init(json: [String: JSONValue], provider: String = "firebase") throws {
        uid = try FirebaseReply.string("localId", in: json, provider: provider, what: "account lookup")
        email = json["email"]?.stringValue
        emailVerified = json["emailVerified"]?.firebaseBool ?? false
        displayName = json["displayName"]?.stringValue
        photoURL = json["photoUrl"]?.stringValue
        phoneNumber = json["phoneNumber"]?.stringValue
        disabled = json["disabled"]?.firebaseBool ?? false
        // Informational times: one outside 1970–9999 (or not a number) is left out, never converted.
        func date(_ key: String, divisor: Double) -> Date? {
            guard let seconds = json[key]?.firebaseNumber.map({ $0 / divisor }), SessionTimeLimits.isValidDate(seconds) else { return nil }
            return Date(timeIntervalSince1970: seconds)
        }
        createdAt = date("createdAt", divisor: 1000)
        lastLoginAt = date("lastLoginAt", divisor: 1000)
        passwordUpdatedAt = date("passwordUpdatedAt", divisor: 1000)
        validSince = date("validSince", divisor: 1)
        lastRefreshAt = json["lastRefreshAt"]?.stringValue
        customAttributes = json["customAttributes"]?.stringValue
        tenantID = json["tenantId"]?.stringValue
        initialEmail = json["initialEmail"]?.stringValue
        emailLinkSignin = json["emailLinkSignin"]?.firebaseBool
        customAuth = json["customAuth"]?.firebaseBool
        providers = json["providerUserInfo"]?.arrayValue?.map(FirebaseUserProviderInfo.init(json:)) ?? []
        mfaEnrollments = json["mfaInfo"]?.arrayValue?.map(FirebaseMFAEnrollment.init(json:)) ?? []
        var raw = json
        raw["passwordHash"] = nil
        raw["salt"] = nil
        self.raw = raw
    }

    /// The provider ids of the linked sign-in methods (`password`, `google.com`, …).
    public var providerIDs: [String] { providers.map(\.providerID) }

    /// The core ``UserInfo``: uid, email, verification, display name, and every non-secret field as claims.
    public var userInfo: UserInfo {
        UserInfo(id: uid, email: email, emailVerified: emailVerified, name: displayName, claims: raw)
    }
}
