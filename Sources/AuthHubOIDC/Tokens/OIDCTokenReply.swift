import AuthHub
import Foundation

/// The JSON reply of a token endpoint (code exchange, refresh, and the OAuth grants Auth0 adds):
/// the OAuth field names.
///
/// `access_token` is required and must not be empty: a reply without one is an error naming the
/// field, never a session holding an empty token. Everything else is optional, as in Auth0.swift
/// (a missing `token_type` reads as `Bearer` where a session is built). `expires_in` may be a number
/// or a numeric string; when present it must be a positive, finite number of seconds (a huge one is
/// clamped later, see ``SessionTimeLimits``); when absent the tokens count as expired at once.
package struct OIDCTokenReply: Decodable, Sendable {
    /// `access_token`.
    package var accessToken: String
    /// `token_type` (`Bearer`, `DPoP`).
    package var tokenType: String?
    /// `id_token`.
    package var idToken: String?
    /// `refresh_token`, when issued or rotated.
    package var refreshToken: String?
    /// `expires_in` in seconds, range-checked.
    package var expiresIn: Double?
    /// `scope`.
    package var scope: String?
    /// `recovery_code` (Auth0 MFA with a recovery code).
    package var recoveryCode: String?
    /// `issued_token_type` (token exchange, RFC 8693).
    package var issuedTokenType: String?

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token", tokenType = "token_type", idToken = "id_token", refreshToken = "refresh_token"
        case expiresIn = "expires_in", scope, recoveryCode = "recovery_code", issuedTokenType = "issued_token_type"
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        accessToken = try container.decode(String.self, forKey: .accessToken)
        guard !accessToken.isEmpty else {
            throw DecodingError.dataCorruptedError(forKey: .accessToken, in: container, debugDescription: "empty access token")
        }
        tokenType = try container.decodeIfPresent(String.self, forKey: .tokenType)
        idToken = try container.decodeIfPresent(String.self, forKey: .idToken)
        refreshToken = try container.decodeIfPresent(String.self, forKey: .refreshToken)
        expiresIn = try Self.lifetime(container, .expiresIn)
        scope = try container.decodeIfPresent(String.self, forKey: .scope)
        recoveryCode = try container.decodeIfPresent(String.self, forKey: .recoveryCode)
        issuedTokenType = try container.decodeIfPresent(String.self, forKey: .issuedTokenType)
    }

    /// A lifetime in seconds: a number or a numeric string, positive and finite; nil when absent or null.
    static func lifetime<K: CodingKey>(_ container: KeyedDecodingContainer<K>, _ key: K) throws -> Double? {
        guard container.contains(key), try !container.decodeNil(forKey: key) else { return nil }
        let value: Double
        if let number = try? container.decode(Double.self, forKey: key) {
            value = number
        } else if let text = try? container.decode(String.self, forKey: key) {
            guard let number = Double(text.trimmingCharacters(in: .whitespaces)) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "not a number of seconds")
            }
            value = number
        } else {
            // Neither a representable number nor a string: the decoder names the field and the type.
            value = try container.decode(Double.self, forKey: key)
        }
        guard value.isFinite, value > 0 else {
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "not a positive number of seconds")
        }
        return value
    }

    /// When the tokens expire: `now + expires_in`, clamped to ``SessionTimeLimits/maxLifetime``; `now`
    /// when the reply has no `expires_in`.
    package func expiresAt(now: Date, provider: String) throws -> Date {
        guard let expiresIn else { return now }
        return try SessionTimeLimits.expiry(afterSeconds: expiresIn, from: now, provider: provider)
    }
}
