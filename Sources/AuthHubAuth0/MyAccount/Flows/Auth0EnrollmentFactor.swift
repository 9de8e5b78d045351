import AuthHub
import Foundation

/// One My Account enrollment (<doc:Auth0Endpoints>: “Starting an enrollment” and “Confirming an enrollment”) as a ``Factor``, so ``FactorFlow`` drives it
/// headlessly: `idle → loading → challenge → confirming → completed | failed`, with retry and step-up.
///
/// Make one per kind with the static constructors. What the challenge shows depends on the kind:
/// a QR/`otpauth` URI and manual code (TOTP, push), "code sent" (email, phone), a recovery code to
/// save, WebAuthn creation options (passkey) or a password policy. Inputs are checked before any
/// request: email addresses and phone numbers on ``start()``, codes and passwords on ``confirm(_:response:)``.
///
/// <!-- example: context api: Auth0MyAccountAPI -->
/// ```swift
/// let flow = FactorFlow(Auth0EnrollmentFactor.totp(api), reauthenticate: { _ in try await signInAgain() })
/// guard case .challenge(let challenge) = await flow.start() else { return }
/// render(challenge.prompt)   // a QR code; the user types the code the authenticator app then shows
/// let state = await flow.confirm(.code(Secret(code)))
/// ```
public struct Auth0EnrollmentFactor: Factor {
    public typealias Challenge = Auth0EnrollmentChallenge
    public typealias Response = Auth0EnrollmentResponse
    public typealias Output = Auth0AuthenticationMethod

    /// The factor kind (`totp`, `push`, `emailCode`, `smsCode`, `recoveryCode`, `passkey`, `password`).
    public let kind: FactorKind
    /// What is enrolled, with normalised inputs.
    public let request: Auth0EnrollmentRequest
    let api: Auth0MyAccountAPI
    let authenticator: (any PasskeyAuthenticator)?
    let origin: String?
    /// An input problem found when the factor was made; thrown by ``start()`` before any request.
    let inputError: AuthError?

    private init(kind: FactorKind, request: Auth0EnrollmentRequest, api: Auth0MyAccountAPI,
                 authenticator: (any PasskeyAuthenticator)? = nil, origin: String? = nil, inputError: AuthError? = nil) {
        self.kind = kind
        self.request = request
        self.api = api
        self.authenticator = authenticator
        self.origin = origin
        self.inputError = inputError
    }

    /// An authenticator app (TOTP): the challenge is a QR code; confirm with the app's 6-digit code.
    public static func totp(_ api: Auth0MyAccountAPI) -> Self { Self(kind: .totp, request: .totp, api: api) }

    /// Push notifications (Guardian): the challenge is a QR code to scan in the app; confirm with
    /// ``Auth0EnrollmentResponse/none`` once the app accepted it.
    public static func pushNotification(_ api: Auth0MyAccountAPI) -> Self {
        Self(kind: .push, request: .pushNotification, api: api)
    }

    /// An email address: a code is sent there; confirm with it. The address is checked first.
    public static func email(_ address: String, api: Auth0MyAccountAPI) -> Self {
        let trimmed = address.trimmingCharacters(in: .whitespaces)
        return Self(kind: .emailCode, request: .email(trimmed), api: api, inputError: Auth0EnrollmentInput.checkEmail(trimmed))
    }

    /// A phone number (E.164; spaces, dashes, dots and parentheses are removed first): a code is sent
    /// by SMS, or by a voice call with `preferredMethod: "voice"`; confirm with it.
    public static func phone(_ number: String, preferredMethod: String? = nil, api: Auth0MyAccountAPI) -> Self {
        let normalised = Auth0EnrollmentInput.normalisePhone(number)
        let error = Auth0EnrollmentInput.checkPhone(normalised) ?? Auth0EnrollmentInput.checkPreferredMethod(preferredMethod)
        return Self(kind: .smsCode, request: .phone(normalised, preferredMethod: preferredMethod), api: api, inputError: error)
    }

