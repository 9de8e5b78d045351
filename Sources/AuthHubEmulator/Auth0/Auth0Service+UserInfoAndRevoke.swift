import enum AuthHub.Base64URL
import enum AuthHub.JSONValue
import struct AuthHub.Secret
import func AuthHub.constantTimeEquals
import AuthHubFactors
import Crypto
import Foundation
import HTTPTypes
import Hummingbird

extension Auth0Service {
    // MARK: - /userinfo and /oauth/revoke

    /// `GET /userinfo` with `Authorization: Bearer <access token>` (or, for a DPoP-bound token,
    /// `Authorization: DPoP <access token>` and a `DPoP` proof: ``checkPresentation(_:of:request:)``):
    /// the user's claims for the token's scopes. A DPoP refusal is `401 {error, error_description}`
    /// with `WWW-Authenticate: DPoP error="…", error_description="…", algs="ES256"` (and `DPoP-Nonce`
    /// for `use_dpop_nonce`).
    func userinfo(_ request: Request) async throws -> Response {
        guard let presented = request.presentedAccessToken else { throw Auth0Failure.invalidToken("Missing access token.") }
        let tenant = await state.get(Auth0Tenant.key)
        guard let access = tenant.accessTokens[Auth0Tenant.digest(presented.token)], access.expiresAt > now else {
            throw Auth0Failure.invalidToken("The access token is invalid or has expired.")
        }
        do {
            try await checkPresentation(presented, of: access, request: request)
        } catch {
            throw error.resourceFailure { code, description in .oauth(code, description, status: .unauthorized) }
        }
        guard let user = tenant.users[access.grant.userId] else {
            throw Auth0Failure.invalidToken("The user of the access token no longer exists.")
        }
        return EmulatorResponse.json(.object(user.claims(scopes: access.grant.scopeSet)))
    }

    /// `POST /oauth/revoke` `{client_id, token}`: revokes the refresh token's whole family and
    /// answers 200 with an empty body; an unknown token is accepted silently (RFC 7009, section 2.2), a
    /// token of another client is refused. A confidential client authenticates first
    /// (``authenticateClient(_:_:)``).
    func revoke(_ request: Request) async throws -> Response {
        let parameters = try await Auth0Parameters.body(of: request)
        let (clientId, _) = try await authenticateClient(request, parameters)
        let token = try parameters.required("token")
        let refused: Auth0Failure? = await state.update(Auth0Tenant.key) { tenant in
            guard let record = tenant.refreshTokens[Auth0Tenant.digest(token)],
                  let family = tenant.families[record.familyId]
            else { return nil }
            guard family.grant.clientId == clientId else {
                return .oauth("unauthorized_client", "The token was not issued to this client.", status: .forbidden)
            }
            tenant.revokeFamily(record.familyId)
            return nil
        }
        if let refused { throw refused }
        return Response(status: .ok, headers: [.cacheControl: "no-store"])
    }
}
