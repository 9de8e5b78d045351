import Foundation

/// AuthHub's own factors for providers without them: what the hub asks when the account API
/// reaches a factor the provider lacks, and after a sign-in at a provider whose user holds one
/// (``AuthHub/useHeldFactors(_:)``). `AuthHubFactors`' `HeldFactors` implements it (TOTP, passkeys
/// through AuthHub's WebAuthn relying party, recovery codes) over a ``HeldFactorStore``.
public protocol HeldFactorService: Sendable {
    /// Whether the users of `provider` may hold factors here (and pass a second step).
    func covers(_ provider: any AuthProvider) -> Bool
    /// What the account API offers through held factors (``AccountCapability/enrollTOTP``, …).
    var accountCapabilities: Set<AccountCapability> { get }
    /// The owner's held factors as account methods (``AccountMethod/Source/authHub``).
    func methods(of owner: HeldFactorOwner) async throws -> [AccountMethod]
    /// Starts adding a held factor; the challenge's ``MethodEnrollmentChallenge/source`` is
    /// ``AccountMethod/Source/authHub``.
    func startEnrollment(_ request: MethodEnrollmentRequest, options: MethodEnrollmentOptions,
                         owner: HeldFactorOwner) async throws -> MethodEnrollmentChallenge
    /// Finishes adding a held factor with the user's response.
    func confirmEnrollment(_ challenge: MethodEnrollmentChallenge, response: MethodEnrollmentResponse,
                           owner: HeldFactorOwner) async throws -> AccountMethod?
    /// Removes a held factor.
    func deleteMethod(id: String, owner: HeldFactorOwner) async throws
    /// What `owner` must pass after signing in at the provider: nil when they hold no confirmed
    /// factor (the sign-in completes at once).
    func secondStep(for owner: HeldFactorOwner) async throws -> HeldSecondStep?
    /// Checks the user's answer to `step`, recording its use (a TOTP step or recovery code is
    /// accepted once; a passkey's counter moves on).
    /// - Throws: ``AuthErrorCode/invalidMFACode`` for a wrong answer.
    func verify(_ response: HeldSecondStepResponse, step: HeldSecondStep, owner: HeldFactorOwner) async throws
}

/// The second step a user holding AuthHub-held factors passes after the provider's sign-in.
public struct HeldSecondStep: Sendable {
    /// The kinds the user may answer with (``FactorKind/totp``, ``FactorKind/passkey``,
    /// ``FactorKind/recoveryCode``), in the order a page offers them.
    public var kinds: [FactorKind]
    /// The confirmed factors (for a page that names them).
    public var factors: [MFARequirement.EnrolledFactor]
    /// For a passkey answer: the options to get an assertion with (their challenge is this step's).
    public var passkey: PasskeyAssertionOptions?

    public init(kinds: [FactorKind], factors: [MFARequirement.EnrolledFactor], passkey: PasskeyAssertionOptions? = nil) {
        self.kinds = kinds
        self.factors = factors
        self.passkey = passkey
    }
}

/// The user's answer to a ``HeldSecondStep``.
public enum HeldSecondStepResponse: Sendable {
    /// A code from an authenticator app.
    case totp(Secret<String>)
    /// One of the user's recovery codes (each is accepted once).
    case recoveryCode(Secret<String>)
    /// A passkey assertion made with ``HeldSecondStep/passkey``.
    case passkey(PasskeyAssertion)
}
