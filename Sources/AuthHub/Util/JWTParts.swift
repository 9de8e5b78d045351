import Foundation

/// The header and payload of a compact JWT/JWS, read WITHOUT verifying anything.
///
/// For reading claims that describe (a profile, an expiry hint) and as the first step of a
/// verifier; never for deciding trust.
package enum JWTParts {
    /// The header and payload objects; nil when the token is not three parts of which the first
    /// two are base64url JSON objects.
    package static func decode(_ token: Secret<String>) -> (header: [String: JSONValue], payload: [String: JSONValue])? {
        let raw = token.revealed()
        return raw.utf8.withContiguousStorageIfAvailable(decode) ?? Array(raw.utf8).withUnsafeBufferPointer(decode)
    }

    /// ``decode(_:)`` of the token's UTF-8 bytes. The dots are found by scanning the bytes: splitting
    /// the String compares Characters (grapheme breaking over a ~1 KB token), and the generic
    /// `split` of its UTF-8 view cost as much as the base64 decoding (both measured on the bearer
    /// middleware's path).
    private static func decode(_ bytes: UnsafeBufferPointer<UInt8>) -> (header: [String: JSONValue], payload: [String: JSONValue])? {
        let dot = UInt8(ascii: ".")
        guard let first = bytes.firstIndex(of: dot),
              let second = bytes[(first + 1)...].firstIndex(of: dot),
              !bytes[(second + 1)...].contains(dot),
              let headerData = Base64URL.decode(buffer: UnsafeBufferPointer(rebasing: bytes[..<first])), let header = (try? JSONValue.parse(headerData))?.objectValue,
              let payloadData = Base64URL.decode(buffer: UnsafeBufferPointer(rebasing: bytes[(first + 1)..<second])),
              let payload = (try? JSONValue.parse(payloadData))?.objectValue
        else { return nil }
        return (header, payload)
    }
}
