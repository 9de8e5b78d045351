import AuthHub
import Foundation

/// Local enrollment of a TOTP authenticator app, as a two-phase ``Factor``.
///
/// ``start()`` draws a fresh random secret and returns a ``Challenge`` with the secret and the
/// `otpauth://` URI to show as a QR code (or the base32 key to type in). The user adds it to an
/// authenticator app and types the code it shows; ``confirm(_:response:)`` checks that code at the
/// injected clock's time and returns the enrolled ``Credential``, which records the step of the
/// code just used so it cannot be used again. Drive it with `FactorFlow` from a UI.
///
/// No network I/O happens here: the caller stores the credential (it is `Codable`, and contains
/// the secret, so store it like a password-equivalent: encrypted at rest).
public struct TOTPEnrollment: Factor {
    /// What ``start()`` returns: the new secret and the URI that provisions it.
    public struct Challenge: Sendable, CustomStringConvertible {
        /// The generator with the new secret and the enrollment's parameters.
        public let totp: TOTP
        /// The `otpauth://` URI for a QR code.
        public let uri: OTPAuthURI
        /// When the challenge was created (by the enrollment's clock).
        public let createdAt: Date

        /// The new shared secret.
        public var secret: Secret<[UInt8]> { totp.secret }
        /// The secret as unpadded base32, for typing into an authenticator by hand.
        public var base32Secret: Secret<String> { totp.secret.map { Base32.encode($0) } }
        /// The challenge with the secret redacted.
        public var description: String { "TOTPEnrollment.Challenge(\(uri))" }
    }

    /// An enrolled TOTP factor: the generator, who it belongs to, and the last accepted step.
    public struct Credential: Sendable, Equatable, Codable, CustomStringConvertible {
        /// The generator (secret and parameters).
        public let totp: TOTP
        /// The account name the authenticator shows.
        public let account: String
        /// The issuer name the authenticator shows.
        public let issuer: String?
        /// The time step of the last accepted code; codes of this step or earlier are refused.
        public private(set) var lastUsedStep: UInt64
        /// When the enrollment was confirmed.
        public let enrolledAt: Date

        /// Creates a credential, e.g. from storage or an import.
        ///
        /// - Parameters:
        ///   - totp: the generator.
        ///   - account: the account name.
        ///   - issuer: the issuer name.
        ///   - lastUsedStep: the step of the last accepted code.
        ///   - enrolledAt: when the enrollment was confirmed.
        public init(totp: TOTP, account: String, issuer: String?, lastUsedStep: UInt64, enrolledAt: Date) {
            self.totp = totp
            self.account = account
            self.issuer = issuer
            self.lastUsedStep = lastUsedStep
            self.enrolledAt = enrolledAt
        }

        /// Verifies a sign-in code and records its step, so the same code (or an older one) fails
        /// next time. Persist the credential after a success (with compare-and-swap when several
        /// servers may verify at once).
        ///
        /// - Parameters:
        ///   - code: the code the user typed.
        ///   - date: the current time.
        /// - Returns: the matched time step (now ``lastUsedStep``).
        /// - Throws: ``AuthError`` with code ``AuthErrorCode/invalidMFACode`` when the code is wrong,
        ///   outside the skew window, or not newer than the last accepted one.
        @discardableResult
        public mutating func verify(_ code: Secret<String>, at date: Date) throws -> UInt64 {
            let step = try totp.verify(code, at: date, after: lastUsedStep)
            lastUsedStep = step
            return step
        }

        /// The credential with the secret redacted.
        public var description: String {
            "TOTPEnrollment.Credential(account: \(account), issuer: \(issuer ?? "none"), \(totp), lastUsedStep: \(lastUsedStep))"
        }
    }

