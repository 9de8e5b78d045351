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
    // MARK: - POST /oauth/token

    /// `POST /oauth/token`, dispatching on `grant_type`.
    ///
    /// The client authenticates first (``authenticateClient(_:_:)``: a confidential client without
    /// valid credentials is refused with 401 before anything else is looked at or spent). Then a
    /// `DPoP` header (RFC 9449) is checked, before the grant looks at (or spends) anything:
    /// a refused proof is `400 invalid_dpop_proof`, a proof without the current nonce in nonce mode
    /// `400 use_dpop_nonce` with `DPoP-Nonce` (so an authorization code survives the nonce round
    /// trip). With an accepted proof, every grant issues DPoP-bound tokens (``issue(_:request:dpop:extra:)``);
    /// without one, Bearer tokens as before.
    func token(_ request: Request) async throws -> Response {
        let parameters = try await Auth0Parameters.body(of: request)
        let grantType = try parameters.required("grant_type")
        let (clientId, settings) = try await authenticateClient(request, parameters)
        if let settings, !settings.allows(grantType: grantType) {
            throw Auth0ClientSettings.grantNotAllowed(grantType)
        }
        let dpop = try await tokenRequestProof(request)
        switch grantType {
        case GrantType.password:
            return try await passwordGrant(parameters, clientId: clientId, realm: Auth0Tenant.defaultConnection, request: request, dpop: dpop)
        case GrantType.passwordRealm:
            let realm = try parameters.required("realm")
            return try await passwordGrant(parameters, clientId: clientId, realm: realm, request: request, dpop: dpop)
        case GrantType.authorizationCode:
            return try await authorizationCodeGrant(parameters, clientId: clientId, request: request, dpop: dpop)
        case GrantType.refreshToken:
            return try await refreshGrant(parameters, clientId: clientId, request: request, dpop: dpop)
        case GrantType.mfaOTP:
            return try await mfaOTPGrant(parameters, clientId: clientId, request: request, dpop: dpop)
        case GrantType.mfaRecoveryCode:
            return try await mfaRecoveryGrant(parameters, clientId: clientId, request: request, dpop: dpop)
        case GrantType.passwordlessOTP:
            return try await passwordlessGrant(parameters, clientId: clientId, request: request, dpop: dpop)
        case Self.webAuthnGrant:
            return try await webAuthnGrant(parameters, clientId: clientId, request: request, dpop: dpop)
        case GrantType.mfaOOB:
            return try await mfaOOBGrant(parameters, clientId: clientId, request: request, dpop: dpop)
        case Self.tokenExchangeGrant:
            return try await tokenExchangeGrant(parameters, clientId: clientId, request: request, dpop: dpop)
        case Self.deviceCodeGrant:
            return try await deviceCodeGrant(parameters, clientId: clientId, request: request, dpop: dpop)
        default:
            throw Auth0Failure.oauth("unsupported_grant_type", "Unsupported grant type: \(grantType)", status: .badRequest)
        }
    }

    /// ROPG (`password` and `password-realm`): checks the password, then either issues tokens or
    /// answers `mfa_required` for users who must pass a second factor. With bot detection on
    /// (`POST /auth0/__emulator/attack-protection {"bot_detection": true}`) every such request is
    /// refused, before the password is checked, with ``Auth0Failure/requiresVerification``: an
    /// API client cannot solve the CAPTCHA, only the login page can.
    func passwordGrant(_ parameters: Auth0Parameters, clientId: String, realm: String, request: Request, dpop: Auth0DPoPProof?) async throws -> Response {
        let username = try parameters.required("username")
        let password = try parameters.required("password")
        let tenant = await state.get(Auth0Tenant.key)
        if tenant.botDetection { throw Auth0Failure.requiresVerification }
        guard let user = tenant.user(login: username, connection: realm), let hash = user.passwordHash,
              hash.matches(password)
        else { throw Auth0Failure.wrongCredentials }
        let grant = Auth0Grant(
            userId: user.userId, clientId: clientId,
            scopes: Auth0Grant.scopes(parameters.string("scope") ?? Self.defaultScope),
            audience: parameters.string("audience"), nonce: parameters.string("nonce"), authTime: now
        )
        if user.requiresSecondFactor { throw await mfaRequired(grant: grant, user: user) }
        return try await issue(grant, request: request, dpop: dpop)
    }

    /// Opens an MFA transaction and builds the `403 mfa_required` refusal (AuthHubAuth0 docs, Auth0Endpoints: “MFA”).
    func mfaRequired(grant: Auth0Grant, user: Auth0User) async -> Auth0Failure {
        let token = randomToken()
        let expiresAt = now.addingTimeInterval(Self.mfaTokenLifetime)
        await state.update(Auth0Tenant.key) { tenant in
            tenant.mfaTokens[Auth0Tenant.digest(token)] = Auth0MFATransaction(grant: grant, expiresAt: expiresAt)
        }
        var challenges: [JSONValue] = user.totp?.confirmed == true ? [["type": "otp"]] : []
        for type in ["phone", "email"] where user.oob.contains(where: { $0.confirmed && $0.factorType == type }) {
            challenges.append(["type": .string(type)])
        }
        let requirements: JSONValue = challenges.isEmpty ? ["enroll": [["type": "otp"]]] : ["challenge": .array(challenges)]
        return Auth0Failure(status: .forbidden, body: [
            "error": "mfa_required",
            "error_description": "Multifactor authentication required",
            "mfa_token": .string(token),
            "mfa_requirements": requirements,
        ])
    }

    /// `authorization_code` with PKCE S256. A code is single-use: it is spent by the first
    /// exchange attempt, successful or not, so a wrong verifier cannot be retried. A code issued
    /// for a `dpop_jkt` needs a DPoP proof of that key (else `400 invalid_grant`, with or without a
    /// proof; the code is spent, like any failed exchange).
    func authorizationCodeGrant(_ parameters: Auth0Parameters, clientId: String, request: Request, dpop: Auth0DPoPProof?) async throws -> Response {
        let code = try parameters.required("code")
        let verifier = try parameters.required("code_verifier")
        let redirectURI = parameters.string("redirect_uri")
        let digest = Auth0Tenant.digest(code)
        let entry = await state.update(Auth0Tenant.key) { tenant in tenant.codes.removeValue(forKey: digest) }
        guard let entry, entry.expiresAt > now, entry.grant.clientId == clientId else {
            throw Auth0Failure.invalidGrant("Invalid authorization code")
        }
        guard redirectURI == entry.redirectURI else {
            throw Auth0Failure.invalidGrant("The redirect_uri does not match the one used to obtain the authorization code.")
        }
        if let required = entry.dpopJKT, dpop?.thumbprint != required {
            throw Auth0Failure.oauth(
                "invalid_grant",
                dpop == nil ? "The authorization code is bound to a DPoP key (dpop_jkt); send a DPoP proof of that key."
                    : "The DPoP proof's key does not match the dpop_jkt of the authorization request.",
                status: .badRequest
            )
        }
        let computed = Base64URL.encode(SHA256.hash(data: Data(verifier.utf8)))
        guard (43...128).contains(verifier.count), constantTimeEquals(Array(computed.utf8), Array(entry.codeChallenge.utf8)) else {
            throw Auth0Failure.invalidGrant("Failed to verify code verifier")
        }
        return try await issue(entry.grant, request: request, dpop: dpop)
    }

    /// The outcome of a refresh attempt, decided inside one state update (a refusal must still
    /// be able to write: reuse revokes the family).
    private enum RefreshOutcome: Sendable {
        case issued(Auth0Grant, Auth0User, refresh: String?)
        case refused(Auth0Failure)
    }

    /// The `issued_token_type` of a session transfer token (AuthHubAuth0 docs, Auth0Endpoints: “Session transfer”).
    static let sessionTransferTokenType = "urn:auth0:params:oauth:token-type:session_transfer_token"
    /// How long a session transfer token lives (Auth0: one minute).
    static let sessionTransferLifetime: TimeInterval = 60

    /// Whether `audience` asks for a session transfer token, `urn:{domain-host}:session_transfer`.
    static func isSessionTransferAudience(_ audience: String) -> Bool {
        audience.hasPrefix("urn:") && audience.hasSuffix(":session_transfer")
    }

    /// `refresh_token` with rotation and reuse detection (and, with the audience
    /// `urn:{host}:session_transfer`, the SSO exchange of AuthHubAuth0 docs, Auth0Endpoints: “Session transfer”, whose session transfer token
    /// is not an access token for `/userinfo`): each use retires the presented token and
    /// returns a new one in the same family; presenting a retired token revokes the whole family
    /// (every token descending from the same login) and fails with `invalid_grant` — unless the client
    /// has a reuse interval (`refresh_token_leeway`) and the token is the previous one, exchanged no
    /// longer ago than that: then it is exchanged again for a new token of the family.
    ///
    /// A requested `scope` must lie within the family's scopes, except for the API scopes the
    /// `audience` makes grantable (``Auth0API``: the My Account audience `<issuer>me/` and the
    /// Management audience `<issuer>api/v2/`, restricted by the client's `api_scopes`); a
    /// requested API scope that is not grantable is left out. The new access token records
    /// exactly the granted scopes and the audience.
    ///
    /// DPoP (RFC 9449, section 5): a family issued with a DPoP proof is bound to that key; refreshing
    /// it needs a proof of the same key (none: `400 invalid_dpop_proof`; another key: `400
    /// invalid_grant`), checked before anything changes (the token is neither rotated nor revoked).
    /// The access token of a refresh with a proof is DPoP-bound (`token_type` `DPoP`, a JWT with
    /// `cnf.jkt`).
    func refreshGrant(_ parameters: Auth0Parameters, clientId: String, request: Request, dpop: Auth0DPoPProof?) async throws -> Response {
        let latency = await state.update(Auth0Tenant.key) { tenant -> Duration in
            tenant.refreshesInProgress += 1
            tenant.refreshGrants += 1
            return tenant.refreshLatency
        }
        do {
            if latency > .zero { try await Task.sleep(for: latency) }
            let response = try await answerRefreshGrant(parameters, clientId: clientId, request: request, dpop: dpop)
            await state.update(Auth0Tenant.key) { $0.refreshesInProgress -= 1 }
            return response
        } catch {
            await state.update(Auth0Tenant.key) { $0.refreshesInProgress -= 1 }
            throw error
        }
    }

    private func answerRefreshGrant(_ parameters: Auth0Parameters, clientId: String, request: Request, dpop: Auth0DPoPProof?) async throws -> Response {
        let presented = try parameters.required("refresh_token")
        let requestedScopes = parameters.string("scope").map(Auth0Grant.scopes)
        let audience = parameters.string("audience")
        let sessionTransfer = audience.map(Self.isSessionTransferAudience) ?? false
        let access = randomToken()
        let fresh = randomToken()
        let issuedAt = now
        let issuer = await issuer(for: request)
        let digest = Auth0Tenant.digest(presented)
        // Three steps, so that the tenant changes only when the reply is ready to go out — as a server
        // that commits its transaction just before answering: (1) check the token and work out the
        // grant, changing nothing unless the token is a reused one; (2) build the reply, signing the
        // ID token (milliseconds); (3) commit the rotation, checking again that the token was not used
        // meanwhile (a concurrent use is a reuse too).
        let outcome: RefreshOutcome = await state.update(Auth0Tenant.key) { tenant in
            guard let record = tenant.refreshTokens[digest], let family = tenant.families[record.familyId],
                  !family.revoked, family.grant.clientId == clientId
            else { return .refused(.invalidRefreshToken) }
            // The DPoP binding first: a request without the key changes nothing, not even by reuse
            // detection (a thief of a bound token cannot revoke its family).
            if let refusal = Self.bindingRefusal(
                required: family.grant.dpopJKT, proof: dpop,
                missingProof: "The refresh token is DPoP-bound; send a DPoP proof of its key.",
                mismatch: "The DPoP proof's key does not match the key the refresh token is bound to."
            ) { return .refused(refusal) }
            if record.rotated, !tenant.reuseAllowed(record, clientId: clientId, now: issuedAt) {
                tenant.revokeFamily(record.familyId)
                return .refused(.invalidRefreshToken)
            }
            guard let user = tenant.users[family.grant.userId] else {
                return .refused(.invalidGrant("The refresh_token was generated for a user who doesn't exist anymore."))
            }
            var grant = family.grant
            grant.nonce = nil
            // A bound family's access tokens stay bound to its key; an unbound family's access token is
            // bound to the key of this request's proof, if any (the family stays unbound).
            grant.dpopJKT = dpop?.thumbprint
            if let audience { grant.audience = audience }
            if let requestedScopes {
                let grantable = tenant.grantableAPIScopes(audience: grant.audience, issuer: issuer, clientId: clientId)
                let granted = tenant.grantedScopes(requestedScopes, audience: grant.audience, issuer: issuer, clientId: clientId)
                guard Set(granted).subtracting(grantable).isSubset(of: family.grant.scopeSet) else {
                    return .refused(.oauth("invalid_scope", "The requested scope exceeds the scope granted by the refresh token.",
                                           status: .forbidden))
                }
                grant.scopes = granted
            } else {
                grant.scopes = tenant.grantedScopes(grant.scopes, audience: grant.audience, issuer: issuer, clientId: clientId)
            }
            return .issued(grant, user, refresh: tenant.rotates(clientId) ? fresh : nil)
        }
        guard case .issued(let grant, let user, let refresh) = outcome else {
            if case .refused(let failure) = outcome { throw failure }
            throw Auth0Failure.invalidRefreshToken
        }

        // A DPoP-bound access token is a JWT carrying `cnf.jkt` (``accessTokenJWT(grant:audience:issuer:issuedAt:)``).
        let accessToken = !sessionTransfer && grant.dpopJKT != nil
            ? try await accessTokenJWT(grant: grant, audience: grant.audience, issuer: issuer, issuedAt: issuedAt)
            : access
        let response: Response
        if sessionTransfer {
            var body: [String: JSONValue] = [
                "access_token": .string(access),
                "issued_token_type": .string(Self.sessionTransferTokenType),
                "token_type": "N_A",
                "expires_in": .number(Self.sessionTransferLifetime),
                "id_token": .string(try await idToken(grant: grant, user: user, issuedAt: issuedAt, request: request)),
            ]
            if let refresh { body["refresh_token"] = .string(refresh) }
            response = EmulatorResponse.json(.object(body), headers: [.cacheControl: "no-store"])
        } else {
            response = try await credentials(grant: grant, user: user, access: accessToken, refresh: refresh, issuedAt: issuedAt,
                                             request: request)
        }

        let committedAt = now
        let committed: Bool = await state.update(Auth0Tenant.key) { tenant in
            guard let record = tenant.refreshTokens[digest], let family = tenant.families[record.familyId], !family.revoked else {
                return false
            }
            if record.rotated, !tenant.reuseAllowed(record, clientId: clientId, now: committedAt) {
                tenant.revokeFamily(record.familyId)
                return false
            }
            tenant.purge(now: issuedAt)
            if !sessionTransfer {
                tenant.accessTokens[Auth0Tenant.digest(accessToken)] = Auth0AccessGrant(
                    grant: grant, expiresAt: issuedAt.addingTimeInterval(Self.accessTokenLifetime)
                )
            }
            if refresh != nil {
                if !record.rotated {
                    tenant.refreshTokens[digest]?.rotated = true
                    tenant.refreshTokens[digest]?.rotatedAt = committedAt
                    // The token this one came from stops being the previous token: no more reuse of it.
                    if let parent = record.parent { tenant.refreshTokens[parent]?.superseded = true }
                }
                tenant.refreshTokens[Auth0Tenant.digest(fresh)] = Auth0RefreshRecord(
                    familyId: record.familyId, rotated: false, parent: digest, issuedAt: committedAt)
            }
            return true
        }
        guard committed else { throw Auth0Failure.invalidRefreshToken }
        return response
    }
}
