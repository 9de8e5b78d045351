import AuthHub
import Crypto
import Foundation

/// A Turnkey parent organization as an ``AuthProvider``: email lookup through the app's backend
/// proxy, passkey login (`stamp_login`) that creates a session key, session renewal and whoami.
///
/// ## Sessions
/// A Turnkey session is a P-256 key pair generated on this device plus the session JWT returned by
/// `stamp_login` (<doc:TurnkeyProtocol>: “stamp_login” and “Session JWT”). Requests are stamped with the key; the JWT is metadata,
/// never sent as a bearer token. The ``Session`` holds:
/// - `accessToken`: the session JWT; `tokenType`: ``sessionTokenType`` (`TurnkeySession`);
///   `expiresAt`: its `exp`; `userID`: its `user_id`; `claims`: its payload;
/// - `extras`: `organizationId` (the user's sub-organization), `sessionPublicKey`, `sessionType`,
///   `parentOrganizationId`;
/// - `secretExtras["sessionPrivateKey"]`: the session private key (64 hex characters), and
///   `refreshToken`: the same secret — the core `SessionManager` renews only sessions with a refresh
///   token, and the session key is what renews a Turnkey session (``refresh(_:scope:)`` is a new
///   `stamp_login` stamped with it).
///
/// Signing out is local (the protocol default): the private key only ever lived on this device, so
/// deleting the stored session ends it; the key expires at Turnkey at `exp`.
///
/// The signed-in user's passkeys (Turnkey authenticators) are listed, added and removed through the
/// account API: the provider is an ``AccountProvider`` (<doc:TurnkeyProtocol>: “Authenticators”).
public struct TurnkeyProvider: AuthProvider {
    /// What a Turnkey provider can do.
    public static let supportedCapabilities: Set<AuthCapability> = [.passkey, .passkeySignUp, .refresh, .userInfo]
    /// The `tokenType` of Turnkey sessions: the access token is a session JWT, not a bearer token.
    public static let sessionTokenType = "TurnkeySession"
    /// The `secretExtras` key of the session private key.
    public static let sessionPrivateKeyExtra = "sessionPrivateKey"

    public let id: String
    public var type: String { TurnkeyPlugin.typeName }
    public var capabilities: Set<AuthCapability> { Self.supportedCapabilities }
    /// The entry's settings.
    public let configuration: TurnkeyConfiguration
    /// Transport, clock, randomness, logger and passkey authenticator shared with the hub.
    let context: ProviderContext
    /// The REST client, for stamped requests of your own (`provider.api.post(path:body:stamper:)`).
    public let api: TurnkeyAPI

    /// Creates the provider.
    public init(id: String, configuration: TurnkeyConfiguration, context: ProviderContext = ProviderContext()) {
        self.id = id
        self.configuration = configuration
        self.context = context
        self.api = TurnkeyAPI(providerID: id, configuration: configuration, context: context)
    }

    // MARK: - Sign-in

