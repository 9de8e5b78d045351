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
    // MARK: - Token issuance

    /// Stores a new access token (and refresh token when `offline_access` was granted and the
    /// grant is not delegated to an actor) for `grant` and builds the Credentials reply (AuthHubAuth0 docs, Auth0Endpoints: “Models”).
    ///
    /// API scopes (``Auth0API``) are granted only for their API's audience and when the client
    /// may receive them; other requested scopes are granted as asked (logins do not restrict them).
    ///
    /// With `dpop` (the request's accepted DPoP proof, RFC 9449, section 5) the tokens are bound to
    /// the proof's key: the grant records its thumbprint, the access token is a JWT with
    /// `cnf: {jkt}` (``accessTokenJWT(grant:audience:issuer:issuedAt:)``), the reply says
    /// `token_type: "DPoP"`, and the refresh-token family is bound to the key.
    func issue(_ grantOfRequest: Auth0Grant, request: Request, dpop: Auth0DPoPProof?, extra: [String: JSONValue] = [:]) async throws -> Response {
        var binding = grantOfRequest
        binding.dpopJKT = dpop?.thumbprint
        let requestedGrant = binding
        let access = randomToken()
        let familyId = randomToken(bytes: 12)
        let issuedAt = now
        let issuer = await issuer(for: request)
        let refreshCandidate = randomToken()
        let issued: (Auth0User, Auth0Grant, String?)? = await state.update(Auth0Tenant.key) { tenant in
            guard let user = tenant.users[requestedGrant.userId] else { return nil }
            var grant = requestedGrant
            grant.scopes = tenant.grantedScopes(grant.scopes, audience: grant.audience, issuer: issuer, clientId: grant.clientId)
            let refresh = grant.scopes.contains("offline_access") && !grant.delegated ? refreshCandidate : nil
            tenant.purge(now: issuedAt)
            tenant.accessTokens[Auth0Tenant.digest(access)] = Auth0AccessGrant(
                grant: grant, expiresAt: issuedAt.addingTimeInterval(Self.accessTokenLifetime)
            )
            if let refresh {
                tenant.families[familyId] = Auth0RefreshFamily(grant: grant, revoked: false)
                tenant.refreshTokens[Auth0Tenant.digest(refresh)] = Auth0RefreshRecord(familyId: familyId, rotated: false)
            }
            if let sessionId = grant.sessionId { tenant.noteClient(grant.clientId, inSession: sessionId) }
            return (user, grant, refresh)
        }
        guard let (user, grant, refresh) = issued else { throw Auth0Failure.invalidGrant("The user does not exist.") }
        var accessToken = access
        if grant.dpopJKT != nil || !(grant.audience ?? "").isEmpty {
            // For an API audience Auth0 issues a JWT access token (its RFC 9068-style profile); the
            // tenant keeps recognising it by digest like an opaque one. A DPoP-bound token is a JWT
            // too, to carry its `cnf` claim.
            accessToken = try await accessTokenJWT(grant: grant, audience: grant.audience, issuer: issuer, issuedAt: issuedAt)
            let jwt = accessToken
            _ = await state.update(Auth0Tenant.key) { tenant -> Bool in
                guard let record = tenant.accessTokens.removeValue(forKey: Auth0Tenant.digest(access)) else { return false }
                tenant.accessTokens[Auth0Tenant.digest(jwt)] = record
                return true
            }
        }
        return try await credentials(grant: grant, user: user, access: accessToken, refresh: refresh, issuedAt: issuedAt,
                                     request: request, extra: extra)
    }

    /// A JWT access token for an API audience, signed with the tenant's key (the JWKS at
    /// `/.well-known/jwks.json`): `iss`, `sub`, `aud` (the API, and the tenant's `/userinfo` when
    /// `openid` was granted; only `/userinfo` for a DPoP-bound token without an audience), `azp`
    /// (the client), `iat`, `exp`, `scope`, `jti`, `org_id` for an organization's login, and
    /// `cnf: {"jkt": <thumbprint>}` for a DPoP-bound grant (RFC 9449, section 6.1).
    func accessTokenJWT(grant: Auth0Grant, audience: String?, issuer: String, issuedAt: Date) async throws -> String {
        let iat = issuedAt.timeIntervalSince1970.rounded(.down)
        let userinfo = issuer + "userinfo"
        var audiences: [JSONValue] = []
        if let audience, !audience.isEmpty { audiences.append(.string(audience)) }
        if grant.scopes.contains("openid") || audiences.isEmpty { audiences.append(.string(userinfo)) }
        var claims: [String: JSONValue] = [
            "iss": .string(issuer), "sub": .string(grant.userId), "aud": .array(audiences), "azp": .string(grant.clientId),
            "iat": .number(iat), "exp": .number(iat + Self.accessTokenLifetime), "scope": .string(grant.scope),
            "jti": .string(randomToken(bytes: 12)),
        ]
        if let organization = grant.organization { claims["org_id"] = .string(organization.id) }
        if let jkt = grant.dpopJKT { claims["cnf"] = ["jkt": .string(jkt)] }
        return try await signingKey.sign(claims)
    }

    /// The Credentials body for already stored tokens; `token_type` is `Bearer`, or `DPoP` for a
    /// DPoP-bound grant.
    func credentials(
        grant: Auth0Grant, user: Auth0User, access: String, refresh: String?, issuedAt: Date,
        request: Request, extra: [String: JSONValue] = [:]
    ) async throws -> Response {
        var body: [String: JSONValue] = [
            "access_token": .string(access),
            "token_type": grant.dpopJKT == nil ? "Bearer" : "DPoP",
            "expires_in": .number(Self.accessTokenLifetime),
            "scope": .string(grant.scope),
        ]
        if grant.scopes.contains("openid") {
            body["id_token"] = .string(try await idToken(grant: grant, user: user, issuedAt: issuedAt, request: request))
        }
        if let refresh { body["refresh_token"] = .string(refresh) }
        body.merge(extra) { _, new in new }
        return EmulatorResponse.json(.object(body), headers: [.cacheControl: "no-store"])
    }

    /// Signs the ID token: `iss`, `sub`, `aud` (the client id), `iat`, `exp`, `auth_time` (always:
    /// when the user last gave credentials — for a login through the browser session, the
    /// session's original login time, which `max_age` checks rely on), `nonce` when the login
    /// request carried one, `act` for a delegated token exchange, `org_id` and `org_name` (lower
    /// case) for a login made for an organization — both, as a tenant with "use organization names
    /// in the Authentication API" on sends them (AuthHubAuth0 docs, Auth0Endpoints: “ID-token validation” checks `org_name` when the expected value
    /// is a name) — `sid` (the browser session's id, ``Auth0LoginSession/sessionId``) for a grant
    /// made through `/authorize`'s browser session, and the user's claims for the granted scopes.
    func idToken(grant: Auth0Grant, user: Auth0User, issuedAt: Date, request: Request) async throws -> String {
        let iat = issuedAt.timeIntervalSince1970.rounded(.down)
        var claims = user.claims(scopes: grant.scopeSet)
        claims["iss"] = .string(await issuer(for: request))
        claims["aud"] = .string(grant.clientId)
        claims["iat"] = .number(iat)
        claims["exp"] = .number(iat + Self.idTokenLifetime)
        claims["auth_time"] = .number(grant.authTime.timeIntervalSince1970.rounded(.down))
        if let nonce = grant.nonce { claims["nonce"] = .string(nonce) }
        if let sessionId = grant.sessionId { claims["sid"] = .string(sessionId) }
        if let actor = grant.actor { claims["act"] = actor }
        if let organization = grant.organization {
            claims["org_id"] = .string(organization.id)
            claims["org_name"] = .string(organization.name)
        }
        return try await signingKey.sign(claims)
    }
}
