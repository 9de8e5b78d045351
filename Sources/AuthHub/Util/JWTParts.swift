import Foundation

/// The header and payload of a compact JWT/JWS, read WITHOUT verifying anything.
///
/// For reading claims that describe (a profile, an expiry hint) and as the first step of a
/// verifier; never for deciding trust.
package enum JWTParts {
    /// The header and payload objects; nil when the token is not three parts of which the first
    /// two are base64url JSON objects.
    package static func decode(_ token: Secret<String>) -> (header: [String: JSONValue], payload: [String: JSONValue])? {
        // Split the UTF-8 bytes: splitting the String compares Characters (grapheme breaking over a
        // ~1 KB token), which cost more than the JSON parsing.
        let parts = token.revealed().utf8.split(separator: UInt8(ascii: "."), maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 3,
              let headerData = Base64URL.decode(bytes: parts[0]), let header = (try? JSONValue.parse(headerData))?.objectValue,
              let payloadData = Base64URL.decode(bytes: parts[1]), let payload = (try? JSONValue.parse(payloadData))?.objectValue
        else { return nil }
        return (header, payload)
    }
}
