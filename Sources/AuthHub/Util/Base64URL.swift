import Foundation

/// Base64url without padding (RFC 4648, section 5), as JWTs, PKCE and WebAuthn use it.
///
/// Both directions translate the alphabet byte by byte (ID-token verification decodes two parts
/// per token, so this sits on a hot path).
package enum Base64URL {
    /// Encodes bytes as base64url without `=` padding.
    package static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        if let encoded = bytes.withContiguousStorageIfAvailable({ encode(buffer: UnsafeRawBufferPointer($0)) }) { return encoded }
        return Array(bytes).withUnsafeBytes { encode(buffer: $0) }
    }

    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// ``encode(_:)`` of bytes in memory, table-driven: non-generic, so other modules call it
    /// specialized (the web core encodes a SHA-256 and an HMAC on every session request; going
    /// through Foundation's encoder and translating the alphabet cost ~23 % of a session resolution).
    package static func encode(buffer bytes: UnsafeRawBufferPointer) -> String {
        let count = bytes.count
        return alphabet.withUnsafeBufferPointer { table in
            String(unsafeUninitializedCapacity: (count * 4 + 2) / 3) { out in
                var index = 0, written = 0
                while index + 3 <= count {
                    let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
                    out[written] = table[Int(group >> 18 & 63)]
                    out[written + 1] = table[Int(group >> 12 & 63)]
                    out[written + 2] = table[Int(group >> 6 & 63)]
                    out[written + 3] = table[Int(group & 63)]
                    index += 3
                    written += 4
                }
                let rest = count - index
                if rest > 0 {
                    let group = UInt32(bytes[index]) << 16 | (rest == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
                    out[written] = table[Int(group >> 18 & 63)]
                    out[written + 1] = table[Int(group >> 12 & 63)]
                    written += 2
                    if rest == 2 {
                        out[written] = table[Int(group >> 6 & 63)]
                        written += 1
                    }
                }
                return written
            }
        }
    }

    /// Decodes base64url (padding optional; standard base64's `+` and `/` are accepted too).
    /// Returns nil for anything that is not base64.
    package static func decode(_ text: String) -> Data? {
        var text = text
        return text.withUTF8 { decode(buffer: $0) }
    }

    /// ``decode(_:)`` of bytes in memory, for other modules: a generic function called across modules
    /// runs unspecialized (metadata lookups per element), which cost ~3× the RSA signature check when
    /// the verifier decoded a token's signature through the generic entry point (perf, bearer row).
    package static func decode(buffer text: UnsafeBufferPointer<UInt8>) -> Data? {
        if let decoded = decodeCanonicalUnpadded(text, table: digitValues) { return decoded }
        return decode(bytes: text)
    }

    /// The canonical, unpadded base64url text's bytes, or nil for anything else (padding, `+` or `/`,
    /// other bytes, a length no encoding has, non-zero bits in the last digit): a JWS signature in
    /// one pass. Nil does not mean the text is invalid for ``decode(buffer:)``, only that it is not in
    /// this exact form.
    package static func decodeStrictURLSafe(buffer text: UnsafeBufferPointer<UInt8>) -> Data? {
        decodeCanonicalUnpadded(text, table: urlSafeDigitValues)
    }

    /// ``digitValues`` without the standard alphabet's `+` and `/`.
    private static let urlSafeDigitValues: [UInt8] = {
        var table = digitValues
        table[Int(UInt8(ascii: "+"))] = 0xFF
        table[Int(UInt8(ascii: "/"))] = 0xFF
        return table
    }()

    /// The value of each base64 digit of both alphabets (`-`/`+` 62, `_`/`/` 63); 0xFF for any
    /// other byte.
    private static let digitValues: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, digit) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8.enumerated() {
            table[Int(digit)] = UInt8(value)
        }
        table[Int(UInt8(ascii: "-"))] = 62
        table[Int(UInt8(ascii: "+"))] = 62
        table[Int(UInt8(ascii: "_"))] = 63
        table[Int(UInt8(ascii: "/"))] = 63
        return table
    }()

    /// One pass over unpadded base64(url) text, as every JWS part is written: nil (meaning "take the
    /// general path") for padding, a byte outside both alphabets, a length no encoding has, or
    /// non-zero bits in the last digit, so that this path only ever decodes what the general one
    /// decodes identically. The general path translates the alphabet into a new array, pads it and
    /// hands it to Foundation: three copies of a ~1 KB token on the bearer middleware's path.
    private static func decodeCanonicalUnpadded(_ text: UnsafeBufferPointer<UInt8>, table digits: [UInt8]) -> Data? {
        let remainder = text.count % 4
        guard remainder != 1 else { return nil }
        let count = text.count / 4 * 3 + (remainder == 0 ? 0 : remainder - 1)
        var output = Data(count: count)
        let valid = digits.withUnsafeBufferPointer { table in
            output.withUnsafeMutableBytes { (out: UnsafeMutableRawBufferPointer) -> Bool in
                var written = 0, bits: UInt32 = 0, pending = 0
                for byte in text {
                    let value = table[Int(byte)]
                    guard value != 0xFF else { return false }
                    bits = bits << 6 | UInt32(value)
                    pending += 1
                    if pending == 4 {
                        out[written] = UInt8(truncatingIfNeeded: bits >> 16)
                        out[written + 1] = UInt8(truncatingIfNeeded: bits >> 8)
                        out[written + 2] = UInt8(truncatingIfNeeded: bits)
                        written += 3
                        bits = 0
                        pending = 0
                    }
                }
                switch pending {
                case 2:  // 12 bits: one byte and 4 bits that must be zero
                    guard bits & 0xF == 0 else { return false }
                    out[written] = UInt8(truncatingIfNeeded: bits >> 4)
                case 3:  // 18 bits: two bytes and 2 bits that must be zero
                    guard bits & 0x3 == 0 else { return false }
                    out[written] = UInt8(truncatingIfNeeded: bits >> 10)
                    out[written + 1] = UInt8(truncatingIfNeeded: bits >> 2)
                default: break
                }
                return true
            }
        }
        return valid ? output : nil
    }

    /// ``decode(_:)`` of the UTF-8 bytes of a text (a slice of a token, say).
    package static func decode<Bytes: Collection>(bytes text: Bytes) -> Data? where Bytes.Element == UInt8 {
        var standard = [UInt8]()
        standard.reserveCapacity(text.count + 3)
        for byte in text {
            switch byte {
            case UInt8(ascii: "-"): standard.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): standard.append(UInt8(ascii: "/"))
            default: standard.append(byte)
            }
        }
        switch standard.count % 4 {
        case 0: break
        case 2: standard += [UInt8(ascii: "="), UInt8(ascii: "=")]
        case 3: standard.append(UInt8(ascii: "="))
        default: return nil
        }
        return Data(base64Encoded: Data(standard))
    }
}
