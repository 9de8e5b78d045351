import enum AuthHub.Base64URL
import enum AuthHub.JSONValue
import struct AuthHub.Secret
import func AuthHub.constantTimeEquals
import AuthHubFactors
import Crypto
import Foundation
import HTTPTypes
import Hummingbird

/// The Auth0 Authentication API of the emulator: the handlers behind ``Auth0EmulatorModule``'s
/// routes, written from AuthHubAuth0 docs, Auth0Endpoints: “Conventions”, “Web Auth”, “ID-token validation”, “Authentication API”, “Credentials manager”, “Models”; AuthHubAuth0 docs, Auth0Errors.
///
/// Token shapes: access tokens and refresh tokens are opaque random strings (the emulator keeps
/// only their SHA-256 digests); ID tokens are JWTs signed with the instance's ``Auth0SigningKey``
/// (RS256, or ES256 when the module was created so). Lifetimes follow Auth0's defaults: access
/// tokens 86 400 s, ID tokens 36 000 s, authorization codes and MFA tokens 600 s. Every time comes
/// from the emulator's injected clock.
struct Auth0Service: Sendable {
    /// The path prefix of the module.
    static let prefix = "/auth0"
    static let accessTokenLifetime: TimeInterval = 86_400
    static let idTokenLifetime: TimeInterval = 36_000
    static let codeLifetime: TimeInterval = 600
    static let mfaTokenLifetime: TimeInterval = 600
    static let loginLifetime: TimeInterval = 1_800
    /// The scope of a login request that sends none.
    static let defaultScope = "openid profile email"

    /// Grant-type URNs (AuthHubAuth0 docs, Auth0Endpoints: “Authentication API”).
    enum GrantType {
        static let password = "password"
        static let passwordRealm = "http://auth0.com/oauth/grant-type/password-realm"
        static let authorizationCode = "authorization_code"
        static let refreshToken = "refresh_token"
        static let mfaOTP = "http://auth0.com/oauth/grant-type/mfa-otp"
        static let mfaRecoveryCode = "http://auth0.com/oauth/grant-type/mfa-recovery-code"
        static let passwordlessOTP = "http://auth0.com/oauth/grant-type/passwordless/otp"
        static let mfaOOB = "http://auth0.com/oauth/grant-type/mfa-oob"
    }

    let environment: EmulatorEnvironment
    let signingKey: Auth0SigningKey

    var state: EmulatorState { environment.state }
    var now: Date { environment.clock.now }

    /// A fresh random token: 32 bytes, base64url.
    func randomToken(bytes: Int = 32) -> String { Base64URL.encode(environment.random.bytes(bytes)) }

    /// The tenant's issuer, `http://HOST:PORT/auth0/` with the trailing slash (AuthHubAuth0 docs, Auth0Endpoints: “ID-token validation”: the
    /// expected issuer is the domain URL with a trailing `/`).
    func issuer(for request: Request) async -> String {
        if let base = await state.baseURL {
            return base.absoluteString + Self.prefix + "/"
        }
        let host = request.head.authority ?? "127.0.0.1"
        return "http://\(host)\(Self.prefix)/"
    }

    // MARK: - Discovery

    /// `GET /.well-known/openid-configuration`, with the device authorization endpoint of RFC 8628
    /// (section 4: `device_authorization_endpoint`) and its grant type.
    func discovery(_ request: Request) async -> Response {
        let issuer = await issuer(for: request)
        let document: JSONValue = [
            "issuer": .string(issuer),
            "authorization_endpoint": .string(issuer + "authorize"),
            "token_endpoint": .string(issuer + "oauth/token"),
            "userinfo_endpoint": .string(issuer + "userinfo"),
            "jwks_uri": .string(issuer + ".well-known/jwks.json"),
            "revocation_endpoint": .string(issuer + "oauth/revoke"),
            "device_authorization_endpoint": .string(issuer + "oauth/device/code"),
            "mfa_challenge_endpoint": .string(issuer + "mfa/challenge"),
            "scopes_supported": ["openid", "profile", "email", "phone", "offline_access"],
            "response_types_supported": ["code"],
            "response_modes_supported": ["query"],
            "code_challenge_methods_supported": ["S256"],
            "grant_types_supported": [
                .string(GrantType.authorizationCode), .string(GrantType.refreshToken), .string(GrantType.password),
                .string(GrantType.passwordRealm), .string(GrantType.mfaOTP), .string(GrantType.mfaRecoveryCode),
                .string(GrantType.passwordlessOTP), .string(Self.webAuthnGrant), .string(GrantType.mfaOOB),
                .string(Self.tokenExchangeGrant), .string(Self.deviceCodeGrant),
            ],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": [.string(signingKey.algorithm.rawValue)],
            "token_endpoint_auth_methods_supported": ["none"],
            "claims_supported": [
                "aud", "auth_time", "email", "email_verified", "exp", "family_name", "given_name", "iat", "iss",
                "name", "nickname", "nonce", "picture", "sub", "updated_at",
            ],
            "request_uri_parameter_supported": false,
        ]
        return EmulatorResponse.json(document)
    }

