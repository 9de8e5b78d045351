import AuthHub
import Foundation

/// A Firebase ID token that passed ``FirebaseIDTokenVerifier`` (<doc:FirebaseEndpoints>: “ID-token verification” claims).
public struct FirebaseIDToken: Sendable, Hashable {
    /// Every claim of the payload (custom claims included, at top level).
    public var claims: [String: JSONValue]
    /// `sub`: the uid.
    public var uid: String
    /// `iat`.
    public var issuedAt: Date
    /// `exp`.
    public var expiresAt: Date
    /// `auth_time`: when the user originally signed in (stable across refreshes), when present.
    public var authTime: Date?
    /// Whether the token came unsigned from the Auth emulator (`alg: none`).
    public var isUnsigned: Bool

    /// `email`.
    public var email: String? { claims["email"]?.stringValue }
    /// `email_verified`.
    public var emailVerified: Bool? { claims["email_verified"]?.boolValue }
    /// `name`.
    public var name: String? { claims["name"]?.stringValue }
    /// `firebase.sign_in_provider` (`password`, `anonymous`, `custom`, …).
    public var signInProvider: String? { claims["firebase"]?["sign_in_provider"]?.stringValue }
    /// `firebase.sign_in_second_factor`, when the sign-in used a second factor.
    public var signInSecondFactor: String? { claims["firebase"]?["sign_in_second_factor"]?.stringValue }
    /// `firebase.tenant`, for Identity Platform tenants.
    public var tenant: String? { claims["firebase"]?["tenant"]?.stringValue }
}
