import AuthHub
import AuthHubOIDC
import Foundation

/// An Auth0 tenant as an ``AuthProvider``: password (ROPG) sign-in, passwordless email/SMS codes
/// and the database-connection OTP, sign-up, password reset, refresh, revocation on sign-out and
/// user info, over ``Auth0AuthenticationAPI``.
///
/// A sign-in that needs a second factor throws ``AuthErrorCode/mfaRequired`` with the MFA token in
/// ``AuthError/mfa``; continue with ``authentication``'s MFA calls (`verify(mfaToken:otp:)`, …) and
/// ``session(from:)``. Passkeys, token exchange and SSO are on ``authentication`` too. Reach the
/// provider with `hub.provider("auth0", as: Auth0Provider.self)`.
public struct Auth0Provider: AuthProvider {
    public let id: String
    public var type: String { Auth0Plugin.typeName }
    public var capabilities: Set<AuthCapability> { Auth0Plugin.providerCapabilities }
    /// The entry's settings.
    public let configuration: Auth0Configuration
    /// The Authentication API client, for what the generic ``AuthProvider`` surface does not cover.
    public let authentication: Auth0AuthenticationAPI
    /// Validates ID tokens against the tenant's JWKS (`/.well-known/jwks.json`), fetched once and cached.
    public let idTokenValidator: IDTokenValidator
    /// Transport, clock, randomness and logger shared with the hub.
    let context: ProviderContext

    /// Creates the provider.
    public init(id: String, configuration: Auth0Configuration, context: ProviderContext = ProviderContext()) {
        self.id = id
        self.configuration = configuration
        self.context = context
        var authentication = Auth0AuthenticationAPI(providerID: id, clientID: configuration.clientId,
                                                    baseURL: configuration.baseURL, context: context)
        authentication.usesDPoP = configuration.dpop
        authentication.clientAuthentication = configuration.clientAuthentication
        self.authentication = authentication
        let jwksURI = URL(string: ".well-known/jwks.json", relativeTo: configuration.baseURL)?.absoluteString
            ?? configuration.baseURL.absoluteString + ".well-known/jwks.json"
        self.idTokenValidator = IDTokenValidator(keys: JWKSCache(jwksURI: jwksURI, api: authentication.api, clock: context.clock),
                                                 clock: context.clock)
    }

    /// A core session from Auth0 credentials: the ID token's `sub` as the user and its claims
    /// (decoded, not verified: they describe the user and decide nothing).
    public func session(from credentials: Auth0Credentials) -> Session {
        var session = credentials.session(providerID: id, issuedAt: context.clock.now)
        if let claims = Auth0IDTokenClaims.decode(credentials.idToken) {
            session.claims = claims
            session.userID = claims["sub"]?.stringValue
        }
        return session
    }

    public func signIn(_ request: SignInRequest) async throws -> Session {
        let scope = configuration.scope
        let audience = configuration.audience
        let credentials: Auth0Credentials
        switch request {
        case .password(let identifier, let password, let realm, let requestedScope):
            credentials = try await authentication.login(
                usernameOrEmail: identifier, password: password, realm: realm ?? configuration.connection,
                audience: audience, scope: requestedScope ?? scope)
        case .emailCode(let email, let code, let context):
            if let context {
                credentials = try await authentication.loginDatabaseOTP(authSession: context, code: code, audience: audience, scope: scope)
            } else {
                credentials = try await authentication.loginPasswordless(email: email, code: code, audience: audience, scope: scope)
            }
        case .smsCode(let phoneNumber, let code, let context):
            if let context {
                credentials = try await authentication.loginDatabaseOTP(authSession: context, code: code, audience: audience, scope: scope)
            } else {
                credentials = try await authentication.loginPasswordless(phoneNumber: phoneNumber, code: code, audience: audience, scope: scope)
            }
        case .authorizationCode(let code, let verifier, let redirectURI):
            // A code obtained outside ``webAuth`` (its transaction's nonce is not known here): the
            // ID token is still validated — signature, issuer, audience, times.
            credentials = try await authentication.exchange(code: code, codeVerifier: verifier ?? Secret(""), redirectURI: redirectURI)
            let claims = try await idTokenValidator.validate(
                credentials.idToken, expecting: IDTokenExpectations(issuer: webAuth.issuer, clientId: configuration.clientId,
                                                                    leeway: configuration.leeway))
            var session = session(from: credentials)
            session.claims = claims.claims
            session.userID = claims.subject
            return session
        case .mfa(let requirement, let response):
            return try await signIn(mfa: requirement, response)
        default:
            throw unsupported("sign-in with \(request.methodName)")
        }
        return session(from: credentials)
    }