    /// Serves ``SignInRequest/passkey(identifier:)`` with the context's passkey authenticator; the
    /// identifier, when given, is the email to look up.
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` when the ``ProviderContext`` has no passkey
    ///   authenticator; ``AuthErrorCode/unsupported`` for other requests; see ``signIn(email:authenticator:)``.
    public func signIn(_ request: SignInRequest) async throws -> Session {
        guard case .passkey(let identifier) = request else { throw unsupported("sign-in with \(request.methodName)") }
        guard let authenticator = context.passkeyAuthenticator else {
            throw AuthError(.invalidConfiguration,
                            message: "Provider '\(id)' (turnkey) needs a passkey authenticator for passkey sign-in: pass one as passkeyAuthenticator in the ProviderContext.",
                            provider: id)
        }
        let email = identifier?.trimmingCharacters(in: .whitespacesAndNewlines)
        return try await signIn(email: (email?.isEmpty ?? true) ? nil : email, authenticator: authenticator)
    }

    /// Signs in with a passkey (<doc:TurnkeyProtocol>: “Sign-in end to end”).
    ///
    /// With an email: looks it up through the proxy and logs into `organizationIds[0]` (the JWT's
    /// `organization_id` must be that sub-organization). Without: logs in with the parent
    /// organization, and the JWT's organization is taken as the user's sub-organization (<doc:TurnkeyProtocol>: “Email lookup” and “stamp_login”).
    /// A fresh P-256 session key is generated; `stamp_login` registers it, stamped with the passkey.
    /// - Throws: ``AuthErrorCode/userNotFound`` for an unknown email; ``AuthErrorCode/invalidCredentials``
    ///   when the passkey is not registered for the account; ``AuthErrorCode/invalidToken`` when the
    ///   session JWT fails a check; the authenticator's errors.
    public func signIn(email: String?, authenticator: any PasskeyAuthenticator) async throws -> Session {
        var organizationId: String?
        if let email {
            try checkEmail(email)
            // The lookup throws userNotFound rather than return no id.
            guard let first = try await api.lookupSubOrganizations(email: email).first else {
                throw AuthError(.userNotFound, message: "No Turnkey account is registered for this email.", provider: id)
            }
            organizationId = first
        }
        let stamper = TurnkeyPasskeyStamper(authenticator: authenticator, relyingPartyID: configuration.rpId)
        return try await login(organizationId: organizationId ?? configuration.organizationId, expectedOrganizationId: organizationId,
                               stamper: stamper, errorContext: .passkeyLogin)
    }

    /// The longest email address accepted (RFC 5321's 64 + 1 + 255).
    static let maximumEmailLength = 320

    /// Refuses a malformed email before any request: one `@` with text on both sides, a dot in the
    /// domain, no whitespace or control characters, at most ``maximumEmailLength`` characters.
    /// - Throws: ``AuthErrorCode/invalidEmail``.
    func checkEmail(_ email: String) throws {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        let valid = email.count <= Self.maximumEmailLength && parts.count == 2 && !parts[0].isEmpty
            && parts[1].contains(".") && !parts[1].hasPrefix(".") && !parts[1].hasSuffix(".")
            && !email.unicodeScalars.contains { CharacterSet.whitespacesAndNewlines.contains($0) || CharacterSet.controlCharacters.contains($0) }
        guard valid else { throw AuthError(.invalidEmail, message: "'\(email.prefix(64))' is not an email address.", provider: id) }
    }

    /// `stamp_login` with a new session key, checks of the JWT, and the session.
    func login(organizationId: String, expectedOrganizationId: String?, stamper: any TurnkeyStamper,
               errorContext: TurnkeyErrorMapper.Context) async throws -> Session {
        let key = P256.Signing.PrivateKey()
        let publicKey = TurnkeyKeys.compressedHex(key.publicKey)
        let token = try await api.stampLogin(organizationId: organizationId, publicKey: publicKey,
                                             expirationSeconds: configuration.sessionLifetimeSeconds, stamper: stamper,
                                             errorContext: errorContext)
        return try session(token: token, key: key, publicKey: publicKey, expectedOrganizationId: expectedOrganizationId)
    }

    /// The session of a `stamp_login` reply's JWT, after its checks (notarizer signature, the new
    /// session key, the organization, the expiry).
    func session(token: Secret<String>, key: P256.Signing.PrivateKey, publicKey: String, expectedOrganizationId: String?) throws -> Session {
        let jwt: TurnkeySessionJWT
        do {
            jwt = try TurnkeySessionJWT(token)
            if let notarizer = configuration.effectiveNotarizerPublicKeyHex {
                try jwt.verifySignature(notarizerPublicKey: try TurnkeyKeys.signingPublicKey(hex: notarizer))
            }
            try jwt.validate(expectedPublicKey: publicKey, expectedOrganizationId: expectedOrganizationId, now: context.clock.now)
        } catch let error as AuthError {
            throw error.with(provider: id)
        }
        context.logger.debug("turnkey session created", metadata: ["provider": "\(id)", "organization": "\(jwt.organizationId)"])
        return session(jwt, key: key)
    }

    func session(_ jwt: TurnkeySessionJWT, key: P256.Signing.PrivateKey) -> Session {
        let privateKey = Secret(TurnkeyHex.encode(key.rawRepresentation))
        var extras: [String: JSONValue] = [
            "organizationId": .string(jwt.organizationId), "sessionPublicKey": .string(jwt.publicKey),
            "parentOrganizationId": .string(configuration.organizationId),
        ]
        if let type = jwt.sessionType { extras["sessionType"] = .string(type) }
        return Session(providerID: id, accessToken: jwt.token, tokenType: Self.sessionTokenType, refreshToken: privateKey,
                       expiresAt: jwt.expiresAt, userID: jwt.userId, claims: jwt.claims, extras: extras,
                       secretExtras: [Self.sessionPrivateKeyExtra: privateKey], issuedAt: context.clock.now)
    }

    // MARK: - Session key

    /// A stamper with the session's key (`secretExtras["sessionPrivateKey"]`, else its refresh token).
    /// - Throws: ``AuthErrorCode/sessionExpired`` when the session holds no key,
    ///   ``AuthErrorCode/invalidToken`` when the key is corrupt or not the session's public key.
    public func sessionStamper(for session: Session) throws -> TurnkeyAPIKeyStamper {
        guard let secret = session.secretExtras[Self.sessionPrivateKeyExtra] ?? session.refreshToken, !secret.isEmpty else {
            throw AuthError(.sessionExpired, message: "The Turnkey session holds no session key; sign in again.", provider: id)
        }
        do {
            if let expected = session.extras["sessionPublicKey"]?.stringValue {
                return try TurnkeyAPIKeyStamper(privateKeyHex: secret, publicKeyHex: expected)
            }
            return try TurnkeyAPIKeyStamper(privateKeyHex: secret)
        } catch {
            throw AuthError(.invalidToken, message: "The Turnkey session key stored in the session is corrupt or does not match the session; sign in again.",
                            provider: id)
        }
    }

    /// The session's organization (`extras.organizationId`, else the JWT's `organization_id`).
    func organization(of session: Session) throws -> String {
        if let organization = session.extras["organizationId"]?.stringValue ?? session.claims["organization_id"]?.stringValue {
            return organization
        }
        throw AuthError(.invalidToken, message: "The Turnkey session names no organization; sign in again.", provider: id)
    }

    /// The stamper for a request on behalf of `session`, failing early when it has expired by the
    /// context clock (the server decides otherwise).
    func liveSessionStamper(_ session: Session) throws -> TurnkeyAPIKeyStamper {
        if let expiresAt = session.expiresAt, expiresAt <= context.clock.now {
            throw AuthError(.sessionExpired, message: "The Turnkey session has expired; sign in again.", provider: id)
        }
        return try sessionStamper(for: session)
    }

    // MARK: - Refresh, user info

    /// Renews the session: a new session key, registered by `stamp_login` stamped (`X-Stamp`) with
    /// the current session key, in the session's organization.
    /// - Throws: ``AuthErrorCode/refreshTokenInvalid`` when the session has no usable key, has
    ///   expired, or Turnkey no longer accepts its key.
    public func refresh(_ session: Session, scope: String?) async throws -> Session {
        let stamper: TurnkeyAPIKeyStamper
        do {
            stamper = try liveSessionStamper(session)
        } catch let error as AuthError {
            throw AuthError(.refreshTokenInvalid, message: "The Turnkey session cannot be renewed: \(error.message)", provider: id)
        }
        let organizationId = try organization(of: session)
        // What the server said (the new session key and JWT); the SessionManager merges it into the stored session.
        return try await login(organizationId: organizationId, expectedOrganizationId: organizationId, stamper: stamper,
                               errorContext: .refresh)
    }

    /// `whoami` stamped with the session key.
    /// - Throws: ``AuthErrorCode/sessionExpired`` when the session has expired (by the context clock)
    ///   or Turnkey no longer knows its key.
    public func whoami(_ session: Session) async throws -> TurnkeyWhoami {
        let stamper = try liveSessionStamper(session)
        return try await api.whoami(organizationId: try organization(of: session), stamper: stamper, errorContext: .session)
    }

    /// The user, from `whoami`: id = `userId`, name = `username`, claims = the whoami fields.
    public func userInfo(_ session: Session) async throws -> UserInfo {
        let me = try await whoami(session)
        var claims: [String: JSONValue] = ["organizationId": .string(me.organizationId), "userId": .string(me.userId)]
        if let name = me.organizationName { claims["organizationName"] = .string(name) }
        if let username = me.username { claims["username"] = .string(username) }
        return UserInfo(id: me.userId, name: me.username, claims: claims)
    }

    /// Creates a read-write API key for the user (<doc:TurnkeyProtocol>: “create_read_write_session”), stamped with the session key:
    /// a target P-256 key-agreement pair is generated, the credential bundle encrypted to it is
    /// decrypted, and the new key comes back as a stamper.
    /// - Throws: ``AuthErrorCode/sessionExpired`` as ``whoami(_:)``; ``AuthErrorCode/invalidToken``
    ///   for a bundle that does not decrypt.
    public func createReadWriteSession(_ session: Session, expirationSeconds: Int? = nil) async throws -> TurnkeyReadWriteSession {
        let stamper = try liveSessionStamper(session)
        return try await api.createReadWriteSession(organizationId: try organization(of: session),
                                                    targetPrivateKey: P256.KeyAgreement.PrivateKey(), userId: session.userID,
                                                    expirationSeconds: expirationSeconds, stamper: stamper, errorContext: .session)
    }
}
