import AuthHub
import Foundation

/// A time-based one-time password generator and verifier (RFC 6238).
///
/// The time step is `T = floor((unixTime - T0) / period)`, and the code for a time is the ``HOTP``
/// code of `T`. Times are `Date`s passed in by the caller, so tests and servers control the clock
/// (pass `clock.now` from an injected `AuthClock`).
///
/// Verification accepts the steps `T - skew ... T + skew` to tolerate clock drift and typing time,
/// computes and compares every one of them in constant time, and returns the step that matched.
/// Store that step and pass it as `after:` next time: a code whose step is not later than the last
/// accepted one is rejected, so an intercepted code cannot be replayed (RFC 6238, section 5.2).
public struct TOTP: Sendable, Equatable, Codable, CustomStringConvertible {
    /// The code arithmetic: secret, algorithm and digits.
    public let hotp: HOTP
    /// The length of a time step in seconds (RFC 6238's `X`).
    public let period: Int
    /// The time from which steps are counted (RFC 6238's `T0`), the Unix epoch by default.
    public let t0: Date
    /// How many steps before and after the current one ``verify(_:at:after:)`` accepts.
    public let skew: Int

    /// The widest skew window accepted: each step of skew doubles the chance of guessing a code,
    /// and ten steps either side (±5 minutes at 30 s) is already far beyond RFC 6238's advice of one.
    public static let maximumSkew = 10

    /// The shared secret.
    public var secret: Secret<[UInt8]> { hotp.secret }
    /// The HMAC hash function.
    public var algorithm: OTPAlgorithm { hotp.algorithm }
    /// The number of decimal digits of a code.
    public var digits: Int { hotp.digits }

    /// Creates a generator.
    ///
    /// - Parameters:
    ///   - secret: the shared secret; must not be empty.
    ///   - algorithm: the HMAC hash function; SHA-1 by default.
    ///   - digits: the code length, 6 (default), 7 or 8.
    ///   - period: the time step in seconds; 30 by default; must be positive.
    ///   - t0: the start of step 0; the Unix epoch by default.
    ///   - skew: the number of steps accepted before and after the current one; 1 by default
    ///     (RFC 6238, section 5.2 recommends at most one step of network delay). 0 to ``maximumSkew``.
    /// - Throws: ``AuthError`` with code ``AuthErrorCode/invalidConfiguration`` when a parameter is
    ///   out of range.
    public init(
        secret: Secret<[UInt8]>,
        algorithm: OTPAlgorithm = .sha1,
        digits: Int = 6,
        period: Int = 30,
        t0: Date = Date(timeIntervalSince1970: 0),
        skew: Int = 1
    ) throws {
        try self.init(hotp: HOTP(secret: secret, algorithm: algorithm, digits: digits), period: period, t0: t0, skew: skew)
    }

    /// Creates a generator over existing code arithmetic.
    ///
    /// - Parameters:
    ///   - hotp: secret, algorithm and digits.
    ///   - period: the time step in seconds; must be positive.
    ///   - t0: the start of step 0.
    ///   - skew: the number of steps accepted before and after the current one; 0 to ``maximumSkew``.
    /// - Throws: ``AuthError`` with code ``AuthErrorCode/invalidConfiguration`` when `period` or
    ///   `skew` is out of range.
    public init(hotp: HOTP, period: Int = 30, t0: Date = Date(timeIntervalSince1970: 0), skew: Int = 1) throws {
        guard period > 0 else {
            throw AuthError(.invalidConfiguration, message: "The TOTP period must be a positive number of seconds; \(period) is not.",
                            details: ["period": String(period)])
        }
        guard (0...TOTP.maximumSkew).contains(skew) else {
            throw AuthError(.invalidConfiguration,
                            message: "The TOTP skew window must be 0 to \(TOTP.maximumSkew) steps; \(skew) is not.",
                            details: ["skew": String(skew)])
        }
        guard t0.timeIntervalSince1970.isFinite else {
            throw AuthError(.invalidConfiguration, message: "The TOTP start time T0 is not a finite time.")
        }
        self.hotp = hotp
        self.period = period
        self.t0 = t0
        self.skew = skew
    }

