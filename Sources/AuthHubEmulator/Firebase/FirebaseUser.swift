import enum AuthHub.JSONValue
import Foundation

/// One email/password account of the emulated Firebase project.
struct FirebaseUser: Sendable {
    /// What lookups report as `passwordHash`: base64 of `REDACTED`, as Firebase does for callers
    /// without the permission to read hashes. The real hash never leaves the emulator.
    static let redactedPasswordHash = "UkVEQUNURUQ="

    /// The uid: 28 letters and digits, like Firebase's.
    var localId: String
    /// The email address, lower-cased.
    var email: String?
    var passwordHash: EmulatorPasswordHash?
    var emailVerified: Bool = false
    var displayName: String? = nil
    var photoUrl: String? = nil
    var disabled: Bool = false
    /// Epoch seconds; ID tokens issued before it are `TOKEN_EXPIRED`, and so are refresh tokens.
    var validSince: Int
    var createdAt: Date
    var lastLoginAt: Date? = nil
    var passwordUpdatedAt: Date? = nil
    var lastRefreshAt: Date? = nil
    /// Second factors, each an object such as `{"mfaEnrollmentId","displayName","totpInfo":{},"enrolledAt"}`
    /// (enrolled with `mfaEnrollment:finalize`) or `{"mfaEnrollmentId","displayName","phoneInfo","enrolledAt"}`
    /// (seeded through the emulator-only hook); non-empty means password sign-in answers with
    /// `mfaPendingCredential` instead of tokens.
    var mfaInfo: [JSONValue] = []
    /// The Identity Platform tenant the account belongs to (nil: the project itself); ID tokens
    /// carry it as `firebase.tenant`, lookups as `tenantId`.
    var tenantId: String? = nil
    /// The user's TOTP factors by `mfaEnrollmentId` (each also listed in ``mfaInfo`` with `totpInfo`).
    var totpFactors: [String: FirebaseTOTPFactor] = [:]
    /// Set by the `:requireRecentLogin` emulator hook: sensitive changes (`accounts:delete`, a
    /// password or email change) answer `CREDENTIAL_TOO_OLD_LOGIN_AGAIN` until the user signs in
    /// again (password sign-in with tokens, or `mfaSignIn:finalize`), which clears it.
    var recentLoginRequired = false
    /// Set by the `:endSessionsOnMFAWithdraw` emulator hook: `mfaEnrollment:withdraw` removes the
    /// factor, bumps `validSince` (the account's tokens become `TOKEN_EXPIRED`) and answers `{}`,
    /// without tokens, as Identity Platform may (`WithdrawMfaResponse`'s tokens are optional).
    var mfaWithdrawEndsSessions = false

    /// The `UserInfo` object of `accounts:lookup` (AuthHubFirebase docs, FirebaseEndpoints: “Lookup”).
    var userInfo: JSONValue {
        var info: [String: JSONValue] = [
            "localId": .string(localId),
            "emailVerified": .bool(emailVerified),
            "validSince": .string(String(validSince)),
            "disabled": .bool(disabled),
            "createdAt": .string(Self.millis(createdAt)),
            "providerUserInfo": .array(providerUserInfo),
        ]
        if let email { info["email"] = .string(email) }
        if let displayName { info["displayName"] = .string(displayName) }
        if let photoUrl { info["photoUrl"] = .string(photoUrl) }
        if passwordHash != nil { info["passwordHash"] = .string(Self.redactedPasswordHash) }
        if let passwordUpdatedAt { info["passwordUpdatedAt"] = .number((passwordUpdatedAt.timeIntervalSince1970 * 1000).rounded(.down)) }
        if let lastLoginAt { info["lastLoginAt"] = .string(Self.millis(lastLoginAt)) }
        if let lastRefreshAt { info["lastRefreshAt"] = .string(Self.rfc3339(lastRefreshAt)) }
        if !mfaInfo.isEmpty { info["mfaInfo"] = .array(mfaInfo) }
        if let tenantId { info["tenantId"] = .string(tenantId) }
        return .object(info)
    }

    /// `providerUserInfo`: one `password` entry for a user with an email and a password.
    var providerUserInfo: [JSONValue] {
        guard let email, passwordHash != nil else { return [] }
        var entry: [String: JSONValue] = [
            "providerId": "password", "rawId": .string(email), "federatedId": .string(email), "email": .string(email),
        ]
        if let displayName { entry["displayName"] = .string(displayName) }
        if let photoUrl { entry["photoUrl"] = .string(photoUrl) }
        return [.object(entry)]
    }

    /// Epoch milliseconds as a decimal string.
    static func millis(_ date: Date) -> String {
        String(Int64((date.timeIntervalSince1970 * 1000).rounded(.down)))
    }

    /// RFC 3339 with milliseconds, UTC (`2026-01-01T00:00:00.000Z`).
    static func rfc3339(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    /// Whole epoch seconds.
    static func seconds(_ date: Date) -> Int {
        Int(date.timeIntervalSince1970.rounded(.down))
    }
}
