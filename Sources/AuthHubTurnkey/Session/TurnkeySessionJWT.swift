import AuthHub
import Crypto
import Foundation

/// The session JWT a Turnkey login returns (<doc:TurnkeyProtocol>: “Session JWT”).
///
/// It is not a bearer token: requests are stamped with the session key, and the JWT carries the
/// session's metadata — `exp` (seconds), `public_key` (the session key, compressed hex),
/// `session_type`, `user_id` and `organization_id` (the user's sub-organization).
///
/// Its signature is NOT plain ES256: Turnkey's notarizer signs `SHA256(SHA256(header "." payload))`
/// and the client verifies ECDSA P-256 over that prehashed digest (``verifySignature(notarizerPublicKey:)``).
public struct TurnkeySessionJWT: Sendable {
    /// Turnkey's production notarizer key (uncompressed hex).
    public static let productionNotarizerPublicKeyHex =
        "04d498aa87ac3bf982ac2b5dd9604d0074905cfbda5d62727c5a237b895e6749205e9f7cd566909c4387f6ca25c308445c60884b788560b785f4a96ac33702a469"

    /// The compact token.
    public let token: Secret<String>
    /// `exp`.
    public let expiresAt: Date
    /// `public_key`: the session key's compressed public key (hex).
    public let publicKey: String
    /// `session_type` (`SESSION_TYPE_READ_WRITE` or `SESSION_TYPE_READ_ONLY`).
    public let sessionType: String?
    /// `user_id`.
    public let userId: String
    /// `organization_id`.
    public let organizationId: String
    /// Every payload claim (none is secret).
    public let claims: [String: JSONValue]

    /// Decodes a token without checking anything but its shape.
    /// - Throws: ``AuthErrorCode/invalidToken`` naming the malformed part or missing claim.
    public init(_ token: Secret<String>) throws {
        guard let parts = JWTParts.decode(token) else {
            throw AuthError(.invalidToken, message: "The Turnkey session is not a JWT (three base64url parts, JSON header and payload).")
        }
        let payload = parts.payload
        guard let exp = payload["exp"]?.doubleValue else {
            throw AuthError(.invalidToken, message: "The Turnkey session JWT has no numeric exp claim.")
        }
        guard SessionTimeLimits.isValidDate(exp) else {
            throw AuthError(.invalidToken, message: "The Turnkey session JWT's exp is not a date between 1970 and 9999.")
        }
        guard let publicKey = payload["public_key"]?.stringValue, !publicKey.isEmpty else {
            throw AuthError(.invalidToken, message: "The Turnkey session JWT has no public_key claim.")
        }
        guard let userId = payload["user_id"]?.stringValue, !userId.isEmpty else {
            throw AuthError(.invalidToken, message: "The Turnkey session JWT has no user_id claim.")
        }
        guard let organizationId = payload["organization_id"]?.stringValue, !organizationId.isEmpty else {
            throw AuthError(.invalidToken, message: "The Turnkey session JWT has no organization_id claim.")
        }
        self.token = token
        self.expiresAt = Date(timeIntervalSince1970: exp)
        self.publicKey = publicKey
        self.sessionType = payload["session_type"]?.stringValue
        self.userId = userId
        self.organizationId = organizationId
        self.claims = payload
    }

    /// The digest the notarizer signs: `SHA256(SHA256(ascii(header_b64 "." payload_b64)))`.
    public static func signingDigest(_ token: Secret<String>) -> SHA256Digest? {
        let parts = token.revealed().split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        let signingInput = Array("\(parts[0]).\(parts[1])".utf8)
        return SHA256.hash(data: Array(SHA256.hash(data: signingInput)))
    }

    /// Verifies the notarizer signature (raw `r||s`, base64url) over ``signingDigest(_:)``.
    /// - Throws: ``AuthErrorCode/invalidToken`` when it does not verify.
    public func verifySignature(notarizerPublicKey: P256.Signing.PublicKey) throws {
        let parts = token.revealed().split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let digest = Self.signingDigest(token),
              let raw = Base64URL.decode(String(parts[2])), raw.count == 64,
              let signature = try? P256.Signing.ECDSASignature(rawRepresentation: raw),
              notarizerPublicKey.isValidSignature(signature, for: digest) else {
            throw AuthError(.invalidToken, message: "The Turnkey session JWT's signature does not verify with the notarizer key.")
        }
    }

    /// Checks the claims against what the login asked for.
    /// - Parameters:
    ///   - expectedPublicKey: the compressed public key of the session key we generated.
    ///   - expectedOrganizationId: the sub-organization we logged into; nil when we logged in with the
    ///     parent organization (the JWT's organization is then the user's sub-organization).
    ///   - now: the current time (from the context clock).
    /// - Throws: ``AuthErrorCode/invalidToken`` naming the claim that does not match.
    public func validate(expectedPublicKey: String, expectedOrganizationId: String?, now: Date) throws {
        guard publicKey.lowercased() == expectedPublicKey.lowercased() else {
            throw AuthError(.invalidToken, message: "The Turnkey session JWT's public_key is not the session key this client generated.")
        }
        if let expectedOrganizationId, organizationId != expectedOrganizationId {
            throw AuthError(.invalidToken, message: "The Turnkey session JWT's organization_id is not the organization that was logged into.")
        }
        guard expiresAt > now else {
            throw AuthError(.invalidToken, message: "The Turnkey session JWT's exp has already passed.")
        }
    }
}
