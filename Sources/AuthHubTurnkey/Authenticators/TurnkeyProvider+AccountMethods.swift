import AuthHub
import Foundation

/// The account API (``AccountProvider``) over the user's Turnkey passkey authenticators
/// (<doc:TurnkeyProtocol>: “Authenticators”), every request stamped (`X-Stamp`) with the session key
/// in the session's sub-organization, for the session's user:
/// - the methods are the passkeys `get_authenticators` lists (kind ``FactorKind/passkey``, usage
///   primary; the last one is not removable, so the user is never locked out);
/// - a passkey is added in two halves: ``startMethodEnrollment(_:options:manager:)`` makes WebAuthn
///   creation options for the configured `rpId` (ES256, a discoverable credential, a random 32-byte
///   challenge, the user's existing passkeys excluded, `whoami`'s username as the account name
///   unless ``MethodEnrollmentOptions/accountName`` is given), and
///   ``confirmMethodEnrollment(_:response:manager:)`` submits the registration with
///   `ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2`;
/// - a passkey is removed with `ACTIVITY_TYPE_DELETE_AUTHENTICATORS`.
///
/// Errors are mapped in the ``TurnkeyErrorMapper/Context/session`` context: a session key Turnkey no
/// longer knows ends the session (``AuthErrorCode/sessionExpired``). Turnkey has no passwords or
/// second factors of its own to list here.
extension TurnkeyProvider: AccountProvider {
    public var accountCapabilities: Set<AccountCapability> { [.listMethods, .enrollPasskey, .deleteMethod] }

    /// The name a new passkey gets when ``MethodEnrollmentOptions/name`` is not given.
    public static let defaultPasskeyName = "AuthHub passkey"
    /// The longest passkey name accepted.
    static let maximumPasskeyNameLength = 256

    public func accountMethods(_ manager: SessionManager) async throws -> [AccountMethod] {
        let user = try await accountUser(manager)
        return Self.methods(of: try await api.authenticators(organizationId: user.organizationId, userId: user.userId, stamper: user.stamper))
    }

    /// The methods of listed authenticators: each a primary passkey named as Turnkey names it, its
    /// detail the device model (else its transports), removable only when it is not the last.
    static func methods(of authenticators: [TurnkeyAuthenticator]) -> [AccountMethod] {
        let removable = authenticators.count > 1
        return authenticators.map { authenticator in
            AccountMethod(id: authenticator.authenticatorId, kind: .passkey, name: authenticator.authenticatorName.flatMap { $0.isEmpty ? nil : $0 },
                          detail: detail(model: authenticator.model, transports: authenticator.webAuthnTransports),
                          createdAt: authenticator.createdAt, usage: [.primary], isDeletable: removable)
        }
    }

    /// A passkey's detail: the model when Turnkey names one, else its WebAuthn transports.
    static func detail(model: String?, transports: [String]) -> String? {
        if let model, !model.isEmpty { return model }
        return transports.isEmpty ? nil : transports.joined(separator: ", ")
    }

    public func startMethodEnrollment(_ request: MethodEnrollmentRequest, options: MethodEnrollmentOptions,
                                      manager: SessionManager) async throws -> MethodEnrollmentChallenge {
        guard case .passkey = request else { throw unsupported("enrolling \(request.kind)") }
        let name = try passkeyName(options.name)
        let user = try await accountUser(manager)
        let existing = try await api.authenticators(organizationId: user.organizationId, userId: user.userId, stamper: user.stamper)
        var accountName = options.accountName?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        if accountName.isEmpty {
            let me = try await api.whoami(organizationId: user.organizationId, stamper: user.stamper, errorContext: .session)
            // Outside input: a username that is empty, long or has control characters is not shown.
            accountName = me.username.flatMap { name in
                (1...Self.maximumPasskeyNameLength).contains(name.count)
                    && !name.unicodeScalars.contains { $0.properties.generalCategory == .control } ? name : nil
            } ?? user.userId
        }
        let challenge = context.random.bytes(32)
        let userHandle = context.random.bytes(16)
        guard challenge.count == 32, userHandle.count == 16 else {
            throw AuthError(.unknown, message: "The random source returned too few bytes.", provider: id)
        }
        let creation = PasskeyRegistrationOptions(
            relyingParty: PasskeyRelyingParty(id: configuration.rpId, name: configuration.rpId),
            user: PasskeyUser(id: userHandle, name: accountName, displayName: accountName),
            challenge: challenge, origin: options.origin, algorithms: [.es256], residentKey: .required,
            excludeCredentials: existing.compactMap { item in item.credentialId.flatMap { Base64URL.decode($0) }.map { [UInt8]($0) } })
        let state = TurnkeyPasskeyEnrollment(challenge: Base64URL.encode(challenge), name: name,
                                             organizationId: user.organizationId, userId: user.userId)
        return try MethodEnrollmentChallenge(kind: .passkey, prompt: .passkey(creation), state: state)
    }

