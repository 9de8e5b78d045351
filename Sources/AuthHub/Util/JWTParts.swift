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
        guard let (first, second) = dots(bytes),
              let headerData = Base64URL.decode(buffer: UnsafeBufferPointer(rebasing: bytes[..<first])), let header = (try? JSONValue.parse(headerData))?.objectValue,
              let payloadData = Base64URL.decode(buffer: UnsafeBufferPointer(rebasing: bytes[(first + 1)..<second])),
              let payload = (try? JSONValue.parse(payloadData))?.objectValue
        else { return nil }
        return (header, payload)
    }

    /// The positions of the two dots of a compact JWS, or nil unless it has exactly two. Found with
    /// `memchr` (vectorised by the C library): a byte loop over a ~1 KB token cost more than
    /// decoding its header (perf, `rs256.raw-verify`).
    package static func dots(_ bytes: UnsafeBufferPointer<UInt8>) -> (first: Int, second: Int)? {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return nil }
        func find(from start: Int) -> Int? {
            guard start < bytes.count, let found = memchr(base + start, Int32(UInt8(ascii: ".")), bytes.count - start) else { return nil }
            return UnsafeRawPointer(found).assumingMemoryBound(to: UInt8.self) - base
        }
        guard let first = find(from: 0), let second = find(from: first + 1), find(from: second + 1) == nil else { return nil }
        return (first, second)
    }
}
