import enum AuthHub.JSONValue
import AuthHubFactors
import Foundation

/// One user of the emulated tenant, in a database connection.
struct Auth0User: Sendable {
    /// `auth0|<24 hex digits>`, Auth0's form for database users.
    var userId: String
    /// The database connection, e.g. `Username-Password-Authentication`.
    var connection: String
    /// The email address, lower-cased.
    var email: String
    var username: String?
    var passwordHash: EmulatorPasswordHash?
    var emailVerified: Bool
    /// Root profile attributes given at signup or seeding (`name`, `given_name`, `picture`, …).
    var attributes: [String: JSONValue]
    var userMetadata: [String: JSONValue]
    /// Whether a password login must pass a second factor (`mfa_required`).
    var mfaRequired: Bool
    var totp: Auth0TOTPAuthenticator?
    var recovery: Auth0RecoveryAuthenticator?
    /// The WebAuthn user handle, for users created through passkey signup.
    var userHandle: [UInt8]? = nil
    /// Registered passkeys.
    var passkeys: [WebAuthnCredentialRecord] = []
    /// Out-of-band (SMS and email) authenticators, confirmed or pending.
    var oob: [Auth0OOBAuthenticator] = []
    var createdAt: Date
    var updatedAt: Date
    /// Push-notification authenticators enrolled through the My Account API (confirmed only).
    var push: [Auth0PushAuthenticator] = []
    /// What the My Account API keeps about the user's authentication methods (name, creation
    /// time, the credential of a passkey method), by method id.
    var methodDetails: [String: Auth0MethodDetails] = [:]
    /// `app_metadata` of the Management API (read-only for user-scoped tokens).
    var appMetadata: [String: JSONValue] = [:]
    /// Users linked into this one as secondary identities (Management API account linking),
    /// kept whole so that unlinking makes them users of their own again.
    var linked: [Auth0User] = []

    /// Whether a password login must pass a second factor: the seeded `mfa_required` flag, or a
    /// confirmed TOTP, SMS/voice or email authenticator (emulator convention: enrolling a second
    /// factor through the My Account API turns MFA on for the user, as an "always" policy would,
    /// and deleting the last one turns it off again unless the flag was seeded).
    var requiresSecondFactor: Bool {
        mfaRequired || totp?.confirmed == true || oob.contains(where: \.confirmed)
    }

    /// The identity provider of the user id, the part before `|` (`auth0`, `apple`, `email`, …).
    var provider: String { String(userId.split(separator: "|", maxSplits: 1).first ?? Substring(userId)) }

    /// The part of `user_id` after `auth0|`, which signup returns as `_id`.
    var shortId: String { String(userId.split(separator: "|", maxSplits: 1).last ?? Substring(userId)) }

    /// The user's claims for the granted scopes (ID token and `/userinfo`): `sub` always,
    /// `email`/`email_verified` with `email`, the profile attributes with `profile`.
    func claims(scopes: Set<String>) -> [String: JSONValue] {
        var claims: [String: JSONValue] = ["sub": .string(userId)]
        // Users of the `sms` connection have no email; they are named by their phone number.
        let fallbackName = email.isEmpty ? (attributes["phone_number"]?.stringValue ?? userId) : email
        if scopes.contains("profile") {
            claims["name"] = attributes["name"] ?? .string(fallbackName)
            claims["nickname"] = attributes["nickname"] ?? .string(String(fallbackName.split(separator: "@").first ?? ""))
            for key in ["given_name", "family_name", "middle_name", "picture", "locale", "zoneinfo", "website"] {
                if let value = attributes[key] { claims[key] = value }
            }
            claims["updated_at"] = .string(Auth0Tenant.timestamp(updatedAt))
        }
        if scopes.contains("email"), !email.isEmpty {
            claims["email"] = .string(email)
            claims["email_verified"] = .bool(emailVerified)
        }
        if scopes.contains("phone"), let phone = attributes["phone_number"] {
            claims["phone_number"] = phone
        }
        return claims
    }
}
