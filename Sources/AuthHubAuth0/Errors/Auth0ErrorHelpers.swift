import AuthHub

/// The boolean helpers of Auth0.swift's `AuthenticationError` (<doc:Auth0Errors>: “Helpers and canonical codes”), answered from an
/// ``AuthError`` made by the Authentication API's error mapper: `error.auth0.isInvalidCredentials`, ….
///
/// Each compares the raw vendor code and, where Auth0 overloads a code, the exact description.
public struct Auth0ErrorHelpers: Sendable, Hashable {
    /// The vendor code (`error`, else `code`).
    public var code: String
    /// The exact description Auth0 sent.
    public var description: String
    /// The DB-connection error class (`PasswordStrengthError`, …), if any.
    public var name: String?
    /// The HTTP status; 0 for a transport failure.
    public var statusCode: Int
    /// Whether the failure was the network's (no connection, DNS, timeout).
    public var isNetworkError: Bool

    /// Creates helpers from the raw parts.
    public init(code: String, description: String, name: String? = nil, statusCode: Int, isNetworkError: Bool = false) {
        self.code = code
        self.description = description
        self.name = name
        self.statusCode = statusCode
        self.isNetworkError = isNetworkError
    }

    /// `mfa_required` or `a0.mfa_required`.
    public var isMultifactorRequired: Bool { code == "mfa_required" || code == "a0.mfa_required" }
    /// `a0.mfa_registration_required` or `unsupported_challenge_type`.
    public var isMultifactorEnrollRequired: Bool { code == "a0.mfa_registration_required" || code == "unsupported_challenge_type" }
    /// `a0.mfa_invalid_code`, or `invalid_grant` about a wrong OTP or binding code or a rejected push.
    public var isMultifactorCodeInvalid: Bool {
        code == "a0.mfa_invalid_code"
            || (code == "invalid_grant" && ["Invalid otp_code.", "Invalid binding_code.", "MFA Authorization rejected."].contains(description))
    }
    /// An expired or malformed `mfa_token`.
    public var isMultifactorTokenInvalid: Bool {
        (code == "expired_token" && description == "mfa_token is expired") || (code == "invalid_grant" && description == "Malformed mfa_token")
    }
    /// `invalid_password` from a PasswordStrengthError.
    public var isPasswordNotStrongEnough: Bool { code == "invalid_password" && name == "PasswordStrengthError" }
    /// `invalid_password` from a PasswordHistoryError.
    public var isPasswordAlreadyUsed: Bool { code == "invalid_password" && name == "PasswordHistoryError" }
    /// `unauthorized`: a rule blocked the login (the description is the rule's message).
    public var isRuleError: Bool { code == "unauthorized" }
    /// Wrong email, phone, password or verification code.
    public var isInvalidCredentials: Bool {
        code == "invalid_user_password"
            || (code == "invalid_grant" && ["Wrong email or password.", "Wrong email or verification code.",
                                            "Wrong phone number or verification code."].contains(description))
    }
    /// The refresh token belongs to a deleted user.
    public var isRefreshTokenDeleted: Bool {
        code == "invalid_grant" && description == "The refresh_token was generated for a user who doesn't exist anymore."
    }
    /// The refresh token is unknown or invalid.
    public var isInvalidRefreshToken: Bool { code == "invalid_grant" && description == "Unknown or invalid refresh token." }
    /// `access_denied`.
    public var isAccessDenied: Bool { code == "access_denied" }
    /// `too_many_attempts`: the account is blocked after too many attempts.
    public var isTooManyAttempts: Bool { code == "too_many_attempts" }
    /// `requires_verification`.
    public var isVerificationRequired: Bool { code == "requires_verification" }
    /// `password_leaked`.
    public var isPasswordLeaked: Bool { code == "password_leaked" }
    /// `login_required`.
    public var isLoginRequired: Bool { code == "login_required" }
    /// `use_dpop_nonce`.
    public var isDPoPNonceRequired: Bool { code == "use_dpop_nonce" }
    /// A network error, HTTP 429 or a 5xx.
    public var isRetryable: Bool { isNetworkError || statusCode == 429 || (500...599).contains(statusCode) }
}

extension AuthError {
    /// The Auth0 helpers of this error (<doc:Auth0Errors>: “Helpers and canonical codes”). For an error that did not come from
    /// Auth0's reply (a transport failure), the code is the canonical one and the network
    /// classification comes from it.
    public var auth0: Auth0ErrorHelpers {
        Auth0ErrorHelpers(code: providerCode ?? code.rawValue, description: details["description"] ?? message,
                          name: details["name"], statusCode: statusCode ?? 0,
                          isNetworkError: code == .network || code == .timeout)
    }
}
