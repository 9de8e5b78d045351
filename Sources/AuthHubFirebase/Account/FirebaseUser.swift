import AuthHub
import Foundation

/// A Firebase user as `accounts:lookup` describes them (<doc:FirebaseEndpoints>: “Lookup” `UserInfo`), read tolerantly:
/// every field but `localId` is optional, numbers sent as strings (`createdAt`, `lastLoginAt`,
/// `validSince`) and as numbers (`passwordUpdatedAt`) are both accepted, unknown fields are kept in
/// ``raw``. `passwordHash` is never kept.
public struct FirebaseUser: Sendable, Hashable, Codable {
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
    /// - Throws: a decoding error naming `localId` when it is missing or empty, or
    ///   (`providerUserInfo` and `mfaInfo` that are not lists are read as empty).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: FirebaseWireKey.self)
        func key(_ name: String) -> FirebaseWireKey { FirebaseWireKey(name) }
        guard let uid = c.firebaseString(key("localId")), !uid.isEmpty else {
            if c.contains(key("localId")) {
                throw DecodingError.dataCorruptedError(forKey: key("localId"), in: c, debugDescription: "empty or not a string")
            }
            throw DecodingError.keyNotFound(key("localId"), .init(codingPath: c.codingPath, debugDescription: "missing"))
        }
        self.uid = uid
        email = c.looseString(key("email"))
        emailVerified = c.firebaseBool(key("emailVerified")) ?? false
        displayName = c.looseString(key("displayName"))
        photoURL = c.looseString(key("photoUrl"))
        phoneNumber = c.looseString(key("phoneNumber"))
        disabled = c.firebaseBool(key("disabled")) ?? false
        // Informational times: one outside 1970–9999 (or not a number) is left out, never converted.
        func date(_ name: String, divisor: Double) -> Date? {
            guard let seconds = (try? c.firebaseNumber(key(name))).map({ $0 / divisor }),
                  SessionTimeLimits.isValidDate(seconds) else { return nil }
            return Date(timeIntervalSince1970: seconds)
        }
        createdAt = date("createdAt", divisor: 1000)
        lastLoginAt = date("lastLoginAt", divisor: 1000)
        passwordUpdatedAt = date("passwordUpdatedAt", divisor: 1000)
        validSince = date("validSince", divisor: 1)
        lastRefreshAt = c.looseString(key("lastRefreshAt"))
        customAttributes = c.looseString(key("customAttributes"))
        tenantID = c.looseString(key("tenantId"))
        initialEmail = c.looseString(key("initialEmail"))
        emailLinkSignin = c.firebaseBool(key("emailLinkSignin"))
        customAuth = c.firebaseBool(key("customAuth"))
        providers = ((try? c.decodeIfPresent([FirebaseUserProviderInfo].self, forKey: key("providerUserInfo"))) ?? nil) ?? []
        mfaEnrollments = ((try? c.decodeIfPresent([FirebaseMFAEnrollment].self, forKey: key("mfaInfo"))) ?? nil) ?? []
        // The whole entry is kept as open JSON: Firebase adds members over time, and callers read
        // them from `raw` (and as claims) without AuthHub knowing each one.
        var raw = try [String: JSONValue](from: decoder)
        raw["passwordHash"] = nil
        raw["salt"] = nil
        self.raw = raw
    }

    /// Writes the entry as it was read (``raw``, which holds every member but the password hash).
    public func encode(to encoder: any Encoder) throws {
        var raw = raw
        raw["localId"] = .string(uid)
        try raw.encode(to: encoder)
    }

    /// The provider ids of the linked sign-in methods (`password`, `google.com`, …).
    public var providerIDs: [String] { providers.map(\.providerID) }

    /// The core ``UserInfo``: uid, email, verification, display name, and every non-secret field as claims.
    public var userInfo: UserInfo {
        UserInfo(id: uid, email: email, emailVerified: emailVerified, name: displayName, claims: raw)
    }
}
