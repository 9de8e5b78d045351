import AuthHub

/// Base32 with the RFC 4648, section 6 alphabet (`A`–`Z`, `2`–`7`), the encoding of OTP secrets in
/// `otpauth://` URIs and in the "enter this key" text authenticator apps offer.
///
/// Encoding writes upper case and, by default, no `=` padding (the Key Uri Format omits it).
/// Decoding is lenient about presentation and strict about content: it accepts lower case, optional
/// padding, and spaces or hyphens anywhere (keys are often shown as `JBSW Y3DP EHPK 3PXP`), and
/// rejects everything else with an ``AuthError`` that names the offending character and its position
/// but never repeats the text, because the text is usually a secret.
///
/// Bits left over after the last whole byte are ignored, as most decoders do.
public enum Base32 {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// Encodes bytes as base32.
    ///
    /// - Parameters:
    ///   - bytes: the bytes to encode.
    ///   - padding: whether to pad the output with `=` to a multiple of 8 characters; `false` by
    ///     default, as `otpauth://` URIs expect.
    /// - Returns: upper-case base32 text.
    public static func encode<Bytes: Sequence>(_ bytes: Bytes, padding: Bool = false) -> String
    where Bytes.Element == UInt8 {
        var output = quintets(bytes).map { alphabet[Int($0)] }
        if padding {
            while output.count % 8 != 0 { output.append(UInt8(ascii: "=")) }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes as 5-bit values (0–31), most significant bits first; a last partial group is
    /// padded with zero bits. Any 32-symbol alphabet turns these into text.
    static func quintets<Bytes: Sequence>(_ bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        var output: [UInt8] = []
        var buffer: UInt32 = 0
        var bitCount = 0
        for byte in bytes {
            buffer = ((buffer << 8) | UInt32(byte)) & 0xFFF
            bitCount += 8
            while bitCount >= 5 {
                bitCount -= 5
                output.append(UInt8((buffer >> UInt32(bitCount)) & 0x1F))
            }
        }
        if bitCount > 0 {
            output.append(UInt8((buffer << UInt32(5 - bitCount)) & 0x1F))
        }
        return output
    }

    /// Decodes base32 text.
    ///
    /// Lower case is accepted, spaces and hyphens are skipped, and trailing `=` padding is optional
    /// (when present it must be complete).
    ///
    /// - Parameter text: the base32 text.
    /// - Returns: the decoded bytes.
    /// - Throws: ``AuthError`` with code ``AuthErrorCode/invalidRequest`` when a character is outside
    ///   the alphabet (the message names the character and its 1-based position, `details["position"]`
    ///   carries the position), when `=` is followed by data, when the padding is incomplete, or when
    ///   the number of characters cannot encode whole bytes. The message never contains the text.
    public static func decode(_ text: String) throws -> [UInt8] {
        var values: [UInt8] = []
        values.reserveCapacity(text.utf8.count)
        var paddingCount = 0
        for (offset, scalar) in text.unicodeScalars.enumerated() {
            let position = offset + 1
            switch scalar {
            case " ", "-":
                continue
            case "=":
                paddingCount += 1
            default:
                guard let value = value(of: scalar) else {
                    throw invalid("character \(describe(scalar)) at position \(position) is not in the base32 alphabet (A–Z, 2–7)",
                                  position: position)
                }
                guard paddingCount == 0 else {
                    throw invalid("character \(describe(scalar)) at position \(position) follows '=' padding; padding may only end the text",
                                  position: position)
                }
                values.append(value)
            }
        }

        let remainder = values.count % 8
        guard [0, 2, 4, 5, 7].contains(remainder) else {
            throw invalid("\(values.count) base32 characters do not encode a whole number of bytes", position: nil)
        }
        if paddingCount > 0 {
            let expected = remainder == 0 ? 0 : 8 - remainder
            guard paddingCount == expected else {
                throw invalid("the text has \(paddingCount) '=' padding characters where \(expected) were expected",
                              position: nil)
            }
        }

        var bytes: [UInt8] = []
        bytes.reserveCapacity(values.count * 5 / 8)
        var buffer: UInt32 = 0
        var bitCount = 0
        for value in values {
            buffer = ((buffer << 5) | UInt32(value)) & 0xFFF
            bitCount += 5
            if bitCount >= 8 {
                bitCount -= 8
                bytes.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bitCount)))
            }
        }
        return bytes
    }

    /// The 5-bit value of an alphabet character, upper or lower case.
    private static func value(of scalar: Unicode.Scalar) -> UInt8? {
        switch scalar.value {
        case 0x41...0x5A: UInt8(scalar.value - 0x41)  // A-Z
        case 0x61...0x7A: UInt8(scalar.value - 0x61)  // a-z
        case 0x32...0x37: UInt8(scalar.value - 0x32 + 26)  // 2-7
        default: nil
        }
    }

    /// A printable rendering of one character for an error message: `'1'`, or `U+00A0` for
    /// characters that would not show.
    static func describe(_ scalar: Unicode.Scalar) -> String {
        if scalar.value >= 0x21 && scalar.value <= 0x7E && scalar != "'" {
            return "'\(Character(scalar))'"
        }
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    private static func invalid(_ problem: String, position: Int?) -> AuthError {
        var details = ["reason": "invalidBase32"]
        if let position { details["position"] = String(position) }
        return AuthError(.invalidRequest, message: "Invalid base32: \(problem).", details: details)
    }
}
