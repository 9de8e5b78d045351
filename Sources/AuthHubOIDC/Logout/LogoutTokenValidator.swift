import AuthHub
import Foundation

/// What a valid back-channel logout token says: which of the provider's sessions ended.
public struct LogoutTokenClaims: Sendable, Hashable {
    /// `sid`: the provider's session that ended, when the token names one.
    public let sessionID: String?
    /// `sub`: the user whose session ended, when the token names one.
    public let subject: String?
    /// `jti`: the token's unique id (for the replay check).
    public let jti: String
    /// `iat`.
    public let issuedAt: Date
}

/// Validates OpenID Connect Back-Channel Logout 1.0 logout tokens (section 2.6), which a provider
/// POSTs to a relying party when one of its sessions ends. In order, each failure an ``AuthError``
/// (``AuthErrorCode/invalidToken``) whose `details["reason"]` names the check (``Failure``):
/// 1. a compact JWS of at most 16 KiB with a JSON header and payload; `typ`, when present,
///    `logout+jwt` or `JWT`;
/// 2. `alg` RS256 or ES256 bound to a key of the issuer's JWKS (never `none`, never an HMAC), and a
///    valid signature;
/// 3. `iss` the provider's issuer; `aud` (a string or an array) containing the client ID;
/// 4. `iat` present, not in the future beyond the leeway and not older than ``maxAge``; `exp`, when
///    present, not past;
/// 5. `jti` present (1…256 bytes);
/// 6. `events` an object with the member `http://schemas.openid.net/event/backchannel-logout`, whose
///    value is a JSON object;
/// 7. `sid` or `sub` (or both) present as non-empty strings of at most 255 bytes;
/// 8. no `nonce` (a logout token must not be mistaken for an ID token, nor one for it).
///
/// The `jti` replay check is the caller's (it needs state shared by its replicas).
public struct LogoutTokenValidator: Sendable {
    /// The member of `events` a logout token carries.
    public static let backChannelLogoutEvent = "http://schemas.openid.net/event/backchannel-logout"

    /// The provider's issuer identifier.
    public let issuer: String
    /// The client ID the token must be addressed to.
    public let clientId: String
    public let keys: JWKSCache
    public let clock: any AuthClock
    /// How old a logout token may be, in seconds (10…3,600).
    public let maxAge: TimeInterval
    /// Clock skew allowed on `iat` and `exp`, in seconds (0…300).
    public let leeway: TimeInterval

    /// Why a logout token was refused: `details["reason"]` of the error.
    public enum Failure: String, Sendable, CaseIterable {
        case malformed = "logoutTokenMalformed"
        case wrongType = "logoutTokenWrongType"
        case algorithm = "logoutTokenAlgorithm"
        case signature = "logoutTokenSignature"
        case issuer = "logoutTokenIssuer"
        case audience = "logoutTokenAudience"
        case issuedAt = "logoutTokenIssuedAt"
        case expired = "logoutTokenExpired"
        case jti = "logoutTokenJTI"
        case events = "logoutTokenEvents"
        case noSubject = "logoutTokenNoSubject"
        case nonce = "logoutTokenNonce"
        case replayed = "logoutTokenReplayed"
    }

    public init(issuer: String, clientId: String, keys: JWKSCache, clock: any AuthClock, maxAge: TimeInterval = 300, leeway: TimeInterval = 60) {
        self.issuer = issuer
        self.clientId = clientId
        self.keys = keys
        self.clock = clock
        self.maxAge = min(max(maxAge.isFinite ? maxAge : 300, 10), 3_600)
        self.leeway = min(max(leeway.isFinite ? leeway : 60, 0), 300)
    }

