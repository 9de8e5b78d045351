import AuthHub
import Foundation

/// The account API (``AccountProvider``) over Auth0's My Account API (<doc:Auth0Endpoints>: “My
/// Account API”): every method type it lists; TOTP, passkeys, email and phone codes and recovery
/// codes enrolled as its two-phase enrollments; removal. Tokens for the `https://<domain>/me/`
/// audience are exchanged with the session's refresh token per scope
/// (``Auth0CredentialsManager/apiCredentials(forAudience:scope:minTTL:)``); a tenant that wants a
/// second factor for them answers with ``AuthErrorCode/mfaRequired``, for which
/// ``AuthError/requiresReauthentication`` holds (step up, then repeat).
///
/// Not here: the password and the profile (Auth0 changes those through its Management API, which
/// Auth0.swift 3 no longer calls from apps).
extension Auth0Provider: AccountProvider {
    public var accountCapabilities: Set<AccountCapability> {
        [.listMethods, .enrollTOTP, .enrollPasskey, .enrollEmailCode, .enrollPhoneCode, .enrollRecoveryCodes, .deleteMethod]
    }

    func myAccount(_ manager: SessionManager) throws -> Auth0MyAccountAPI {
        myAccount(credentials: try Auth0CredentialsManager(manager: manager))
    }

    public func accountMethods(_ manager: SessionManager) async throws -> [AccountMethod] {
        try await myAccount(manager).authenticationMethods().map(AccountMethod.init(auth0:))
    }

    public func startMethodEnrollment(_ request: MethodEnrollmentRequest, options: MethodEnrollmentOptions,
                                      manager: SessionManager) async throws -> MethodEnrollmentChallenge {
        let auth0Request: Auth0EnrollmentRequest
        switch request {
        case .totp: auth0Request = .totp
        case .passkey: auth0Request = .passkey()
        case .emailCode(let email): auth0Request = .email(email)
        case .phoneCode(let phone): auth0Request = .phone(phone)
        case .recoveryCodes: auth0Request = .recoveryCode
        }
        let started = try await myAccount(manager).startEnrollment(auth0Request, origin: options.origin)
        let prompt: MethodEnrollmentChallenge.Prompt
        switch (request, started.prompt) {
        case (.totp, .qrCode(let uri, let manual)):
            guard let secret = manual ?? Self.totpSecret(inURI: uri.revealed()) else {
                throw AuthError(.invalidRequest, message: "The TOTP enrollment reply carries no secret.", provider: id)
            }
            prompt = .totp(uri: uri, secret: secret)
        case (.passkey, .passkey(let creation)): prompt = .passkey(creation)
        case (.emailCode(let email), .codeSent): prompt = .codeSent(destination: email)
        case (.phoneCode(let phone), .codeSent): prompt = .codeSent(destination: phone)
        case (.recoveryCodes, .recoveryCode(let code)): prompt = .recoveryCodes([code])
        default:
            throw AuthError(.invalidRequest, message: "The enrollment reply does not fit a \(request.kind) enrollment.", provider: id)
        }
        let continuation = Auth0EnrollmentContinuation(methodID: started.methodID, authSession: started.authSession.revealed())
        return try MethodEnrollmentChallenge(kind: request.kind, prompt: prompt, state: continuation)
    }

    public func confirmMethodEnrollment(_ challenge: MethodEnrollmentChallenge, response: MethodEnrollmentResponse,
                                        manager: SessionManager) async throws -> AccountMethod? {
        let continuation = try challenge.state(as: Auth0EnrollmentContinuation.self, provider: id)
        let auth0Response: Auth0EnrollmentResponse
        switch (challenge.kind, response) {
        case (.totp, .code(let code)), (.emailCode, .code(let code)), (.smsCode, .code(let code)): auth0Response = .code(code)
        case (.passkey, .passkey(let registration)): auth0Response = .passkey(registration)
        case (.recoveryCode, .acknowledged): auth0Response = .none
        default:
            throw AuthError(.invalidRequest, message: "That answer does not fit a \(challenge.kind) enrollment.", provider: id)
        }
        return AccountMethod(auth0: try await myAccount(manager).confirmEnrollment(methodID: continuation.methodID,
                                                                                   authSession: Secret(continuation.authSession),
                                                                                   response: auth0Response))
    }

    public func deleteMethod(_ method: AccountMethod, manager: SessionManager) async throws {
        try await myAccount(manager).deleteAuthenticationMethod(id: method.id)
    }

    /// The `secret` parameter of an `otpauth://` URI.
    static func totpSecret(inURI uri: String) -> Secret<String>? {
        URLComponents(string: uri)?.queryItems?.first(where: { $0.name == "secret" })?.value.map(Secret.init)
    }
}

/// What the second half of a My Account enrollment needs: the method id and the `auth_session`
/// (kept in ``MethodEnrollmentChallenge/continuation``, secret).
struct Auth0EnrollmentContinuation: Codable {
    var methodID: String
    var authSession: String
}

extension AccountMethod {
    /// A My Account method: its type as a ``FactorKind``, the address or number it points at, when
    /// it was made, its usage. A password is not removed here (Auth0 keeps a database user's only
    /// password).
    init(auth0 method: Auth0AuthenticationMethod) {
        let kind: FactorKind
        switch method.type ?? "" {
        case "password": kind = .password
        case "passkey", "webauthn-platform", "webauthn-roaming": kind = .passkey
        case "totp": kind = .totp
        case "phone": kind = .smsCode
        case "email": kind = .emailCode
        case "push-notification": kind = .push
        case "recovery-code": kind = .recoveryCode
        case let other: kind = FactorKind(rawValue: other.isEmpty ? "unknown" : other)
        }
        let json = method.json
        let detail = json["email"]?.stringValue ?? json["phone_number"]?.stringValue
            ?? (kind == .passkey ? json["user_agent"]?.stringValue : nil)
        self.init(id: method.id, kind: kind, name: method.name, detail: detail,
                  createdAt: json["created_at"]?.stringValue.flatMap(Auth0ManagementUser.date),
                  lastUsedAt: json["last_auth_at"]?.stringValue.flatMap(Auth0ManagementUser.date),
                  isConfirmed: method.confirmed ?? true, usage: Set(method.usage.compactMap(AccountMethod.Usage.init(rawValue:))),
                  isDeletable: kind != .password, source: .provider)
    }
}
