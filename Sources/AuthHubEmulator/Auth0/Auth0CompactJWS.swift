import enum AuthHub.Base64URL
import enum AuthHub.JSONValue
import Foundation

/// A compact JWS the tenant receives (a DPoP proof, a client assertion), split and decoded once:
/// three non-empty strict base64url parts, a JSON-object header and payload. Not verified: the
/// caller checks the signature over ``signingInput`` with the key it trusts.
struct Auth0CompactJWS {
    let header: [String: JSONValue]
    let payload: [String: JSONValue]
    let signature: Data
    /// `header.payload` as sent, the bytes the signature covers.
    let signingInput: Data

    enum Failure: Error {
        /// Not three strict base64url parts.
        case notCompact
        /// The header or payload is not a JSON object.
        case notJSON
    }

    init(_ compact: String) throws(Failure) {
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy(Self.isBase64URL),
              let headerData = Base64URL.decode(String(parts[0])), let payloadData = Base64URL.decode(String(parts[1])),
              let signature = Base64URL.decode(String(parts[2]))
        else { throw .notCompact }
        guard let header = (try? JSONValue.parse(headerData))?.objectValue,
              let payload = (try? JSONValue.parse(payloadData))?.objectValue
        else { throw .notJSON }
        self.header = header
        self.payload = payload
        self.signature = signature
        signingInput = Data(compact.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
    }

    /// Whether `part` is non-empty base64url without padding (the strict alphabet: the core
    /// decoder also takes standard base64, which a JWS never holds).
    static func isBase64URL(_ part: Substring) -> Bool {
        !part.isEmpty && part.utf8.allSatisfy { byte in
            (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }
}
