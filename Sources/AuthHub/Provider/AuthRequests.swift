import Foundation

/// The user's answer to a second-factor challenge (``SignInRequest/mfa(requirement:response:)``).
public enum MFAResponse: Sendable {
    /// A one-time password from an authenticator app (TOTP). Where the user has several enrolled
    /// TOTP factors (``MFARequirement/enrolledFactors``), the provider uses the first.
    case otp(Secret<String>)
    /// A recovery code (Auth0); the session's `secretExtras["recovery_code"]` holds a new one when
    /// the provider issues it.
    case recoveryCode(Secret<String>)
    /// An out-of-band code from a challenge (push, SMS or email via Auth0's `/mfa/challenge`), with
    /// the binding code the user typed when asked for one.
    case oob(code: Secret<String>, bindingCode: Secret<String>?)
}

/// How to sign in. Providers support a subset (see ``AuthProvider/capabilities``).
public enum SignInRequest: Sendable {
    /// Identifier (email or username) and password; `realm` selects a connection where the provider has them.
    case password(identifier: String, password: Secret<String>, realm: String? = nil, scope: String? = nil)
    /// A code sent earlier by ``AuthProvider/startSignIn(_:)`` to an email address.
    case emailCode(email: String, code: Secret<String>, context: Secret<String>? = nil)
    /// A code sent earlier to a phone number.
    case smsCode(phoneNumber: String, code: Secret<String>, context: Secret<String>? = nil)
    /// An authorization code from a browser redirect, with its PKCE verifier and redirect URI.
    case authorizationCode(code: Secret<String>, codeVerifier: Secret<String>?, redirectURI: String)
    /// An ID token from another identity provider (Apple, Google, …).
    case idToken(provider: String, token: Secret<String>, nonce: String? = nil)
    /// A passkey sign-in; the provider drives the authenticator.
    case passkey(identifier: String?)
    /// An anonymous guest session.
    case guest
    /// A provider-specific method, named and with parameters.
    case custom(name: String, parameters: [String: JSONValue], secrets: [String: Secret<String>] = [:])
    /// The second step of a sign-in that failed with ``AuthErrorCode/mfaRequired``: the error's
    /// ``AuthError/mfa`` requirement and the user's answer. The same for every provider with
    /// second factors (Auth0, Firebase); a provider without them throws ``AuthErrorCode/unsupported``.
    case mfa(requirement: MFARequirement, response: MFAResponse)

    /// A short name of the method for messages and logs (`password`, `emailCode`, …).
    public var methodName: String {
        switch self {
        case .password: "password"
        case .emailCode: "emailCode"
        case .smsCode: "smsCode"
        case .authorizationCode: "authorizationCode"
        case .idToken: "idToken"
        case .passkey: "passkey"
        case .guest: "guest"
        case .custom(let name, _, _): "custom(\(name))"
        case .mfa: "mfa"
        }
    }
}

/// The first step of a multi-step sign-in (passwordless codes).
public enum SignInStartRequest: Sendable {
    /// Send a one-time code (or link) to an email address.
    case emailCode(email: String)
    /// Send a one-time code to a phone number.
    case smsCode(phoneNumber: String)
}

/// What the first step of a multi-step sign-in returned.
public struct SignInChallenge: Sendable {
    /// Where the code went (masked where the provider masks it).
    public var destination: String
    /// An opaque value the second step needs (e.g. Auth0 `auth_session`), if any.
    public var context: Secret<String>?

    public init(destination: String, context: Secret<String>? = nil) {
        self.destination = destination
        self.context = context
    }
}

/// A new account.
public struct SignUpRequest: Sendable {
    public var email: String
    public var password: Secret<String>
    public var username: String?
    public var displayName: String?
    /// Provider-specific extra fields (e.g. Auth0 `user_metadata`).
    public var metadata: [String: JSONValue]

    public init(email: String, password: Secret<String>, username: String? = nil, displayName: String? = nil,
                metadata: [String: JSONValue] = [:]) {
        self.email = email
        self.password = password
        self.username = username
        self.displayName = displayName
        self.metadata = metadata
    }
}

/// The outcome of a sign-up: a session when the provider signs the user in at once, or nothing when
/// it requires a verification step first.
public enum SignUpResult: Sendable {
    case signedIn(Session)
    case verificationRequired(email: String)
}

/// The user, as the provider describes them.
public struct UserInfo: Sendable, Hashable, Codable {
    public var id: String
    public var email: String?
    public var emailVerified: Bool?
    public var name: String?
    /// Every claim or field the provider returned, non-secret.
    public var claims: [String: JSONValue]

    public init(id: String, email: String? = nil, emailVerified: Bool? = nil, name: String? = nil,
                claims: [String: JSONValue] = [:]) {
        self.id = id
        self.email = email
        self.emailVerified = emailVerified
        self.name = name
        self.claims = claims
    }
}
