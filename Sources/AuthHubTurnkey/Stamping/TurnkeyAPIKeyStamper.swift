import AuthHub
import Crypto
import Foundation

/// Stamps Turnkey requests with a P-256 API key or session key (<doc:TurnkeyProtocol>: “API-key stamp”): the
/// `X-Stamp` header is base64url (no padding) of the JSON
/// `{"publicKey": <compressed hex>, "scheme": "SIGNATURE_SCHEME_TK_API_P256", "signature": <DER hex>}`,
/// where the signature is ECDSA P-256 over SHA-256 of the exact body bytes.
///
/// The private key never leaves the value; ``privateKeyHex`` reveals it only as a ``Secret``
/// (to persist a session key).
public struct TurnkeyAPIKeyStamper: TurnkeyStamper, CustomStringConvertible, CustomReflectable {
    /// The header that carries the stamp.
    public static let headerName = "X-Stamp"
    /// The signature scheme of P-256 keys.
    public static let scheme = "SIGNATURE_SCHEME_TK_API_P256"

    private let privateKey: P256.Signing.PrivateKey
    /// The compressed public key, 66 lower-case hex characters: the stamp's `publicKey`.
    public let publicKey: String

    /// A stamper for a key.
    public init(privateKey: P256.Signing.PrivateKey) {
        self.privateKey = privateKey
        self.publicKey = TurnkeyKeys.compressedHex(privateKey.publicKey)
    }

    /// A stamper for a raw private key in hex, checked against the public key it should have — the
    /// Turnkey SDK's refusal to sign with a mismatched pair.
    /// - Parameters:
    ///   - privateKeyHex: the 32-byte scalar as 64 hex characters.
    ///   - publicKeyHex: the expected compressed public key (66 hex characters, `02`/`03` prefix).
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` when the private key is malformed or its
    ///   public key is not `publicKeyHex`.
    public init(privateKeyHex: Secret<String>, publicKeyHex: String) throws {
        let key = try TurnkeyKeys.signingPrivateKey(hex: privateKeyHex)
        let derived = TurnkeyKeys.compressedHex(key.publicKey)
        guard derived == publicKeyHex.lowercased() else {
            throw AuthError(.invalidConfiguration,
                            message: "The Turnkey API private key does not belong to the configured public key \(publicKeyHex) (it derives \(derived)); refusing to stamp.")
        }
        self.init(privateKey: key)
    }

    /// A stamper for a raw private key in hex, its public key derived.
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` when the key is malformed.
    public init(privateKeyHex: Secret<String>) throws {
        self.init(privateKey: try TurnkeyKeys.signingPrivateKey(hex: privateKeyHex))
    }

    /// The raw private scalar as 64 lower-case hex characters.
    public var privateKeyHex: Secret<String> { Secret(TurnkeyHex.encode(privateKey.rawRepresentation)) }

    /// The signing public key.
    public var signingPublicKey: P256.Signing.PublicKey { privateKey.publicKey }

    /// The stamp over `body`.
    /// - Throws: ``AuthErrorCode/unknown`` if the crypto library fails to sign.
    public func stamp(_ body: [UInt8]) throws -> TurnkeyAPIStamp {
        let signature: P256.Signing.ECDSASignature
        do {
            signature = try privateKey.signature(for: SHA256.hash(data: body))
        } catch {
            throw AuthError(.unknown, message: "The request could not be signed with the Turnkey key.", underlying: error)
        }
        return TurnkeyAPIStamp(publicKey: publicKey, scheme: Self.scheme, signature: TurnkeyHex.encode(signature.derRepresentation))
    }

    /// The `X-Stamp` header over `body`.
    public func stampHeader(_ body: [UInt8]) async throws -> TurnkeyStampHeader {
        TurnkeyStampHeader(name: Self.headerName, value: try stamp(body).headerValue)
    }

    /// Names the public key only.
    public var description: String { "TurnkeyAPIKeyStamper(publicKey: \(publicKey))" }

    /// `dump` and debuggers see the public key only; the private key is shown as `<redacted>`.
    public var customMirror: Mirror {
        Mirror(self, children: ["publicKey": publicKey, "privateKey": "<redacted>"], displayStyle: .struct)
    }
}

/// The JSON behind an `X-Stamp` header.
public struct TurnkeyAPIStamp: Sendable, Hashable, Codable {
    /// The compressed public key (hex).
    public var publicKey: String
    /// `SIGNATURE_SCHEME_TK_API_P256`.
    public var scheme: String
    /// The DER ECDSA signature (lower-case hex).
    public var signature: String

    /// Creates a stamp from its members.
    public init(publicKey: String, scheme: String, signature: String) {
        self.publicKey = publicKey
        self.scheme = scheme
        self.signature = signature
    }

    /// The stamp as compact JSON, keys in the order the JS SDK emits them (publicKey, scheme, signature).
    public var json: String {
        #"{"publicKey":\#(Self.quote(publicKey)),"scheme":\#(Self.quote(scheme)),"signature":\#(Self.quote(signature))}"#
    }

    /// The header value: base64url of ``json`` without padding.
    public var headerValue: String { Base64URL.encode(Array(json.utf8)) }

    /// Parses a header value.
    /// - Throws: ``AuthErrorCode/invalidToken`` when it is not base64url of a stamp JSON.
    public init(headerValue: String) throws {
        guard let data = Base64URL.decode(headerValue), let stamp = try? JSONDecoder().decode(TurnkeyAPIStamp.self, from: data) else {
            throw AuthError(.invalidToken, message: "The X-Stamp header is not base64url of a stamp JSON object.")
        }
        self = stamp
    }

    private static func quote(_ s: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return (try? encoder.encode(s)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
    }
}
