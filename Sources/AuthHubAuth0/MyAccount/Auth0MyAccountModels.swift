import AuthHub
import Foundation

/// An authentication method of the signed-in user (<doc:Auth0Endpoints>: “Response models”), with every member the API
/// returned in ``json``.
public struct Auth0AuthenticationMethod: Sendable, Hashable {
    /// The method id (`totp|dev_…`, `phone|dev_…`, a passkey's id, …).
    public var id: String
    /// `passkey`, `totp`, `phone`, `email`, `push-notification`, `recovery-code`, `password`, …
    public var type: String?
    /// Whether the enrollment was confirmed.
    public var confirmed: Bool?
    /// The name shown to the user.
    public var name: String?
    /// `primary` and/or `secondary`.
    public var usage: [String]
    /// The whole object as returned.
    public var json: JSONValue

    /// Reads an AuthenticationMethod object.
    /// - Throws: ``AuthErrorCode/invalidRequest`` when it is not an object with a string `id`.
    public init(json: JSONValue) throws {
        guard let id = json["id"]?.stringValue else {
            throw AuthError(.invalidRequest, message: "An authentication method from the My Account API has no id.")
        }
        self.id = id
        self.type = json["type"]?.stringValue
        self.confirmed = json["confirmed"]?.boolValue
        self.name = json["name"]?.stringValue
        self.usage = json["usage"]?.arrayValue?.compactMap(\.stringValue) ?? []
        self.json = json
    }
}

/// What to enroll (<doc:Auth0Endpoints>: “Starting an enrollment”).
public enum Auth0EnrollmentRequest: Sendable, Hashable {
    case passkey(identityUserID: String? = nil, connection: String? = nil)
    case totp
    case pushNotification
    case email(String)
    case phone(String, preferredMethod: String? = nil)
    case recoveryCode
    case password(identityUserID: String? = nil, connection: String? = nil)

    var body: [String: JSONValue] {
        switch self {
        case .passkey(let user, let connection):
            return Auth0AuthenticationAPI.body(["type": "passkey", "identity_user_id": user.map(JSONValue.string),
                                                "connection": connection.map(JSONValue.string)])
        case .totp: return ["type": "totp"]
        case .pushNotification: return ["type": "push-notification"]
        case .email(let email): return ["type": "email", "email": .string(email)]
        case .phone(let number, let preferred):
            return Auth0AuthenticationAPI.body(["type": "phone", "phone_number": .string(number),
                                                "preferred_authentication_method": preferred.map(JSONValue.string)])
        case .recoveryCode: return ["type": "recovery-code"]
        case .password(let user, let connection):
            return Auth0AuthenticationAPI.body(["type": "password", "identity_user_id": user.map(JSONValue.string),
                                                "connection": connection.map(JSONValue.string)])
        }
    }
}

/// A started enrollment (<doc:Auth0Endpoints>: “Starting an enrollment”): the method id (from the `Location` header), the
/// `auth_session` to confirm with, and what the user must see or do.
public struct Auth0EnrollmentChallenge: Sendable {
    /// What the enrollment shows the user.
    public enum Prompt: Sendable {
        /// Create a passkey with these options.
        case passkey(PasskeyRegistrationOptions)
        /// Scan this `otpauth://` (or Guardian) URI, or type the manual code; both contain the secret.
        case qrCode(uri: Secret<String>, manualInputCode: Secret<String>?)
        /// A code was sent (email, phone); type it.
        case codeSent
        /// Save this recovery code; it is shown once.
        case recoveryCode(Secret<String>)
        /// Choose a password meeting this policy.
        case password(policy: JSONValue?)
    }

    /// The authentication method id, percent-decoded from the last path component of `Location`.
    public var methodID: String
    /// `auth_session`, sent back with the confirmation.
    public var authSession: Secret<String>
    /// What to show.
    public var prompt: Prompt
}

/// The user's answer to an enrollment challenge (<doc:Auth0Endpoints>: “Confirming an enrollment”).
public enum Auth0EnrollmentResponse: Sendable {
    /// The code from the authenticator app, email or SMS.
    case code(Secret<String>)
    /// The new passkey.
    case passkey(PasskeyRegistration)
    /// The new password.
    case password(Secret<String>)
    /// Nothing to type (push notification approved, recovery code saved).
    case none
}