    public func confirmMethodEnrollment(_ challenge: MethodEnrollmentChallenge, response: MethodEnrollmentResponse,
                                        manager: SessionManager) async throws -> AccountMethod? {
        guard challenge.kind == .passkey, case .passkey(let registration) = response else {
            throw AuthError(.invalidRequest, message: "A passkey enrollment is confirmed with a passkey registration.", provider: id)
        }
        let state = try challenge.state(as: TurnkeyPasskeyEnrollment.self, provider: id)
        guard let challengeBytes = Base64URL.decode(state.challenge), challengeBytes.count == 32 else {
            throw AuthError(.invalidRequest, message: "That enrollment was not started by this provider.", provider: id)
        }
        // The passkey must have been made for this enrollment: a creation ceremony over its challenge.
        let clientData = try? JSONValue.parse(Data(registration.clientDataJSON))
        guard clientData?["type"]?.stringValue == "webauthn.create", clientData?["challenge"]?.stringValue == state.challenge else {
            throw AuthError(.invalidRequest, message: "The passkey was not created for this enrollment (its client data names another challenge).",
                            provider: id)
        }
        let user = try await accountUser(manager)
        guard user.organizationId == state.organizationId, user.userId == state.userId else {
            throw AuthError(.invalidRequest, message: "That passkey enrollment was started by another user; start it again.", provider: id)
        }
        let authenticatorId = try await api.createAuthenticator(organizationId: user.organizationId, userId: user.userId, name: state.name,
                                                                challenge: Array(challengeBytes), registration: registration,
                                                                stamper: user.stamper)
        return authenticatorId.map {
            AccountMethod(id: $0, kind: .passkey, name: state.name,
                          detail: Self.detail(model: nil, transports: TurnkeyAPI.transportNames(registration.transports)
                              .compactMap(TurnkeyAPI.webAuthnTransportName)),
                          usage: [.primary], isDeletable: true)
        }
    }

    /// Removes a passkey (`ACTIVITY_TYPE_DELETE_AUTHENTICATORS`).
    /// - Throws: ``AuthErrorCode/unsupported`` for a method that is no passkey;
    ///   ``AuthErrorCode/invalidRequest`` for one marked not removable (the last passkey) or whose
    ///   id is empty or longer than 256 bytes, before any request.
    public func deleteMethod(_ method: AccountMethod, manager: SessionManager) async throws {
        guard method.kind == .passkey else { throw unsupported("removing a \(method.kind) sign-in method") }
        guard method.isDeletable else {
            throw AuthError(.invalidRequest, message: "The last passkey cannot be removed: the account could no longer be signed in to.",
                            provider: id)
        }
        guard !method.id.isEmpty, method.id.utf8.count <= 256 else {
            throw AuthError(.invalidRequest, message: "That is not a Turnkey authenticator id.", provider: id)
        }
        let user = try await accountUser(manager)
        try await api.deleteAuthenticators(organizationId: user.organizationId, userId: user.userId, authenticatorIds: [method.id],
                                           stamper: user.stamper)
    }

    /// The name for a new passkey: `requested` trimmed, else ``defaultPasskeyName``.
    /// - Throws: ``AuthErrorCode/invalidRequest`` for a name longer than 256 characters or with
    ///   control characters.
    func passkeyName(_ requested: String?) throws -> String {
        let name = requested?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        if name.isEmpty { return Self.defaultPasskeyName }
        guard name.count <= Self.maximumPasskeyNameLength,
              !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0.properties.generalCategory == .format }) else {
            throw AuthError(.invalidRequest, message: "A passkey name is at most \(Self.maximumPasskeyNameLength) characters, without control characters.",
                            provider: id)
        }
        return name
    }

    /// The signed-in user an account operation acts for: the session (renewed when needed) gives
    /// the sub-organization (`extras.organizationId`), the user (`userID`, else the JWT's `user_id`)
    /// and the stamper of its session key.
    /// - Throws: ``AuthErrorCode/noSession`` when signed out; ``AuthErrorCode/sessionExpired`` or
    ///   ``AuthErrorCode/invalidToken`` when the session has no usable key, organization or user.
    func accountUser(_ manager: SessionManager) async throws -> (organizationId: String, userId: String, stamper: TurnkeyAPIKeyStamper) {
        let session = try await manager.session()
        let stamper = try liveSessionStamper(session)
        let organizationId = try organization(of: session)
        guard let userId = session.userID ?? session.claims["user_id"]?.stringValue, !userId.isEmpty else {
            throw AuthError(.invalidToken, message: "The Turnkey session names no user; sign in again.", provider: id)
        }
        return (organizationId, userId, stamper)
    }
}
