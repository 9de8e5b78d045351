import AuthHub

/// An HMAC-based one-time password generator and verifier (RFC 4226).
///
/// A code is `Truncate(HMAC(secret, counter)) mod 10^digits`, where the counter is an 8-byte
/// big-endian integer and `Truncate` is RFC 4226's dynamic truncation. The same arithmetic, with a
/// time step as the counter, is ``TOTP``.
///
/// Codes are produced and taken as `Secret<String>`, so they never show up in logs. Verification
/// compares the presented code with every candidate in constant time and without stopping at the
/// first match, then returns the counter that matched: store `matched + 1` as the next expected
/// counter, which also makes a replayed code fail (its counter is then behind the window).
public struct HOTP: Sendable, Equatable, Codable, CustomStringConvertible {
    /// The digit counts this implementation accepts: 6, 7 or 8. RFC 4226, section 5.3 asks for at least 6;
    /// 8 is the most that authenticator apps and the Key Uri Format (and pyotp's URI parser) accept.
    public static let supportedDigits: ClosedRange<Int> = 6...8

    /// The shared secret (the HMAC key).
    public let secret: Secret<[UInt8]>
    /// The HMAC hash function.
    public let algorithm: OTPAlgorithm
    /// The number of decimal digits of a code.
    public let digits: Int

    /// Creates a generator.
    ///
    /// RFC 4226 asks for secrets of at least 128 bits (160 recommended); shorter non-empty secrets
    /// are accepted here because existing enrollments (80-bit keys were common) must keep working.
    /// New secrets should come from ``TOTPEnrollment``, which generates 160 bits by default.
    ///
    /// - Parameters:
    ///   - secret: the shared secret; must not be empty.
    ///   - algorithm: the HMAC hash function; SHA-1 by default.
    ///   - digits: the code length, 6 (default), 7 or 8.
    /// - Throws: ``AuthError`` with code ``AuthErrorCode/invalidConfiguration`` when the secret is
    ///   empty or `digits` is outside 6...8.
    public init(secret: Secret<[UInt8]>, algorithm: OTPAlgorithm = .sha1, digits: Int = 6) throws {
        guard !secret.revealed().isEmpty else {
            throw AuthError(.invalidConfiguration, message: "The OTP secret is empty.")
        }
        guard Self.supportedDigits.contains(digits) else {
            throw AuthError(.invalidConfiguration,
                            message: "An OTP code has 6, 7 or 8 digits; \(digits) is not supported.",
                            details: ["digits": String(digits)])
        }
        self.secret = secret
        self.algorithm = algorithm
        self.digits = digits
    }

    /// The code for a counter value.
    ///
    /// - Parameter counter: the moving factor (RFC 4226, section 5.2).
    /// - Returns: the zero-padded code, `digits` characters long.
    public func code(counter: UInt64) -> Secret<String> {
        Secret(String(decoding: codeBytes(counter: counter), as: UTF8.self))
    }

    /// Verifies a code against the counters `counter ... counter + lookAhead`.
    ///
    /// Every counter in the window is computed and compared in constant time, whatever matches.
    /// Spaces in the presented code are ignored (`123 456`). After a success, store the returned
    /// counter plus one as the next `counter`; codes at or before the returned counter then fail,
    /// so a code cannot be used twice.
    ///
    /// - Parameters:
    ///   - code: the code the user typed.
    ///   - counter: the next counter the verifier expects (one past the last accepted counter).
    ///   - lookAhead: how many counters beyond `counter` to accept, for a token that was pressed
    ///     without the code being used (RFC 4226, section 7.4 resynchronisation); 0 by default.
    /// - Returns: the counter whose code matched.
    /// - Throws: ``AuthError`` with ``AuthErrorCode/invalidMFACode`` when no counter in the window
    ///   matches; ``AuthErrorCode/invalidConfiguration`` when `lookAhead` is outside 0...100.
    public func verify(_ code: Secret<String>, counter: UInt64, lookAhead: Int = 0) throws -> UInt64 {
        // RFC 4226, section 7.4 asks for a small look-ahead window; 100 presses is already generous.
        guard (0...100).contains(lookAhead) else {
            throw AuthError(.invalidConfiguration, message: "The HOTP look-ahead window must be 0 to 100 counters; \(lookAhead) is not.")
        }
        let (last, overflow) = counter.addingReportingOverflow(UInt64(lookAhead))
        let candidates = counter...(overflow ? UInt64.max : last)
        if let matched = match(code, candidates: candidates, notAfter: nil) { return matched }
        throw Self.invalidCode()
    }

