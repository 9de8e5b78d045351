import Foundation

/// Base64url without padding (RFC 4648, section 5), as JWTs, PKCE and WebAuthn use it.
///
/// Both directions translate the alphabet byte by byte (ID-token verification decodes two parts
/// per token, so this sits on a hot path).
package enum Base64URL {
    /// Encodes bytes as base64url without `=` padding.
    package static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let standard = Data(bytes).base64EncodedData()
        var out = [UInt8]()
        out.reserveCapacity(standard.count)
        for byte in standard {
            switch byte {
            case UInt8(ascii: "+"): out.append(UInt8(ascii: "-"))
            case UInt8(ascii: "/"): out.append(UInt8(ascii: "_"))
            case UInt8(ascii: "="): continue
            default: out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes base64url (padding optional; standard base64's `+` and `/` are accepted too).
    /// Returns nil for anything that is not base64.
    package static func decode(_ text: String) -> Data? {
        decode(bytes: text.utf8)
    }

    /// ``decode(_:)`` of bytes in memory, for other modules: a generic function called across modules
    /// runs unspecialized (metadata lookups per element), which cost ~3× the RSA signature check when
    /// the verifier decoded a token's signature through the generic entry point (perf, bearer row).
    package static func decode(buffer text: UnsafeBufferPointer<UInt8>) -> Data? {
        decode(bytes: text)
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
