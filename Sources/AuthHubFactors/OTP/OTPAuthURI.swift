import AuthHub
import Foundation

/// An `otpauth://` provisioning URI (the Key Uri Format of Google Authenticator, also read and
/// written by pyotp and most authenticator apps), usually shown as a QR code.
///
/// ```
/// otpauth://totp/Example:alice@example.com?secret=JBSWY3DPEHPK3PXP&issuer=Example&algorithm=SHA1&digits=6&period=30
/// otpauth://hotp/Example:alice@example.com?secret=JBSWY3DPEHPK3PXP&issuer=Example&algorithm=SHA1&digits=6&counter=0
/// ```
///
/// The label is `issuer:account` or just `account`; a literal `:` separates the two, and each part
/// is percent-encoded on its own (so a `:` inside a name is written `%3A` and stays part of that
/// name, as pyotp reads it; Google's format asks names not to contain colons at all). Spaces are
/// written `%20`; `+` in a parameter value reads as a space. Leading spaces of the account name are
/// dropped when parsing (`Example:%20alice`). When the label's issuer and the `issuer` parameter
/// are both present they must be equal. Missing parameters take the format's defaults: SHA1, 6
/// digits, 30 seconds. The algorithm name is matched ignoring case. Unknown parameters (`image`, …)
/// are ignored.
///
/// The URI contains the shared secret, so this type keeps it in a ``Secret``, its ``description``
/// shows `secret=<redacted>`, and the full text is only reachable through ``string`` and ``url()``,
/// which return `Secret`s.
public struct OTPAuthURI: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The OTP type and its type-specific parameter.
    public enum Kind: Sendable, Hashable {
        /// Time-based (RFC 6238) with a period in seconds.
        case totp(period: Int)
        /// Counter-based (RFC 4226) with the initial counter.
        case hotp(counter: UInt64)
    }

    /// TOTP or HOTP, with the period or counter.
    public let kind: Kind
    /// The shared secret.
    public let secret: Secret<[UInt8]>
    /// The account name shown in the authenticator (often an email address).
    public let account: String
    /// The issuer (service) name, if any.
    public let issuer: String?
    /// The HMAC hash function.
    public let algorithm: OTPAlgorithm
    /// The number of digits of a code.
    public let digits: Int

    /// Creates a URI from its parts.
    ///
    /// - Parameters:
    ///   - kind: `.totp(period:)` (default: 30 s) or `.hotp(counter:)`.
    ///   - secret: the shared secret; must not be empty.
    ///   - account: the account name; must not be empty.
    ///   - issuer: the issuer name; an empty string counts as none.
    ///   - algorithm: the HMAC hash function; SHA-1 by default.
    ///   - digits: the code length, 6 (default), 7 or 8.
    /// - Throws: ``AuthError`` with code ``AuthErrorCode/invalidConfiguration`` when a part is empty
    ///   or out of range.
    public init(
        kind: Kind = .totp(period: 30),
        secret: Secret<[UInt8]>,
        account: String,
        issuer: String? = nil,
        algorithm: OTPAlgorithm = .sha1,
        digits: Int = 6
    ) throws {
        guard !secret.revealed().isEmpty else {
            throw AuthError(.invalidConfiguration, message: "An otpauth URI needs a non-empty secret.")
        }
        guard !account.isEmpty else {
            throw AuthError(.invalidConfiguration, message: "An otpauth URI needs an account name.")
        }
        guard HOTP.supportedDigits.contains(digits) else {
            throw AuthError(.invalidConfiguration, message: "An OTP code has 6, 7 or 8 digits; \(digits) is not supported.")
        }
        if case .totp(let period) = kind, period <= 0 {
            throw AuthError(.invalidConfiguration, message: "The TOTP period must be a positive number of seconds; \(period) is not.")
        }
        self.kind = kind
        self.secret = secret
        self.account = account
        self.issuer = issuer.flatMap { $0.isEmpty ? nil : $0 }
        self.algorithm = algorithm
        self.digits = digits
    }

    /// Creates the URI that provisions a TOTP generator in an authenticator app.
    ///
    /// - Parameters:
    ///   - totp: the generator; its T0 must be the Unix epoch, the only one the format can express.
    ///   - account: the account name.
    ///   - issuer: the issuer name.
    /// - Throws: ``AuthError`` with code ``AuthErrorCode/invalidConfiguration`` when T0 is not the
    ///   epoch or the account is empty.
    public init(totp: TOTP, account: String, issuer: String?) throws {
        guard totp.t0.timeIntervalSince1970 == 0 else {
            throw AuthError(.invalidConfiguration,
                            message: "An otpauth URI cannot express a TOTP start time other than the Unix epoch.")
        }
        try self.init(kind: .totp(period: totp.period), secret: totp.secret, account: account, issuer: issuer,
                      algorithm: totp.algorithm, digits: totp.digits)
    }

    /// Creates the URI that provisions an HOTP generator in an authenticator app.
    ///
    /// - Parameters:
    ///   - hotp: the generator.
    ///   - counter: the counter of the first code.
    ///   - account: the account name.
    ///   - issuer: the issuer name.
    /// - Throws: ``AuthError`` with code ``AuthErrorCode/invalidConfiguration`` when the account is empty.
    public init(hotp: HOTP, counter: UInt64, account: String, issuer: String?) throws {
        try self.init(kind: .hotp(counter: counter), secret: hotp.secret, account: account, issuer: issuer,
                      algorithm: hotp.algorithm, digits: hotp.digits)
    }

    /// Parses a URI, e.g. the text of a scanned QR code.
    ///
    /// - Parameter uri: the URI text.
    /// - Throws: ``AuthError`` with code ``AuthErrorCode/invalidRequest`` and a message naming the
    ///   problem; `details["reason"]` is one of `wrongScheme`, `unknownType`, `missingAccount`,
    ///   `missingSecret`, `invalidSecret`, `invalidAlgorithm`, `invalidDigits`, `invalidPeriod`,
    ///   `missingCounter`, `invalidCounter`, `issuerMismatch`, `duplicateParameter`, `malformed`.
    ///   Neither the message nor the details contain the secret.
    public init(parsing uri: Secret<String>) throws {
        try self.init(parsingRevealed: uri.revealed())
    }

    /// Parses a URI given as plain text, with the same rules and errors as the `Secret<String>` overload.
    ///
    /// - Parameter uri: the URI text.
    /// - Throws: ``AuthError`` with code ``AuthErrorCode/invalidRequest`` naming the problem.
    public init(parsing uri: String) throws {
        try self.init(parsingRevealed: uri)
    }

    /// The URI text, including the secret.
    public var string: Secret<String> {
        Secret(render(secretText: Base32.encode(secret.revealed())))
    }

    /// The URI as a `URL`, including the secret.
    ///
    /// - Throws: ``AuthError`` with code ``AuthErrorCode/invalidConfiguration`` if Foundation refuses
    ///   the text (the percent-encoding used here keeps it to URL characters, so this is not expected).
    public func url() throws -> Secret<URL> {
        guard let url = URL(string: string.revealed()) else {
            throw AuthError(.invalidConfiguration, message: "The otpauth URI could not be represented as a URL.")
        }
        return Secret(url)
    }

    /// A TOTP generator with this URI's parameters.
    ///
    /// - Parameter skew: the verification window in steps before and after the current one.
    /// - Throws: ``AuthError`` with code ``AuthErrorCode/invalidConfiguration`` when this is an HOTP URI.
    public func totp(skew: Int = 1) throws -> TOTP {
        guard case .totp(let period) = kind else {
            throw AuthError(.invalidConfiguration, message: "This otpauth URI is for HOTP, not TOTP.")
        }
        return try TOTP(secret: secret, algorithm: algorithm, digits: digits, period: period, skew: skew)
    }

    /// An HOTP generator with this URI's parameters (the initial counter is in ``kind``).
    ///
    /// - Throws: ``AuthError`` with code ``AuthErrorCode/invalidConfiguration`` when this is a TOTP URI.
    public func hotp() throws -> HOTP {
        guard case .hotp = kind else {
            throw AuthError(.invalidConfiguration, message: "This otpauth URI is for TOTP, not HOTP.")
        }
        return try HOTP(secret: secret, algorithm: algorithm, digits: digits)
    }

    /// The URI with the secret replaced by `<redacted>`.
    public var description: String { render(secretText: "<redacted>") }

    /// Same as ``description``.
    public var debugDescription: String { "OTPAuthURI(\(description))" }

    // MARK: - Rendering

    private func render(secretText: String) -> String {
        var label = Self.percentEncode(account)
        var query = ["secret=" + secretText]
        if let issuer {
            label = Self.percentEncode(issuer) + ":" + label
            query.append("issuer=" + Self.percentEncode(issuer))
        }
        query.append("algorithm=" + algorithm.rawValue)
        query.append("digits=\(digits)")
        let type: String
        switch kind {
        case .totp(let period):
            type = "totp"
            query.append("period=\(period)")
        case .hotp(let counter):
            type = "hotp"
            query.append("counter=\(counter)")
        }
        return "otpauth://\(type)/\(label)?\(query.joined(separator: "&"))"
    }

    /// Percent-encodes everything but RFC 3986 unreserved characters (so a space becomes `%20`).
    static func percentEncode(_ text: String) -> String {
        var output = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                 UInt8(ascii: "~"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                output += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return output
    }

    // MARK: - Parsing

    private static let securityParameters: Set<String> = ["secret", "issuer", "algorithm", "digits", "period", "counter"]

    private init(parsingRevealed text: String) throws {
        guard let schemeEnd = text.range(of: "://"),
              text[..<schemeEnd.lowerBound].lowercased() == "otpauth"
        else {
            throw Self.parseError("wrongScheme", "The URI does not start with otpauth://.")
        }
        var rest = text[schemeEnd.upperBound...]
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let queryText: Substring
        if let question = rest.firstIndex(of: "?") {
            queryText = rest[rest.index(after: question)...]
            rest = rest[..<question]
        } else {
            queryText = ""
        }
        let typeText: Substring
        let labelText: Substring
        if let slash = rest.firstIndex(of: "/") {
            typeText = rest[..<slash]
            labelText = rest[rest.index(after: slash)...]
        } else {
            typeText = rest
            labelText = ""
        }
        let type = typeText.lowercased()
        guard type == "totp" || type == "hotp" else {
            throw Self.parseError("unknownType", "The OTP type after otpauth:// must be totp or hotp.")
        }

        // Label: split on the first literal ':' while still encoded, then decode each part.
        var labelIssuer: String?
        let account: String
        if let colon = labelText.firstIndex(of: ":") {
            let issuerPart = try Self.percentDecode(labelText[..<colon], plusIsSpace: false, what: "label")
            labelIssuer = issuerPart.isEmpty ? nil : issuerPart
            account = String(try Self.percentDecode(labelText[labelText.index(after: colon)...], plusIsSpace: false, what: "label")
                .drop(while: { $0 == " " }))
        } else {
            // Spaces before the account name are dropped with or without an issuer prefix, so that a
            // URI written back (`Issuer:account`) reads as the same account.
            account = String(try Self.percentDecode(labelText, plusIsSpace: false, what: "label").drop(while: { $0 == " " }))
        }
        guard !account.isEmpty else {
            throw Self.parseError("missingAccount", "The otpauth URI has no account name in its label.")
        }

        // Parameters.
        var parameters: [String: String] = [:]
        for pair in queryText.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = try Self.percentDecode(parts[0], plusIsSpace: true, what: "parameter name")
            let value = parts.count > 1 ? try Self.percentDecode(parts[1], plusIsSpace: true, what: "\(key) parameter") : ""
            let name = key.lowercased()
            guard Self.securityParameters.contains(name) else { continue }
            guard parameters[name] == nil else {
                throw Self.parseError("duplicateParameter", "The otpauth URI has more than one \(name) parameter.")
            }
            parameters[name] = value
        }

        guard let secretText = parameters["secret"], !secretText.isEmpty else {
            throw Self.parseError("missingSecret", "The otpauth URI has no secret parameter.")
        }
        let secretBytes: [UInt8]
        do {
            secretBytes = try Base32.decode(secretText)
        } catch let error as AuthError {
            var details = error.details
            details["reason"] = "invalidSecret"
            throw AuthError(.invalidRequest, message: "The secret parameter of the otpauth URI is not valid base32: "
                + error.message.replacingOccurrences(of: "Invalid base32: ", with: ""), details: details)
        }
        guard !secretBytes.isEmpty else {
            throw Self.parseError("missingSecret", "The secret parameter of the otpauth URI is empty.")
        }

        var issuer = labelIssuer
        if let issuerParameter = parameters["issuer"], !issuerParameter.isEmpty {
            if let labelIssuer, labelIssuer != issuerParameter {
                throw Self.parseError("issuerMismatch",
                                      "The issuer parameter (\(issuerParameter)) differs from the issuer in the label (\(labelIssuer)).")
            }
            issuer = issuerParameter
        }

        var algorithm = OTPAlgorithm.sha1
        if let name = parameters["algorithm"] {
            guard let parsed = OTPAlgorithm(name: name) else {
                throw Self.parseError("invalidAlgorithm",
                                      "The algorithm parameter\(Self.quoted(name)) is not SHA1, SHA256 or SHA512.")
            }
            algorithm = parsed
        }

        var digits = 6
        if let text = parameters["digits"] {
            guard let value = Int(text), HOTP.supportedDigits.contains(value) else {
                throw Self.parseError("invalidDigits", "The digits parameter\(Self.quoted(text)) must be 6, 7 or 8.")
            }
            digits = value
        }

        let kind: Kind
        if type == "totp" {
            var period = 30
            if let text = parameters["period"] {
                guard let value = Int(text), value > 0 else {
                    throw Self.parseError("invalidPeriod",
                                          "The period parameter\(Self.quoted(text)) must be a positive number of seconds.")
                }
                period = value
            }
            kind = .totp(period: period)
        } else {
            guard let text = parameters["counter"] else {
                throw Self.parseError("missingCounter", "An hotp otpauth URI needs a counter parameter.")
            }
            guard let counter = UInt64(text) else {
                throw Self.parseError("invalidCounter",
                                      "The counter parameter\(Self.quoted(text)) must be a non-negative integer.")
            }
            kind = .hotp(counter: counter)
        }

        try self.init(kind: kind, secret: Secret(secretBytes), account: account, issuer: issuer,
                      algorithm: algorithm, digits: digits)
    }

    /// Decodes `%XX` escapes (and `+` as a space in parameters); rejects broken escapes and invalid UTF-8.
    private static func percentDecode(_ text: Substring, plusIsSpace: Bool, what: String) throws -> String {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(Hex.digitValue), let low = iterator.next().flatMap(Hex.digitValue) else {
                    throw parseError("malformed", "The \(what) of the otpauth URI has a broken %-escape.")
                }
                bytes.append(high << 4 | low)
            case UInt8(ascii: "+") where plusIsSpace:
                bytes.append(UInt8(ascii: " "))
            default:
                bytes.append(byte)
            }
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            throw parseError("malformed", "The \(what) of the otpauth URI is not valid UTF-8.")
        }
        return decoded
    }

    /// ` ('value')` for short, plain values worth repeating in a message; empty otherwise, so that
    /// nothing long (a misplaced secret, say) is ever echoed.
    private static func quoted(_ value: String) -> String {
        let plain = value.count <= 10 && value.unicodeScalars.allSatisfy {
            ($0.properties.isAlphabetic || $0.properties.numericType != nil || $0 == "-") && $0.isASCII
        }
        return plain && !value.isEmpty ? " ('\(value)')" : ""
    }

    private static func parseError(_ reason: String, _ message: String) -> AuthError {
        AuthError(.invalidRequest, message: message, details: ["reason": reason])
    }
}