    /// Always ``FactorKind/totp``.
    public let kind: FactorKind = .totp
    /// The account name put in the URI.
    public let account: String
    /// The issuer name put in the URI.
    public let issuer: String?
    /// The HMAC hash function of new enrollments.
    public let algorithm: OTPAlgorithm
    /// The code length of new enrollments.
    public let digits: Int
    /// The time step of new enrollments, in seconds.
    public let period: Int
    /// The verification window of new enrollments, in steps before and after the current one.
    public let skew: Int
    /// The length of new secrets in bytes.
    public let secretLength: Int
    private let clock: any AuthClock
    private let random: any RandomSource

    /// Configures an enrollment.
    ///
    /// - Parameters:
    ///   - account: the account name shown in the authenticator; must not be empty.
    ///   - issuer: the service name shown in the authenticator.
    ///   - algorithm: SHA-1 by default (the one every authenticator app supports).
    ///   - digits: 6 (default), 7 or 8.
    ///   - period: the time step in seconds; 30 by default.
    ///   - skew: the verification window in steps; 1 by default.
    ///   - secretLength: the secret size in bytes; 20 (160 bits, RFC 4226's recommendation) by
    ///     default; at least 16 (RFC 4226's 128-bit minimum).
    ///   - clock: the time source for confirmation; inject a fake one in tests.
    ///   - random: the source of the secret; must be cryptographically secure in production.
    /// - Throws: ``AuthError`` with code ``AuthErrorCode/invalidConfiguration`` when a parameter is
    ///   out of range.
    public init(
        account: String,
        issuer: String?,
        algorithm: OTPAlgorithm = .sha1,
        digits: Int = 6,
        period: Int = 30,
        skew: Int = 1,
        secretLength: Int = 20,
        clock: any AuthClock = SystemClock(),
        random: any RandomSource = SystemRandom()
    ) throws {
        guard !account.isEmpty else {
            throw AuthError(.invalidConfiguration, message: "A TOTP enrollment needs an account name.")
        }
        guard secretLength >= 16 else {
            throw AuthError(.invalidConfiguration,
                            message: "A TOTP secret must be at least 16 bytes (128 bits); \(secretLength) is too short.")
        }
        // Validates digits, period and skew with the same rules (and messages) as TOTP itself.
        _ = try TOTP(secret: Secret([UInt8](repeating: 0, count: secretLength)), algorithm: algorithm,
                     digits: digits, period: period, skew: skew)
        self.account = account
        self.issuer = issuer
        self.algorithm = algorithm
        self.digits = digits
        self.period = period
        self.skew = skew
        self.secretLength = secretLength
        self.clock = clock
        self.random = random
    }

    /// Draws a new secret and builds the provisioning URI.
    ///
    /// - Returns: the challenge to show the user.
    /// - Throws: ``AuthError`` with code ``AuthErrorCode/invalidConfiguration`` when the random
    ///   source returns the wrong number of bytes.
    public func start() async throws -> Challenge {
        let bytes = random.bytes(secretLength)
        guard bytes.count == secretLength else {
            throw AuthError(.invalidConfiguration,
                            message: "The random source returned \(bytes.count) bytes instead of \(secretLength).")
        }
        let totp = try TOTP(secret: Secret(bytes), algorithm: algorithm, digits: digits, period: period, skew: skew)
        let uri = try OTPAuthURI(totp: totp, account: account, issuer: issuer)
        return Challenge(totp: totp, uri: uri, createdAt: clock.now)
    }

    /// Checks the first code from the user's authenticator and completes the enrollment.
    ///
    /// - Parameters:
    ///   - challenge: the challenge from ``start()``.
    ///   - response: the code the authenticator shows.
    /// - Returns: the enrolled credential, whose ``Credential/lastUsedStep`` is the step of this code.
    /// - Throws: ``AuthError`` with code ``AuthErrorCode/invalidMFACode`` when the code is wrong or
    ///   outside the skew window at the clock's current time.
    public func confirm(_ challenge: Challenge, response: Secret<String>) async throws -> Credential {
        let now = clock.now
        let step = try challenge.totp.verify(response, at: now)
        return Credential(totp: challenge.totp, account: challenge.uri.account, issuer: challenge.uri.issuer,
                          lastUsedStep: step, enrolledAt: now)
    }
}