    /// Completes a sign-in that failed with ``AuthErrorCode/mfaRequired``, using the error's
    /// ``AuthError/mfa`` token (also reached through ``SignInRequest/mfa(requirement:response:)``).
    /// An out-of-band code comes from ``Auth0AuthenticationAPI/challenge(mfaToken:authenticatorID:options:)``.
    /// - Throws: ``AuthErrorCode/invalidMFACode`` for a wrong code, ``AuthErrorCode/sessionExpired``
    ///   when the MFA token expired.
    public func signIn(mfa requirement: MFARequirement, _ response: MFAResponse) async throws -> Session {
        let credentials: Auth0Credentials
        switch response {
        case .otp(let code):
            credentials = try await authentication.verify(mfaToken: requirement.token, otp: code)
        case .recoveryCode(let code):
            credentials = try await authentication.verify(mfaToken: requirement.token, recoveryCode: code)
        case .oob(let code, let binding):
            credentials = try await authentication.verify(mfaToken: requirement.token, oobCode: code, bindingCode: binding)
        }
        var session = session(from: credentials)
        if let recovery = credentials.recoveryCode { session.secretExtras["recovery_code"] = recovery }
        return session
    }

    /// Sends a passwordless code (`/passwordless/start`) to the email address or phone number.
    public func startSignIn(_ request: SignInStartRequest) async throws -> SignInChallenge {
        switch request {
        case .emailCode(let email):
            try await authentication.startPasswordless(email: email)
            return SignInChallenge(destination: email)
        case .smsCode(let phoneNumber):
            try await authentication.startPasswordless(phoneNumber: phoneNumber)
            return SignInChallenge(destination: phoneNumber)
        }
    }

    /// Creates the user in the configured database connection, then signs in with the same
    /// password. A tenant that lets only verified users sign in (a Rule or Action denying access
    /// with a message asking to verify the email, Auth0's documented pattern) yields
    /// `.verificationRequired`.
    /// - Throws: the sign-in's error when the account was created but the sign-in failed — e.g.
    ///   ``AuthErrorCode/captchaRequired`` when bot detection wants the browser (sign in there).
    public func signUp(_ request: SignUpRequest) async throws -> SignUpResult {
        let connection = configuration.connection ?? Auth0AuthenticationAPI.defaultDatabaseConnection
        var root: [String: JSONValue] = [:]
        if let name = request.displayName { root["name"] = .string(name) }
        _ = try await authentication.signup(email: request.email, password: request.password, connection: connection,
                                            username: request.username,
                                            userMetadata: request.metadata.isEmpty ? nil : request.metadata, rootAttributes: root)
        do {
            return .signedIn(try await signIn(.password(identifier: request.email, password: request.password, realm: connection)))
        } catch let error as AuthError where error.code == .emailNotVerified || Self.asksToVerifyEmail(error) {
            return .verificationRequired(email: request.email)
        }
    }

    /// Whether a refused sign-in asks the user to verify their email (`access_denied`/`unauthorized`
    /// from a Rule or Action whose message says so).
    static func asksToVerifyEmail(_ error: AuthError) -> Bool {
        guard error.code == .accessDenied else { return false }
        let text = error.message.lowercased()
        return text.contains("verif") && text.contains("email")
    }

    /// Renews with the refresh token (<doc:Auth0Endpoints>: “Refresh”), for the configured audience when there is one.
    /// The scope is sent only when the caller asks for one (as Auth0.swift's CredentialsManager
    /// does). Returns what Auth0 said: a reply without a refresh token, ID token or scope leaves
    /// them out, and the ``SessionManager`` keeps the stored ones when it merges the renewal.
    public func refresh(_ session: Session, scope: String?) async throws -> Session {
        guard let refreshToken = session.refreshToken else {
            throw AuthError(.refreshTokenInvalid, message: "The session has no refresh token.", provider: id)
        }
        // As Auth0.swift's CredentialsManager renews: no audience, and a scope only when one is asked
        // for — Auth0 then keeps the originally granted scopes and audience. (The audience with an
        // ensured `openid` belongs to API-credential exchanges; sent here it would narrow the new
        // access token to `openid`.)
        // A DPoP-bound session proves its own key; the renewed tokens stay bound to it.
        let credentials = try await authentication.renew(refreshToken: refreshToken, scope: scope,
                                                         dpopKey: try session.dpopKey())
        var renewed = credentials.session(providerID: id, accountKey: session.accountKey)
        if let claims = Auth0IDTokenClaims.decode(credentials.idToken) {
            renewed.claims = claims
            renewed.userID = claims["sub"]?.stringValue
        }
        return renewed
    }

    /// Revokes the session's refresh token, when it has one.
    public func signOut(_ session: Session) async throws {
        if let refreshToken = session.refreshToken { try await authentication.revoke(refreshToken: refreshToken) }
    }

    public func sendPasswordReset(email: String) async throws {
        try await authentication.resetPassword(email: email, connection: configuration.connection ?? Auth0AuthenticationAPI.defaultDatabaseConnection,
                                               organization: configuration.organization)
    }

    public func userInfo(_ session: Session) async throws -> UserInfo {
        try await authentication.userInfo(accessToken: session.accessToken, tokenType: session.tokenType,
                                          dpopKey: session.isDPoPBound ? try session.dpopKey() : nil)
    }
}
