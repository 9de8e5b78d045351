import AuthHub
import Foundation

/// Why an ID token was rejected: one case per check of <doc:OIDCFlows>: “ID-token validation”, named as there.
///
/// Error scheme: every rejection is an ``AuthError`` with code ``AuthErrorCode/invalidToken`` (so
/// code that only cares "was the token bad" matches one code) and the failure's raw value in
/// `details["reason"]`; read it back with ``AuthError/idTokenFailure``. A failed JWKS fetch is
/// ``missingPublicKey`` with the transport error as ``AuthError/underlying``.
public enum IDTokenValidationFailure: String, Sendable, CaseIterable {
    /// The token is empty.
    case missingIDToken
    /// Not three base64url parts with JSON-object header and payload.
    case cannotDecode
    /// The header `alg` is neither RS256 nor ES256 (this covers `none`, HS256 and ES384), or it is not
    /// the algorithm of the key its `kid` names (RS256 naming an EC key, ES256 naming an RSA key).
    case invalidAlgorithm
    /// No `kid` in the header, or no key with that `kid` in the JWKS (after one refetch), or the
    /// JWKS could not be fetched.
    case missingPublicKey
    /// The RS256 or ES256 signature does not verify with the key (for ES256 this includes a
    /// signature that is not the 64-byte `r || s` form, e.g. DER).
    case invalidSignature
    /// No string `iss`.
    case missingIss
    /// `iss` differs from the expected issuer.
    case mismatchedIss
    /// No non-empty string `sub`.
    case missingSub
    /// No `aud` string or non-empty array.
    case missingAud
    /// A string `aud` that is not the client ID.
    case mismatchedAudString
    /// An array `aud` without the client ID.
    case mismatchedAudArray
    /// No numeric `exp`.
    case missingExp
    /// `exp + leeway` is not after now.
    case pastExp
    /// No numeric `iat`.
    case missingIat
    /// A nonce was sent but the token has none.
    case missingNonce
    /// The token's `nonce` differs from the one sent.
    case mismatchedNonce
    /// Several audiences but no `azp`.
    case missingAzp
    /// Several audiences and `azp` is not the client ID.
    case mismatchedAzp
    /// `max_age` was sent but the token has no numeric `auth_time`.
    case missingAuthTime
    /// `auth_time + max_age + leeway` is before now.
    case pastLastAuth
    /// An `org_…` organization was expected but the token has no `org_id`.
    case missingOrgId
    /// `org_id` differs from the expected organization.
    case mismatchedOrgId
    /// An organization name was expected but the token has no `org_name`.
    case missingOrgName
    /// `org_name` differs from the lowercased expected name.
    case mismatchedOrgName
    /// `exp`, `iat` or `auth_time` is not a date between 1970 and 9999 (AuthHub's own check, before
    /// any comparison: such a number cannot be a real time and must not reach a conversion).
    case invalidTimeClaim

    /// A message safe to show a user.
    public var message: String { message(naming: "ID token") }

    /// The message with `token` naming the kind of token checked: the signature and time checks
    /// are shared with access-token verification (``AccessTokenVerifier``), whose failures must say
    /// "access token", not "ID token".
    package func message(naming token: String) -> String {
        switch self {
        case .missingIDToken: "The \(token) is missing."
        case .cannotDecode: "The \(token) could not be decoded."
        case .invalidAlgorithm: "The \(token) is signed with an unsupported algorithm (RS256 or ES256 is required, matching the key)."
        case .missingPublicKey: "No public key was found to verify the \(token)."
        case .invalidSignature: "The \(token) signature is invalid."
        case .missingIss: "The \(token) has no issuer (iss)."
        case .mismatchedIss: "The \(token) was issued by an unexpected issuer (iss)."
        case .missingSub: "The \(token) has no subject (sub)."
        case .missingAud: "The \(token) has no audience (aud)."
        case .mismatchedAudString, .mismatchedAudArray: "The \(token) was not issued for this client (aud)."
        case .missingExp: "The \(token) has no expiry (exp)."
        case .pastExp: "The \(token) has expired (exp)."
        case .missingIat: "The \(token) has no issue time (iat)."
        case .missingNonce: "The \(token) has no nonce."
        case .mismatchedNonce: "The \(token) nonce does not match this sign-in attempt."
        case .missingAzp: "The \(token) has no authorized party (azp)."
        case .mismatchedAzp: "The \(token) authorized party (azp) is not this client."
        case .missingAuthTime: "The \(token) has no authentication time (auth_time)."
        case .pastLastAuth: "The last authentication is older than max_age allows (auth_time)."
        case .missingOrgId: "The \(token) has no organization id (org_id)."
        case .mismatchedOrgId: "The \(token) organization id (org_id) is not the expected one."
        case .missingOrgName: "The \(token) has no organization name (org_name)."
        case .mismatchedOrgName: "The \(token) organization name (org_name) is not the expected one."
        case .invalidTimeClaim: "The \(token) carries a time (exp, iat or auth_time) outside the years 1970–9999."
        }
    }

    /// The ``AuthError`` for this failure (code ``AuthErrorCode/invalidToken``).
    /// - Parameters:
    ///   - details: extra non-secret details (e.g. expected and actual issuer); `reason` is added.
    ///   - underlying: the cause, if any.
    public func error(details: [String: String] = [:], underlying: (any Error & Sendable)? = nil) -> AuthError {
        var all = details
        all["reason"] = rawValue
        let retryable = (underlying as? AuthError)?.isRetryable ?? false
        return AuthError(.invalidToken, message: message, isRetryable: retryable, underlying: underlying, details: all)
    }
}

extension AuthError {
    /// The ID-token check that failed, when this error is an ID-token rejection.
    public var idTokenFailure: IDTokenValidationFailure? {
        guard code == .invalidToken, let reason = details["reason"] else { return nil }
        return IDTokenValidationFailure(rawValue: reason)
    }
}
