import Foundation

/// What the user asks to add (``AccountProvider/startMethodEnrollment(_:options:manager:)``).
public enum MethodEnrollmentRequest: Sendable, Hashable {
    /// An authenticator app: the challenge shows a QR code and the secret.
    case totp
    /// A passkey: the challenge holds WebAuthn creation options for the browser or authenticator.
    case passkey
    /// One-time codes to an email address: a code is sent to it.
    case emailCode(email: String)
    /// One-time codes to a phone number (E.164, `+` and digits): a code is sent by SMS.
    case phoneCode(phoneNumber: String)
    /// Recovery codes: the challenge shows them once; confirming acknowledges they were saved.
    case recoveryCodes

    /// The kind of method it adds.
    public var kind: FactorKind {
        switch self {
        case .totp: .totp
        case .passkey: .passkey
        case .emailCode: .emailCode
        case .phoneCode: .smsCode
        case .recoveryCodes: .recoveryCode
        }
    }
}

/// How a new method is presented to the user: what an authenticator app shows, and where a passkey
/// is used.
public struct MethodEnrollmentOptions: Sendable, Hashable {
    /// The issuer an authenticator app shows (the app's or tenant's name); the provider's default
    /// when nil.
    public var issuer: String?
    /// The account name an authenticator app shows; the user's email by default.
    public var accountName: String?
    /// The web origin a passkey is registered for (`https://app.example.com`), when the provider
    /// checks it.
    public var origin: String?
    /// A name for the new method (an authenticator's label), when the provider keeps one.
    public var name: String?

    public init(issuer: String? = nil, accountName: String? = nil, origin: String? = nil, name: String? = nil) {
        self.issuer = issuer
        self.accountName = accountName
        self.origin = origin
        self.name = name
    }
}

/// The first half of an enrollment: what to show the user, and what the provider needs to finish
/// it (``continuation``, opaque to everyone but the provider that made it).
public struct MethodEnrollmentChallenge: Sendable {
    /// What the user is shown.
    public enum Prompt: Sendable {
        /// Scan `uri` (an `otpauth://` URI, for a QR code) or type `secret` (base32) into an
        /// authenticator app, then answer with a code.
        case totp(uri: Secret<String>, secret: Secret<String>)
        /// Create a passkey with these options, then answer with the registration.
        case passkey(PasskeyRegistrationOptions)
        /// A code was sent to `destination` (as the provider shows it); answer with the code.
        case codeSent(destination: String)
        /// Recovery codes, shown once: answer ``MethodEnrollmentResponse/acknowledged`` once saved.
        case recoveryCodes([Secret<String>])
    }

    /// The kind of method being added.
    public let kind: FactorKind
    /// What to show.
    public let prompt: Prompt
    /// When the provider forgets the enrollment, if it says.
    public let expiresAt: Date?
    /// The provider's own state for the second half (an enrollment session, a method id): secret,
    /// read only by the provider that made it.
    public let continuation: Secret<String>
    /// Who keeps the method being added: the provider, or AuthHub (a held factor).
    public let source: AccountMethod.Source

    public init(kind: FactorKind, prompt: Prompt, expiresAt: Date? = nil, continuation: Secret<String>,
                source: AccountMethod.Source = .provider) {
        self.kind = kind
        self.prompt = prompt
        self.expiresAt = expiresAt
        self.continuation = continuation
        self.source = source
    }
}

/// The user's answer to a ``MethodEnrollmentChallenge``.
public enum MethodEnrollmentResponse: Sendable {
    /// A one-time code (from the app, the email or the SMS).
    case code(Secret<String>)
    /// A new passkey's registration.
    case passkey(PasskeyRegistration)
    /// The recovery codes were saved.
    case acknowledged
}

extension MethodEnrollmentChallenge {
    /// A challenge whose ``continuation`` is `state` as JSON (for a provider that keeps a few values
    /// between the two halves).
    public init(kind: FactorKind, prompt: Prompt, expiresAt: Date? = nil, state: some Encodable,
                source: AccountMethod.Source = .provider) throws {
        self.init(kind: kind, prompt: prompt, expiresAt: expiresAt,
                  continuation: Secret(String(decoding: try JSONEncoder().encode(state), as: UTF8.self)), source: source)
    }

    /// The ``continuation`` read back as `type`.
    /// - Throws: ``AuthErrorCode/invalidRequest`` when it is not (the challenge came from another
    ///   provider, or was made up).
    public func state<T: Decodable>(as type: T.Type, provider: String) throws -> T {
        guard let value = try? JSONDecoder().decode(T.self, from: Data(continuation.revealed().utf8)) else {
            throw AuthError(.invalidRequest, message: "That enrollment was not started by this provider.", provider: provider)
        }
        return value
    }
}
