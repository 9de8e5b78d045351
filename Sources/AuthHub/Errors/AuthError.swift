import Foundation

/// The one error type of AuthHub, whatever the provider.
///
/// Every provider maps its wire errors into an `AuthError` with a canonical ``code`` and keeps the
/// vendor's own code in ``providerCode``. Equality compares ``code`` only, so
/// `error == AuthError(.invalidCredentials)` reads naturally in tests and `catch` clauses.
///
/// ``message`` is safe to show a user: mappers never put tokens, passwords or codes in it.
///
/// An error is immutable once made. Match it by code in a `catch` clause or a `switch`:
///
/// ```swift
/// do { try await hub.signIn(.password(identifier: email, password: Secret(password))) }
/// catch AuthErrorCode.invalidCredentials { /* wrong email or password */ }
/// catch AuthErrorCode.mfaRequired { /* ask for a second factor: `.mfa(requirement:response:)` */ }
/// ```
public struct AuthError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The canonical code.
    public let code: AuthErrorCode
    /// The id of the provider (from providers.json) that produced the error, if any.
    public let provider: String?
    /// The provider's raw error code (e.g. `invalid_grant`, `EMAIL_EXISTS`).
    public let providerCode: String?
    /// The HTTP status of the reply that caused the error, if any.
    public let statusCode: Int?
    /// A human-readable message, safe to show a user: one line in which every character a terminal
    /// would act on (controls, C1, line separators, bidi overrides) is escaped (``TerminalText``);
    /// when that changed anything, the text as given is in `details["rawMessage"]`.
    public let message: String
    /// How long to wait before trying again, when the provider said so (`Retry-After`).
    public let retryAfter: Duration?
    /// Whether trying the same operation again may succeed.
    public let isRetryable: Bool
    /// The error that caused this one.
    public let underlying: (any Error & Sendable)?
    /// Set when ``code`` is ``AuthErrorCode/mfaRequired``: what the MFA step needs.
    public let mfa: MFARequirement?
    /// Further structured, non-secret details a flow may need (e.g. `description_name`).
    public let details: [String: String]

    /// Creates an error.
    /// - Parameters:
    ///   - code: the canonical code.
    ///   - message: a message safe to show a user; defaults to a generic text for the code.
    ///   - isRetryable: defaults to true for network, timeout, providerUnavailable and rateLimited.
    public init(
        _ code: AuthErrorCode,
        message: String? = nil,
        provider: String? = nil,
        providerCode: String? = nil,
        statusCode: Int? = nil,
        retryAfter: Duration? = nil,
        isRetryable: Bool? = nil,
        underlying: (any Error & Sendable)? = nil,
        mfa: MFARequirement? = nil,
        details: [String: String] = [:]
    ) {
        self.code = code
        // Text from outside (a provider's `error_description`, a claim) may hold characters a terminal
        // acts on: the message shows them escaped, on one line; the text as it came is kept in
        // `details["rawMessage"]` (see ``TerminalText``).
        let text = message ?? AuthError.defaultMessage(for: code)
        let shown = TerminalText.escape(text)
        var details = details
        if shown != text, details["rawMessage"] == nil { details["rawMessage"] = text }
        self.message = shown
        self.provider = provider
        self.providerCode = providerCode
        self.statusCode = statusCode
        self.retryAfter = retryAfter
        self.isRetryable = isRetryable ?? code.isTransientByDefault
        self.underlying = underlying
        self.mfa = mfa
        self.details = details
    }

    public static func == (lhs: AuthError, rhs: AuthError) -> Bool { lhs.code == rhs.code }

    /// One line: `code [provider providerCode, HTTP status]: message`.
    public var description: String {
        var parts: [String] = []
        if let provider { parts.append(provider) }
        if let providerCode { parts.append(providerCode) }
        if let statusCode { parts.append("HTTP \(statusCode)") }
        // The provider's code came from outside too.
        let context = parts.isEmpty ? "" : " [\(TerminalText.escape(parts.joined(separator: " ")))]"
        return "\(code.rawValue)\(context): \(message)"
    }

    public var errorDescription: String? { message }

    /// A copy with the given fields replaced. An `AuthError` is immutable; a plugin that adds context
    /// to an error it passes on (its provider id, the status of the reply) passes on such a copy.
    public func with(code: AuthErrorCode? = nil, message: String? = nil, provider: String? = nil,
                     statusCode: Int? = nil, retryAfter: Duration? = nil, isRetryable: Bool? = nil,
                     details: [String: String]? = nil) -> AuthError {
        AuthError(code ?? self.code, message: message ?? self.message, provider: provider ?? self.provider,
                  providerCode: providerCode, statusCode: statusCode ?? self.statusCode, retryAfter: retryAfter ?? self.retryAfter,
                  isRetryable: isRetryable ?? self.isRetryable, underlying: underlying, mfa: mfa, details: details ?? self.details)
    }

    /// Returns a copy with ``provider`` set when it was nil.
    public func attributed(to provider: String) -> AuthError {
        self.provider == nil ? with(provider: provider) : self
    }

    /// Wraps any error as an `AuthError`: an `AuthError` passes through, anything else becomes
    /// ``AuthErrorCode/unknown`` with the error kept as ``underlying``.
    public static func wrap(_ error: any Error, provider: String? = nil) -> AuthError {
        if let e = error as? AuthError { return provider.map { e.attributed(to: $0) } ?? e }
        if error is CancellationError {
            return AuthError(.userCancelled, message: "The operation was cancelled.", provider: provider,
                             underlying: error)
        }
        return AuthError(.unknown, message: "Unexpected error: \(type(of: error))", provider: provider,
                         underlying: error)
    }

    /// Whether signing in again (or stepping up with a second factor) is the way past this error:
    /// `mfaRequired`, `requiresRecentLogin`, `insufficientScope`, `sessionExpired`,
    /// `refreshTokenInvalid` and `noSession`. Flows move to a re-authentication state on these
    /// instead of failing.
    public var requiresReauthentication: Bool {
        switch code {
        case .mfaRequired, .requiresRecentLogin, .insufficientScope, .sessionExpired, .refreshTokenInvalid, .noSession: true
        default: false
        }
    }

    static func defaultMessage(for code: AuthErrorCode) -> String {
        switch code {
        case .invalidCredentials: "Wrong email, username or password."
        case .userNotFound: "No account was found."
        case .emailAlreadyInUse: "An account with this email already exists."
        case .weakPassword: "The password is not strong enough."
        case .passwordLeaked: "This password has appeared in a data breach; choose another."
        case .invalidEmail: "The email address is not valid."
        case .emailNotVerified: "The email address has not been verified."
        case .verificationRequired: "Verification is required before continuing."
        case .captchaRequired: "The provider wants to check that a person is signing in; continue in the browser."
        case .mfaRequired: "A second factor is required."
        case .mfaEnrollmentRequired: "A second factor must be enrolled first."
        case .invalidMFACode: "The verification code is wrong or expired."
        case .requiresRecentLogin: "Sign in again to continue."
        case .sessionExpired: "The session has expired; sign in again."
        case .noSession: "Not signed in."
        case .refreshTokenInvalid: "The session can no longer be renewed; sign in again."
        case .invalidToken: "A token failed validation."
        case .stateMismatch: "The sign-in response does not belong to this sign-in attempt."
        case .accessDenied: "Access was denied."
        case .insufficientScope: "The session lacks a permission this operation needs; sign in again to grant it."
        case .userCancelled: "The operation was cancelled."
        case .rateLimited: "Too many requests; try again later."
        case .network: "The identity provider could not be reached."
        case .timeout: "The identity provider did not answer in time."
        case .providerUnavailable: "The identity provider is unavailable."
        case .invalidRequest: "The request was invalid."
        case .invalidConfiguration: "The configuration is invalid."
        case .unsupported: "This operation is not supported."
        case .conflict: "The session was changed by another writer."
        case .storageFailure: "The session store failed."
        default: "Authentication failed (\(code.rawValue))."
        }
    }
}

