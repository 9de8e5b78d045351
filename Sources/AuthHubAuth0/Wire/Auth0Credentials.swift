import AuthHub
import AuthHubOIDC
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
    /// The DPoP key the tokens are bound to (`token_type` `DPoP`); nil for bearer tokens.
    public var dpopKey: DPoPKey?

    /// Creates credentials.
    public init(accessToken: Secret<String>, tokenType: String = "Bearer", idToken: Secret<String> = Secret(""),
                refreshToken: Secret<String>? = nil, expiresAt: Date, scope: String? = nil,
                recoveryCode: Secret<String>? = nil, issuedTokenType: String? = nil, dpopKey: DPoPKey? = nil) {
        self.dpopKey = dpopKey
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.scope = scope
        self.recoveryCode = recoveryCode
        self.issuedTokenType = issuedTokenType
    }

    /// The credentials of a decoded token reply (see ``OIDCTokenReply``: `access_token` required,
    /// `expires_in` range-checked), `expires_in` counted from `now` (clamped, see
    /// ``SessionTimeLimits/expiry(afterSeconds:from:provider:field:)``; `now` when absent). Missing
    /// optional strings become `""`.
    package init(_ reply: OIDCTokenReply, now: Date, provider: String) throws {
        self.init(accessToken: Secret(reply.accessToken), tokenType: reply.tokenType ?? "", idToken: Secret(reply.idToken ?? ""),
                  refreshToken: reply.refreshToken.map(Secret.init), expiresAt: try reply.expiresAt(now: now, provider: provider),
                  scope: reply.scope, recoveryCode: reply.recoveryCode.map(Secret.init), issuedTokenType: reply.issuedTokenType)
    }

    /// Decodes a token reply body outside an ``APIClient`` (errors name the field as the client's do).
    package static func decode(_ body: Data, now: Date, provider: String,
                               operation: AuthOperation = .other) throws -> Auth0Credentials {
        let reply: OIDCTokenReply
        do {
            reply = try JSONDecoder().decode(OIDCTokenReply.self, from: body)
        } catch {
            throw ReplyDecodingFailure.error(error, provider: provider, operation: operation, statusCode: nil, emptyBody: body.isEmpty)
        }
        return try Auth0Credentials(reply, now: now, provider: provider)
    }

    /// A core ``Session`` for provider `providerID` holding these tokens.
    /// A DPoP-bound session keeps its key (``Session/dpopKeyExtra``).
    public func session(providerID: String, accountKey: String = SessionKey.defaultAccount, issuedAt: Date? = nil) -> Session {
        Session(providerID: providerID, accountKey: accountKey, accessToken: accessToken,
                tokenType: tokenType.isEmpty ? "Bearer" : tokenType,
                idToken: idToken.isEmpty ? nil : idToken, refreshToken: refreshToken, expiresAt: expiresAt,
                scope: scope, secretExtras: Session.secretExtras(dpopKey: dpopKey), issuedAt: issuedAt)
    }

    public var description: String {
        "Auth0Credentials(tokenType: \(tokenType), expiresAt: \(expiresAt), scope: \(scope ?? "nil"), refreshToken: \(refreshToken == nil ? "none" : "<redacted>"))"
    }
}