    /// The description, with the secret redacted.
    public var description: String {
        "HOTP(\(algorithm), \(digits) digits, secret: <redacted>)"
    }

    // MARK: - Shared with TOTP

    /// RFC 4226, section 5.3 dynamic truncation of `HMAC(secret, counter)`: a 31-bit value.
    func truncatedValue(counter: UInt64) -> UInt32 {
        let message = (0..<8).map { UInt8(truncatingIfNeeded: counter >> (56 - 8 * UInt64($0))) }
        let mac = algorithm.authenticationCode(for: message, key: secret.revealed())
        // Every supported HMAC is at least 20 bytes, so offset + 3 <= 18 is always in range.
        let offset = Int(mac[mac.count - 1] & 0x0F)
        return UInt32(mac[offset] & 0x7F) << 24
            | UInt32(mac[offset + 1]) << 16
            | UInt32(mac[offset + 2]) << 8
            | UInt32(mac[offset + 3])
    }

    /// The code for `counter` as ASCII digits.
    func codeBytes(counter: UInt64) -> [UInt8] {
        var value = truncatedValue(counter: counter)
        var bytes = [UInt8](repeating: UInt8(ascii: "0"), count: digits)
        for index in stride(from: digits - 1, through: 0, by: -1) {
            bytes[index] = UInt8(ascii: "0") + UInt8(value % 10)
            value /= 10
        }
        return bytes
    }

    /// Compares `code` with the code of every counter in `candidates`, all of them, in constant time
    /// per comparison, and returns the first matching counter. Counters at or before `notAfter` are
    /// computed and compared too but cannot match (replay protection).
    func match(_ code: Secret<String>, candidates: ClosedRange<UInt64>, notAfter: UInt64?) -> UInt64? {
        let presented = Self.normalized(code)
        var matched: UInt64?
        for candidate in candidates {
            let equal = constantTimeEquals(codeBytes(counter: candidate), presented)
            let fresh = notAfter.map { candidate > $0 } ?? true
            if equal && fresh && matched == nil { matched = candidate }
        }
        return matched
    }

    /// The presented code as bytes, with whitespace removed.
    static func normalized(_ code: Secret<String>) -> [UInt8] {
        var kept = String.UnicodeScalarView()
        kept.append(contentsOf: code.revealed().unicodeScalars.filter { !$0.properties.isWhitespace })
        return Array(String(kept).utf8)
    }

    static func invalidCode() -> AuthError {
        AuthError(.invalidMFACode, message: "The verification code is wrong, expired or already used.")
    }

    // MARK: - Codable

    private enum CodingKeys: String, CodingKey { case secret, algorithm, digits }

    /// Decodes and validates a stored generator.
    ///
    /// - Throws: a `DecodingError`, or ``AuthError`` when the stored values are invalid.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(secret: container.decode(Secret<[UInt8]>.self, forKey: .secret),
                      algorithm: container.decode(OTPAlgorithm.self, forKey: .algorithm),
                      digits: container.decode(Int.self, forKey: .digits))
    }

    /// Encodes the generator, including the raw secret: encode it only into protected storage.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(secret, forKey: .secret)
        try container.encode(algorithm, forKey: .algorithm)
        try container.encode(digits, forKey: .digits)
    }
}