    /// A recovery code: the challenge shows it once; confirm with ``Auth0EnrollmentResponse/none``
    /// after the user saved it.
    public static func recoveryCode(_ api: Auth0MyAccountAPI) -> Self { Self(kind: .recoveryCode, request: .recoveryCode, api: api) }

    /// A passkey: the challenge carries WebAuthn creation options. Confirm with
    /// ``Auth0EnrollmentResponse/none`` to let `authenticator` create the credential, or with
    /// ``Auth0EnrollmentResponse/passkey(_:)`` when the UI created it itself.
    /// - Parameters:
    ///   - origin: the client origin the authenticator reports (defaults to `https://<rp id>`).
    ///   - identityUserID, connection: for linked accounts (<doc:Auth0Endpoints>: “Starting an enrollment”); `connection` is checked first.
    public static func passkey(_ api: Auth0MyAccountAPI, authenticator: (any PasskeyAuthenticator)? = nil, origin: String? = nil,
                               identityUserID: String? = nil, connection: String? = nil) -> Self {
        let error = connection.flatMap { connection in (try? Auth0MyAccountAPI.checkConnection(connection)) == nil ? Auth0EnrollmentInput.badConnection : nil }
        return Self(kind: .passkey, request: .passkey(identityUserID: identityUserID, connection: connection), api: api,
                    authenticator: authenticator, origin: origin, inputError: error)
    }

    /// A password: the challenge carries the policy; confirm with ``Auth0EnrollmentResponse/password(_:)``,
    /// checked against the policy's minimum length first.
    public static func password(_ api: Auth0MyAccountAPI, identityUserID: String? = nil, connection: String? = nil) -> Self {
        let error = connection.flatMap { connection in (try? Auth0MyAccountAPI.checkConnection(connection)) == nil ? Auth0EnrollmentInput.badConnection : nil }
        return Self(kind: .password, request: .password(identityUserID: identityUserID, connection: connection), api: api, inputError: error)
    }

    /// Checks the inputs, then starts the enrollment.
    public func start() async throws -> Auth0EnrollmentChallenge {
        if let inputError { throw inputError }
        return try await api.startEnrollment(request, origin: origin)
    }

    /// Checks the response against the kind (a 6-digit code, a password meeting the policy, …), then
    /// confirms; for passkeys without a ready registration, asks the authenticator to create one.
    public func confirm(_ challenge: Auth0EnrollmentChallenge, response: Auth0EnrollmentResponse) async throws -> Auth0AuthenticationMethod {
        try await api.confirmEnrollment(challenge, response: try await prepared(response, for: challenge))
    }

    /// The response to send, after the kind's checks.
    func prepared(_ response: Auth0EnrollmentResponse, for challenge: Auth0EnrollmentChallenge) async throws -> Auth0EnrollmentResponse {
        switch (request, response) {
        case (.totp, .code(let code)), (.email, .code(let code)), (.phone, .code(let code)):
            return .code(try Auth0EnrollmentInput.sixDigitCode(code))
        case (.pushNotification, .none), (.recoveryCode, .none), (.passkey, .passkey):
            return response
        case (.passkey, .none):
            guard case .passkey(let options) = challenge.prompt else {
                throw AuthError(.invalidRequest, message: "The passkey enrollment has no creation options.", provider: api.api.provider)
            }
            guard let authenticator else {
                throw AuthError(.invalidRequest, message: "Create the passkey (no authenticator was given to this flow).",
                                provider: api.api.provider)
            }
            return .passkey(try await authenticator.makeCredential(options))
        case (.password, .password(let password)):
            guard case .password(let policy) = challenge.prompt else { return response }
            try Auth0EnrollmentInput.checkPassword(password, policy: policy)
            return response
        default:
            throw AuthError(.invalidRequest, message: "That answer does not fit a \(kind.rawValue) enrollment.", provider: api.api.provider)
        }
    }
}