    /// `GET /.well-known/jwks.json`.
    func jwks() async throws -> Response {
        EmulatorResponse.json(try await signingKey.jwks())
    }

    // MARK: - Token issuance

    /// Stores a new access token (and refresh token when `offline_access` was granted and the
    /// grant is not delegated to an actor) for `grant` and builds the Credentials reply (AuthHubAuth0 docs, Auth0Endpoints: “Models”).
    ///
    /// API scopes (``Auth0API``) are granted only for their API's audience and when the client
    /// may receive them; other requested scopes are granted as asked (logins do not restrict them).
    func issue(_ requestedGrant: Auth0Grant, request: Request, extra: [String: JSONValue] = [:]) async throws -> Response {
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
            return (user, grant, refresh)
        }
        guard let (user, grant, refresh) = issued else { throw Auth0Failure.invalidGrant("The user does not exist.") }
        var accessToken = access
        if let audience = grant.audience, !audience.isEmpty {
            // For an API audience Auth0 issues a JWT access token (its RFC 9068-style profile); the
            // tenant keeps recognising it by digest like an opaque one.
            accessToken = try await accessTokenJWT(grant: grant, audience: audience, issuer: issuer, issuedAt: issuedAt)
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
    /// `openid` was granted), `azp` (the client), `iat`, `exp`, `scope`, `jti`, and `org_id` for an
    /// organization's login.
    func accessTokenJWT(grant: Auth0Grant, audience: String, issuer: String, issuedAt: Date) async throws -> String {
        let iat = issuedAt.timeIntervalSince1970.rounded(.down)
        var audiences: [JSONValue] = [.string(audience)]
        if grant.scopes.contains("openid") { audiences.append(.string(issuer + "userinfo")) }
        var claims: [String: JSONValue] = [
            "iss": .string(issuer), "sub": .string(grant.userId), "aud": .array(audiences), "azp": .string(grant.clientId),
            "iat": .number(iat), "exp": .number(iat + Self.accessTokenLifetime), "scope": .string(grant.scope),
            "jti": .string(randomToken(bytes: 12)),
        ]
        if let organization = grant.organization { claims["org_id"] = .string(organization.id) }
        return try await signingKey.sign(claims)
    }

    /// The Credentials body for already stored tokens.
    func credentials(
        grant: Auth0Grant, user: Auth0User, access: String, refresh: String?, issuedAt: Date,
        request: Request, extra: [String: JSONValue] = [:]
    ) async throws -> Response {
        var body: [String: JSONValue] = [
            "access_token": .string(access),
            "token_type": "Bearer",
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
    /// is a name) — and the user's claims for the granted scopes.
    func idToken(grant: Auth0Grant, user: Auth0User, issuedAt: Date, request: Request) async throws -> String {
        let iat = issuedAt.timeIntervalSince1970.rounded(.down)
        var claims = user.claims(scopes: grant.scopeSet)
        claims["iss"] = .string(await issuer(for: request))
        claims["aud"] = .string(grant.clientId)
        claims["iat"] = .number(iat)
        claims["exp"] = .number(iat + Self.idTokenLifetime)
        claims["auth_time"] = .number(grant.authTime.timeIntervalSince1970.rounded(.down))
        if let nonce = grant.nonce { claims["nonce"] = .string(nonce) }
        if let actor = grant.actor { claims["act"] = actor }
        if let organization = grant.organization {
            claims["org_id"] = .string(organization.id)
            claims["org_name"] = .string(organization.name)
        }
        return try await signingKey.sign(claims)
    }

    // MARK: - POST /oauth/token

    /// `POST /oauth/token`, dispatching on `grant_type`.
    func token(_ request: Request) async throws -> Response {
        let parameters = try await Auth0Parameters.body(of: request)
        let grantType = try parameters.required("grant_type")
        let clientId = try parameters.required("client_id")
        if let settings = await state.get(Auth0Tenant.key).clients[clientId], !settings.allows(grantType: grantType) {
            throw Auth0ClientSettings.grantNotAllowed(grantType)
        }
        switch grantType {
        case GrantType.password:
            return try await passwordGrant(parameters, clientId: clientId, realm: Auth0Tenant.defaultConnection, request: request)
        case GrantType.passwordRealm:
            let realm = try parameters.required("realm")
            return try await passwordGrant(parameters, clientId: clientId, realm: realm, request: request)
        case GrantType.authorizationCode:
            return try await authorizationCodeGrant(parameters, clientId: clientId, request: request)
        case GrantType.refreshToken:
            return try await refreshGrant(parameters, clientId: clientId, request: request)
        case GrantType.mfaOTP:
            return try await mfaOTPGrant(parameters, clientId: clientId, request: request)
        case GrantType.mfaRecoveryCode:
            return try await mfaRecoveryGrant(parameters, clientId: clientId, request: request)
        case GrantType.passwordlessOTP:
            return try await passwordlessGrant(parameters, clientId: clientId, request: request)
        case Self.webAuthnGrant:
            return try await webAuthnGrant(parameters, clientId: clientId, request: request)
        case GrantType.mfaOOB:
            return try await mfaOOBGrant(parameters, clientId: clientId, request: request)
        case Self.tokenExchangeGrant:
            return try await tokenExchangeGrant(parameters, clientId: clientId, request: request)
        case Self.deviceCodeGrant:
            return try await deviceCodeGrant(parameters, clientId: clientId, request: request)
        default:
            throw Auth0Failure.oauth("unsupported_grant_type", "Unsupported grant type: \(grantType)", status: .badRequest)
        }
    }

    /// ROPG (`password` and `password-realm`): checks the password, then either issues tokens or
    /// answers `mfa_required` for users who must pass a second factor. With bot detection on
    /// (`POST /auth0/__emulator/attack-protection {"bot_detection": true}`) every such request is
    /// refused, before the password is checked, with ``Auth0Failure/requiresVerification``: an
    /// API client cannot solve the CAPTCHA, only the login page can.
    func passwordGrant(_ parameters: Auth0Parameters, clientId: String, realm: String, request: Request) async throws -> Response {
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
        return try await issue(grant, request: request)
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
    /// exchange attempt, successful or not, so a wrong verifier cannot be retried.
    func authorizationCodeGrant(_ parameters: Auth0Parameters, clientId: String, request: Request) async throws -> Response {
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
        let computed = Base64URL.encode(SHA256.hash(data: Data(verifier.utf8)))
        guard (43...128).contains(verifier.count), constantTimeEquals(Array(computed.utf8), Array(entry.codeChallenge.utf8)) else {
            throw Auth0Failure.invalidGrant("Failed to verify code verifier")
        }
        return try await issue(entry.grant, request: request)
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
    func refreshGrant(_ parameters: Auth0Parameters, clientId: String, request: Request) async throws -> Response {
        let latency = await state.update(Auth0Tenant.key) { tenant -> Duration in
            tenant.refreshesInProgress += 1
            tenant.refreshGrants += 1
            return tenant.refreshLatency
        }
        do {
            if latency > .zero { try await Task.sleep(for: latency) }
            let response = try await answerRefreshGrant(parameters, clientId: clientId, request: request)
            await state.update(Auth0Tenant.key) { $0.refreshesInProgress -= 1 }
            return response
        } catch {
            await state.update(Auth0Tenant.key) { $0.refreshesInProgress -= 1 }
            throw error
        }
    }

    private func answerRefreshGrant(_ parameters: Auth0Parameters, clientId: String, request: Request) async throws -> Response {
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
            if record.rotated, !tenant.reuseAllowed(record, clientId: clientId, now: issuedAt) {
                tenant.revokeFamily(record.familyId)
                return .refused(.invalidRefreshToken)
            }
            guard let user = tenant.users[family.grant.userId] else {
                return .refused(.invalidGrant("The refresh_token was generated for a user who doesn't exist anymore."))
            }
            var grant = family.grant
            grant.nonce = nil
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
            response = try await credentials(grant: grant, user: user, access: access, refresh: refresh, issuedAt: issuedAt, request: request)
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
                tenant.accessTokens[Auth0Tenant.digest(access)] = Auth0AccessGrant(
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

    // MARK: - MFA

    /// The MFA transaction of `token` for `clientId` (nil client: any).
    func mfaTransaction(_ token: String, clientId: String?) async throws -> Auth0MFATransaction {
        let tenant = await state.get(Auth0Tenant.key)
        guard let transaction = tenant.mfaTokens[Auth0Tenant.digest(token)],
              clientId == nil || transaction.grant.clientId == clientId
        else { throw Auth0Failure.malformedMFAToken }
        guard transaction.expiresAt > now else { throw Auth0Failure.expiredMFAToken }
        return transaction
    }

    private enum MFAOutcome: Sendable {
        case verified(extra: [String: JSONValue])
        case refused(Auth0Failure)
    }

    /// `mfa-otp`: verifies a TOTP code with ``TOTP`` at the emulator's clock, refusing replays,
    /// confirms a pending enrollment, spends the MFA token and issues tokens.
    func mfaOTPGrant(_ parameters: Auth0Parameters, clientId: String, request: Request) async throws -> Response {
        let mfaToken = try parameters.required("mfa_token")
        let otp = try parameters.required("otp")
        let transaction = try await mfaTransaction(mfaToken, clientId: clientId)
        let at = now
        let outcome: MFAOutcome = await state.update(Auth0Tenant.key) { tenant in
            guard let user = tenant.users[transaction.grant.userId], var authenticator = user.totp else {
                return .refused(.invalidGrant("User is not enrolled. You can use /mfa/associate endpoint to enroll the first authenticator."))
            }
            guard let step = try? authenticator.totp.verify(Secret(otp), at: at, after: authenticator.lastStep) else {
                return .refused(.invalidOTP)
            }
            authenticator.lastStep = step
            authenticator.confirmed = true
            tenant.users[user.userId]?.totp = authenticator
            tenant.mfaTokens[Auth0Tenant.digest(mfaToken)] = nil
            return .verified(extra: [:])
        }
        switch outcome {
        case .refused(let failure): throw failure
        case .verified(let extra): return try await issue(transaction.grant, request: request, extra: extra)
        }
    }

    /// `mfa-recovery-code`: spends a recovery code and answers with tokens and a new
    /// `recovery_code` (Auth0 replaces a used code).
    func mfaRecoveryGrant(_ parameters: Auth0Parameters, clientId: String, request: Request) async throws -> Response {
        let mfaToken = try parameters.required("mfa_token")
        let code = try parameters.required("recovery_code")
        let transaction = try await mfaTransaction(mfaToken, clientId: clientId)
        let replacement = try RecoveryCodeSet.generate(count: 1, random: environment.random)
        let outcome: MFAOutcome = await state.update(Auth0Tenant.key) { tenant in
            guard var recovery = tenant.users[transaction.grant.userId]?.recovery else {
                return .refused(.invalidGrant("Invalid recovery_code."))
            }
            guard recovery.consume(code) else {
                return .refused(.invalidGrant("Invalid recovery_code."))
            }
            recovery.codes = replacement.set
            recovery.codeDigests = []
            tenant.users[transaction.grant.userId]?.recovery = recovery
            tenant.mfaTokens[Auth0Tenant.digest(mfaToken)] = nil
            return .verified(extra: ["recovery_code": .string(replacement.codes.first?.revealed() ?? "")])
        }
        switch outcome {
        case .refused(let failure): throw failure
        case .verified(let extra): return try await issue(transaction.grant, request: request, extra: extra)
        }
    }

    /// The MFA token of the `Authorization: Bearer` header.
    func bearerMFATransaction(_ request: Request) async throws -> Auth0MFATransaction {
        guard let token = request.bearerToken else { throw Auth0Failure.invalidToken("Missing mfa_token in the Authorization header.") }
        return try await mfaTransaction(token, clientId: nil)
    }

    /// `GET /mfa/authenticators`: the user's authenticators (TOTP, SMS/email OOB, recovery code,
    /// and push authenticators enrolled through the My Account API as `{authenticator_type:"oob",
    /// oob_channel:"auth0", type:"push-notification"}`); `active` is false for an enrollment not
    /// yet confirmed by a code.
    func listAuthenticators(_ request: Request) async throws -> Response {
        let transaction = try await bearerMFATransaction(request)
        let user = await state.get(Auth0Tenant.key).users[transaction.grant.userId]
        var list: [JSONValue] = []
        if let totp = user?.totp {
            list.append(["id": .string(totp.id), "authenticator_type": "otp", "type": "otp", "active": .bool(totp.confirmed)])
        }
        for authenticator in user?.oob ?? [] {
            list.append(Self.authenticatorJSON(authenticator))
        }
        for push in user?.push ?? [] {
            list.append([
                "id": .string(push.id), "authenticator_type": "oob", "oob_channel": "auth0", "type": "push-notification",
                "active": true,
            ])
        }
        if let recovery = user?.recovery {
            list.append(["id": .string(recovery.id), "authenticator_type": "recovery-code", "type": "recovery-code", "active": true])
        }
        return EmulatorResponse.json(.array(list))
    }

    /// `POST /mfa/challenge` `{client_id, mfa_token, challenge_type, authenticator_id?}`
    /// (`challenge_type` may list several types, space-separated, as v2 sent it).
    ///
    /// - `oob`: with the `authenticator_id` of a confirmed SMS or email authenticator (or, without
    ///   one, the first such authenticator) it answers `{challenge_type:"oob", oob_code,
    ///   binding_method:"prompt"}` and "sends" a 6-digit binding code (read it with
    ///   `GET /auth0/__emulator/mfa-binding-code?oob_code=…`).
    /// - `otp`: there is nothing to send, so it answers `{"challenge_type":"otp"}`.
    ///
    /// An `authenticator_id` the user does not have is `400 invalid_request`; a user without an
    /// authenticator of a requested type gets `400 unsupported_challenge_type`.
    func challenge(_ request: Request) async throws -> Response {
        let parameters = try await Auth0Parameters.body(of: request)
        let clientId = try parameters.required("client_id")
        let mfaToken = try parameters.required("mfa_token")
        let transaction = try await mfaTransaction(mfaToken, clientId: clientId)
        let types = Auth0Grant.scopes(parameters.string("challenge_type") ?? "otp")
        let authenticatorId = parameters.string("authenticator_id")
        guard let user = await state.get(Auth0Tenant.key).users[transaction.grant.userId] else { throw Auth0Failure.malformedMFAToken }
        if types.contains("oob"),
           let authenticator = user.oob.first(where: { $0.confirmed && (authenticatorId == nil || $0.id == authenticatorId) }) {
            return await oobChallenge(mfaToken: mfaToken, user: user, authenticator: authenticator)
        }
        if types.contains("otp"), let totp = user.totp, authenticatorId == nil || authenticatorId == totp.id {
            return EmulatorResponse.json(["challenge_type": "otp"])
        }
        guard types.contains("otp") || types.contains("oob") else {
            throw Auth0Failure.invalidRequest("challenge_type must be otp or oob.")
        }
        if authenticatorId != nil { throw Auth0Failure.invalidRequest("Invalid authenticator_id.") }
        throw Auth0Failure.oauth("unsupported_challenge_type", "User is not enrolled with an authenticator of the requested type.",
                                 status: .badRequest)
    }

    private enum AssociateOutcome: Sendable {
        case associated(account: String, recoveryCode: String?)
        case refused(Auth0Failure)
    }

    /// `POST /mfa/associate` for `authenticator_types: ["otp"]`: a fresh TOTP secret (base32) and
    /// its `otpauth://` URI, plus a recovery code with the first enrollment. The authenticator
    /// becomes active once an `mfa-otp` grant accepts a code. `["oob"]` enrolls an SMS or email
    /// authenticator (``associateOOB(_:transaction:mfaToken:)``); other factor types are refused.
    func associate(_ request: Request) async throws -> Response {
        let transaction = try await bearerMFATransaction(request)
        let parameters = try await Auth0Parameters.body(of: request)
        let types = parameters["authenticator_types"]?.arrayValue?.compactMap(\.stringValue) ?? []
        guard !types.isEmpty else { throw Auth0Failure.missing("authenticator_types") }
        if types == ["oob"], let mfaToken = request.bearerToken {
            return try await associateOOB(parameters, transaction: transaction, mfaToken: mfaToken)
        }
        guard types == ["otp"] else {
            throw Auth0Failure.invalidRequest("The emulator supports only the otp and oob authenticator types.")
        }
        let secret = environment.random.bytes(20)
        let totp = try TOTP(secret: Secret(secret))
        let authenticatorId = "totp|dev_" + randomToken(bytes: 12)
        let recoveryId = "recovery-code|dev_" + randomToken(bytes: 12)
        let recovery = try RecoveryCodeSet.generate(count: 1, random: environment.random)
        let outcome: AssociateOutcome = await state.update(Auth0Tenant.key) { tenant in
            guard let user = tenant.users[transaction.grant.userId] else { return .refused(.malformedMFAToken) }
            if user.totp?.confirmed == true || user.oob.contains(where: \.confirmed) {
                return .refused(.oauth("access_denied", "User is already enrolled.", status: .forbidden))
            }
            tenant.users[user.userId]?.totp = Auth0TOTPAuthenticator(id: authenticatorId, totp: totp, confirmed: false, lastStep: nil)
            var code: String?
            if user.recovery == nil {
                tenant.users[user.userId]?.recovery = Auth0RecoveryAuthenticator(id: recoveryId, codes: recovery.set)
                code = recovery.codes.first?.revealed()
            }
            return .associated(account: user.email, recoveryCode: code)
        }
        switch outcome {
        case .refused(let failure):
            throw failure
        case .associated(let account, let recoveryCode):
            let uri = try OTPAuthURI(totp: totp, account: account, issuer: "AuthHub Emulator")
            var body: [String: JSONValue] = [
                "authenticator_type": "otp",
                "secret": .string(Base32.encode(secret)),
                "barcode_uri": .string(uri.string.revealed()),
            ]
            if let recoveryCode { body["recovery_codes"] = [.string(recoveryCode)] }
            return EmulatorResponse.json(.object(body), headers: [.cacheControl: "no-store"])
        }
    }

    // MARK: - /userinfo and /oauth/revoke

    /// `GET /userinfo` with `Authorization: Bearer <access token>`: the user's claims for the
    /// token's scopes.
    func userinfo(_ request: Request) async throws -> Response {
        guard let token = request.bearerToken else { throw Auth0Failure.invalidToken("Missing access token.") }
        let tenant = await state.get(Auth0Tenant.key)
        guard let access = tenant.accessTokens[Auth0Tenant.digest(token)], access.expiresAt > now else {
            throw Auth0Failure.invalidToken("The access token is invalid or has expired.")
        }
        guard let user = tenant.users[access.grant.userId] else {
            throw Auth0Failure.invalidToken("The user of the access token no longer exists.")
        }
        return EmulatorResponse.json(.object(user.claims(scopes: access.grant.scopeSet)))
    }

    /// `POST /oauth/revoke` `{client_id, token}`: revokes the refresh token's whole family and
    /// answers 200 with an empty body; an unknown token is accepted silently (RFC 7009, section 2.2), a
    /// token of another client is refused.
    func revoke(_ request: Request) async throws -> Response {
        let parameters = try await Auth0Parameters.body(of: request)
        let clientId = try parameters.required("client_id")
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