    /// The time step of a moment: `floor((date - T0) / period)`.
    ///
    /// - Parameter date: the moment.
    /// - Returns: the step counter.
    /// - Throws: ``AuthError`` with code ``AuthErrorCode/invalidRequest`` when `date` is before T0 or
    ///   too far in the future for a 64-bit counter.
    public func timeStep(at date: Date) throws -> UInt64 {
        let elapsed = date.timeIntervalSince1970 - t0.timeIntervalSince1970
        guard elapsed.isFinite, elapsed >= 0 else {
            throw AuthError(.invalidRequest, message: "The time is before the TOTP start time T0.")
        }
        guard elapsed < 18_446_744_073_709_551_616.0 else {
            throw AuthError(.invalidRequest, message: "The time is too far after T0 for a TOTP time step.")
        }
        return UInt64(elapsed.rounded(.down)) / UInt64(period)
    }

    /// The code at a moment.
    ///
    /// - Parameter date: the moment.
    /// - Returns: the code of the step containing `date`.
    /// - Throws: ``AuthError`` with code ``AuthErrorCode/invalidRequest`` when `date` is before T0.
    public func code(at date: Date) throws -> Secret<String> {
        hotp.code(counter: try timeStep(at: date))
    }

    /// The code of a time step.
    ///
    /// - Parameter timeStep: the step counter.
    /// - Returns: the code.
    public func code(timeStep: UInt64) -> Secret<String> {
        hotp.code(counter: timeStep)
    }

    /// Verifies a code at a moment, within the skew window, refusing replays.
    ///
    /// Every step in `T - skew ... T + skew` is computed and compared in constant time, whatever
    /// matches. Spaces in the presented code are ignored.
    ///
    /// - Parameters:
    ///   - code: the code the user typed.
    ///   - date: the verifier's current time.
    ///   - lastUsedStep: the step returned by the last successful verification for this credential,
    ///     if any; a code whose step is not after it is rejected.
    /// - Returns: the time step whose code matched; store it and pass it as `after:` next time.
    /// - Throws: ``AuthError`` with code ``AuthErrorCode/invalidMFACode`` when the code is wrong,
    ///   outside the window, or was already used; ``AuthErrorCode/invalidRequest`` when `date` is
    ///   before T0.
    public func verify(_ code: Secret<String>, at date: Date, after lastUsedStep: UInt64? = nil) throws -> UInt64 {
        let step = try timeStep(at: date)
        let skew = UInt64(skew)
        let first = step >= skew ? step - skew : 0
        let (last, overflow) = step.addingReportingOverflow(skew)
        if let matched = hotp.match(code, candidates: first...(overflow ? UInt64.max : last), notAfter: lastUsedStep) {
            return matched
        }
        throw HOTP.invalidCode()
    }

    /// The description, with the secret redacted.
    public var description: String {
        "TOTP(\(algorithm), \(digits) digits, period \(period) s, skew \(skew), secret: <redacted>)"
    }

    // MARK: - Codable

    private enum CodingKeys: String, CodingKey { case secret, algorithm, digits, period, t0, skew }

    /// Decodes and validates a stored generator (`t0` is stored as Unix seconds).
    ///
    /// - Throws: a `DecodingError`, or ``AuthError`` when the stored values are invalid.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(secret: container.decode(Secret<[UInt8]>.self, forKey: .secret),
                      algorithm: container.decode(OTPAlgorithm.self, forKey: .algorithm),
                      digits: container.decode(Int.self, forKey: .digits),
                      period: container.decode(Int.self, forKey: .period),
                      t0: Date(timeIntervalSince1970: container.decode(Double.self, forKey: .t0)),
                      skew: container.decode(Int.self, forKey: .skew))
    }

    /// Encodes the generator, including the raw secret: encode it only into protected storage.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(secret, forKey: .secret)
        try container.encode(algorithm, forKey: .algorithm)
        try container.encode(digits, forKey: .digits)
        try container.encode(period, forKey: .period)
        try container.encode(t0.timeIntervalSince1970, forKey: .t0)
        try container.encode(skew, forKey: .skew)
    }
}