    /// Validates a logout token; see the type's description for the checks and their order.
    /// - Throws: ``AuthErrorCode/invalidToken`` naming the failed check; the transient error
    ///   (``AuthErrorCode/network``, ``AuthErrorCode/timeout``, …) when the issuer's keys cannot be fetched.
    public func validate(_ token: Secret<String>) async throws -> LogoutTokenClaims {
        let raw = token.revealed()
        guard !raw.isEmpty, raw.utf8.count <= 16_384, let (header, claims) = JWTParts.decode(token) else {
            throw Self.failure(.malformed, "The logout token is not a compact JWT.")
        }
        if let typ = header["typ"] {
            guard let value = typ.stringValue?.lowercased(), value == "logout+jwt" || value == "jwt" else {
                throw Self.failure(.wrongType, "The logout token's typ is neither logout+jwt nor JWT.")
            }
        }
        do {
            try await IDTokenValidator.verifySignature(raw, header: header, keys: keys)
        } catch let error as AuthError {
            // The issuer's keys could not be fetched: not the token's fault (a transient error).
            if let underlying = error.underlying as? AuthError, underlying.code.isTransientByDefault { throw underlying }
            if let failure = error.idTokenFailure {
                throw Self.failure(failure == .invalidAlgorithm ? .algorithm : .signature,
                                   failure == .invalidAlgorithm ? "The logout token's algorithm is not accepted." : "The logout token's signature does not verify.")
            }
            throw error
        }
        guard claims["iss"]?.stringValue == issuer else { throw Self.failure(.issuer, "The logout token was issued by another issuer.") }
        let audiences: [String] = switch claims["aud"] {
        case .string(let value): [value]
        case .array(let values): values.compactMap(\.stringValue)
        default: []
        }
        guard audiences.contains(clientId) else { throw Self.failure(.audience, "The logout token is not addressed to this client (aud).") }
        let now = clock.now.timeIntervalSince1970
        guard let iat = claims["iat"]?.doubleValue, SessionTimeLimits.isValidDate(iat) else {
            throw Self.failure(.issuedAt, "The logout token has no valid issue time (iat).")
        }
        guard iat <= now + leeway, iat >= now - maxAge - leeway else {
            throw Self.failure(.issuedAt, "The logout token's issue time (iat) is out of range.")
        }
        if let exp = claims["exp"] {
            guard let value = exp.doubleValue, SessionTimeLimits.isValidDate(value), value + leeway > now else {
                throw Self.failure(.expired, "The logout token has expired.")
            }
        }
        guard let jti = claims["jti"]?.stringValue, !jti.isEmpty, jti.utf8.count <= 256 else {
            throw Self.failure(.jti, "The logout token has no jti.")
        }
        guard case .object(let events) = claims["events"], case .object = events[Self.backChannelLogoutEvent] else {
            throw Self.failure(.events, "The logout token lacks the back-channel logout event.")
        }
        func identifier(_ name: String) -> String? {
            guard let value = claims[name]?.stringValue, !value.isEmpty, value.utf8.count <= 255 else { return nil }
            return value
        }
        let sid = identifier("sid"), sub = identifier("sub")
        guard sid != nil || sub != nil else { throw Self.failure(.noSubject, "The logout token names neither a session (sid) nor a user (sub).") }
        guard claims["nonce"] == nil else { throw Self.failure(.nonce, "A logout token must not carry a nonce.") }
        return LogoutTokenClaims(sessionID: sid, subject: sub, jti: jti, issuedAt: Date(timeIntervalSince1970: iat))
    }

    static func failure(_ failure: Failure, _ message: String) -> AuthError {
        AuthError(.invalidToken, message: message, details: ["reason": failure.rawValue])
    }
}

/// A provider whose sessions can end by a back-channel logout token (OpenID Connect Back-Channel
/// Logout 1.0): generic OpenID Connect and Auth0.
public protocol BackChannelLogoutProvider: AuthProvider {
    /// The validator of this provider's logout tokens (its issuer, client ID and keys).
    func logoutTokenValidator() async throws -> LogoutTokenValidator
}

extension OIDCProvider: BackChannelLogoutProvider {
    public func logoutTokenValidator() async throws -> LogoutTokenValidator {
        let (metadata, keys) = try await discoveredKeys()
        return LogoutTokenValidator(issuer: metadata.issuer, clientId: configuration.clientId, keys: keys, clock: context.clock,
                                    leeway: TimeInterval(configuration.leeway))
    }
}
