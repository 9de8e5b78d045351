import AuthHub
import Foundation

/// The tokens of an Auth0 `/oauth/token` reply (<doc:Auth0Endpoints>: “Models” "Credentials").
///
/// Every token is a `Secret`; `description` shows none of them.
public struct Auth0Credentials: Sendable, Hashable, CustomStringConvertible {
    /// `access_token`.
    public var accessToken: Secret<String>
    /// `token_type` (`Bearer` or `DPoP`).
    public var tokenType: String
    /// `id_token`; empty when the reply has none.
    public var idToken: Secret<String>
    /// `refresh_token`, present only when Auth0 issued (or rotated) one.
    public var refreshToken: Secret<String>?
    /// `now + expires_in`; `now` when the reply has no `expires_in`.
    public var expiresAt: Date
    /// `scope`.
    public var scope: String?
    /// `recovery_code`: a new MFA recovery code after one was used.
    public var recoveryCode: Secret<String>?
    /// `issued_token_type` (session-transfer and token-exchange replies).
    public var issuedTokenType: String?

    /// Creates credentials.
    public init(accessToken: Secret<String>, tokenType: String = "Bearer", idToken: Secret<String> = Secret(""),
                refreshToken: Secret<String>? = nil, expiresAt: Date, scope: String? = nil,
                recoveryCode: Secret<String>? = nil, issuedTokenType: String? = nil) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.scope = scope
        self.recoveryCode = recoveryCode
        self.issuedTokenType = issuedTokenType
    }

    /// Reads a token reply. Missing strings become `""`; `expires_in` may be a number or a numeric
    /// string and becomes `now + expires_in` (see ``SessionTimeLimits/expiry(afterSeconds:from:provider:field:)``).
    /// - Throws: ``AuthErrorCode/invalidRequest`` when the body is not a JSON object or
    ///   `expires_in` is not a number, a numeric string, or is negative, zero or not finite.
    public init(json: JSONValue, now: Date) throws {
        guard json.objectValue != nil else {
            throw AuthError(.invalidRequest, message: "The token reply is not a JSON object.")
        }
        let expiresIn: Double
        switch json["expires_in"] {
        case nil, .null?: expiresIn = 0
        case .number(let n)?: expiresIn = n
        case .string(let s)?:
            guard let n = Double(s) else { throw AuthError(.invalidRequest, message: "The token reply's expires_in is not a number.") }
            expiresIn = n
        default: throw AuthError(.invalidRequest, message: "The token reply's expires_in is not a number.")
        }
        self.init(
            accessToken: Secret(json["access_token"]?.stringValue ?? ""),
            tokenType: json["token_type"]?.stringValue ?? "",
            idToken: Secret(json["id_token"]?.stringValue ?? ""),
            refreshToken: json["refresh_token"]?.stringValue.map(Secret.init),
            // A missing expires_in means "expired now" (refresh before use); a present one must be a positive,
            // finite number of seconds (clamped to ten years, see SessionTimeLimits).
            expiresAt: json["expires_in"] == nil || json["expires_in"] == .null
                ? now : try SessionTimeLimits.expiry(afterSeconds: expiresIn, from: now, provider: "Auth0"),
            scope: json["scope"]?.stringValue,
            recoveryCode: json["recovery_code"]?.stringValue.map(Secret.init),
            issuedTokenType: json["issued_token_type"]?.stringValue)
    }

    /// A core ``Session`` for provider `providerID` holding these tokens.
    public func session(providerID: String, accountKey: String = SessionKey.defaultAccount, issuedAt: Date? = nil) -> Session {
        Session(providerID: providerID, accountKey: accountKey, accessToken: accessToken,
                tokenType: tokenType.isEmpty ? "Bearer" : tokenType,
                idToken: idToken.isEmpty ? nil : idToken, refreshToken: refreshToken, expiresAt: expiresAt,
                scope: scope, issuedAt: issuedAt)
    }

    public var description: String {
        "Auth0Credentials(tokenType: \(tokenType), expiresAt: \(expiresAt), scope: \(scope ?? "nil"), refreshToken: \(refreshToken == nil ? "none" : "<redacted>"))"
    }
}