/// What a provider asks for when a sign-in needs a second factor.
public struct MFARequirement: Sendable, Hashable, Codable {
    /// The token that continues the MFA step (Auth0 `mfa_token`, Firebase `mfaPendingCredential`).
    public var token: Secret<String>
    /// Factor kinds the user may use to challenge (e.g. `otp`, `oob`, `recovery-code`; Firebase
    /// `totp`, `phone`).
    public var challengeTypes: [String]
    /// Factor kinds the user may enroll, when enrollment is required.
    public var enrollTypes: [String]
    /// The user's enrolled second factors, where the provider lists them (Firebase `mfaInfo`): the
    /// provider's id for each (needed to finish with it), its kind and its display name.
    public var enrolledFactors: [EnrolledFactor]

    /// One enrolled second factor.
    public struct EnrolledFactor: Sendable, Hashable, Codable {
        /// The provider's id of the enrollment (Firebase `mfaEnrollmentId`).
        public var id: String
        /// `totp`, `phone`, …
        public var kind: String
        /// The name the user gave it, if any.
        public var displayName: String?

        public init(id: String, kind: String, displayName: String? = nil) {
            self.id = id
            self.kind = kind
            self.displayName = displayName
        }
    }

    public init(token: Secret<String>, challengeTypes: [String] = [], enrollTypes: [String] = [],
                enrolledFactors: [EnrolledFactor] = []) {
        self.token = token
        self.challengeTypes = challengeTypes
        self.enrollTypes = enrollTypes
        self.enrolledFactors = enrolledFactors
    }

    private enum CodingKeys: String, CodingKey { case token, challengeTypes, enrollTypes, enrolledFactors }

    /// Decodes a requirement; `enrolledFactors` is optional (earlier encodings have none).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        token = try container.decode(Secret<String>.self, forKey: .token)
        challengeTypes = try container.decodeIfPresent([String].self, forKey: .challengeTypes) ?? []
        enrollTypes = try container.decodeIfPresent([String].self, forKey: .enrollTypes) ?? []
        enrolledFactors = try container.decodeIfPresent([EnrolledFactor].self, forKey: .enrolledFactors) ?? []
    }
}
