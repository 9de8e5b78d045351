import AuthHub
import AuthHubEmulator
import AuthHubFactors
import AuthHubTesting
import Foundation
import Testing

/// AuthHub-held factors (TOTP, passkeys, recovery codes) for a provider without second factors —
/// Openfort on the emulator over HTTP: enrolled through the account API, asked for after the
/// provider's sign-in, the session stored only once the second step is answered.
@Suite struct HeldFactorsIntegrationTests {
    static let password = WrapperOwnershipTests.password
    static let origin = "https://app.example.test"

    /// A hub on the emulator with held factors on for Openfort; their clock is `clock` (TOTP codes are
    /// computed at its time, so a test can move on to the next time step).
    static func hub(_ emulator: RunningEmulator, clock: FakeClock) throws -> AuthHub {
        let hub = try WrapperOwnershipTests.hub(emulator)
        hub.useHeldFactors(try HeldFactors(store: hub.heldFactorStore, providers: ["openfort"], issuer: "AuthHub tests",
                                           relyingParty: WebAuthnRelyingParty(id: "app.example.test", origins: [origin]), clock: clock))
        return hub
    }

    static func totpCode(_ challenge: MethodEnrollmentChallenge, at date: Date) throws -> Secret<String> {
        guard case .totp(let uri, _) = challenge.prompt else { throw AuthError(.invalidRequest, message: "not a TOTP prompt") }
        return try OTPAuthURI(parsing: uri).totp(skew: 0).code(at: date)
    }

    /// Signs in with the password and expects the held second step; returns its requirement.
    static func signInExpectingSecondStep(_ hub: AuthHub, _ email: String) async throws -> MFARequirement {
        do {
            _ = try await hub.signIn(.password(identifier: email, password: Secret(password)), provider: "openfort")
        } catch let error as AuthError where AuthHub.isHeldSecondStep(error) {
            return try #require(error.mfa)
        }
        throw AuthError(.unknown, message: "the sign-in completed without the second step")
    }

    @Test func totpIsEnrolledAndAskedForAfterSignIn() async throws {
        let emulator = try await Emulator.start()
        defer { Task { await emulator.stop() } }
        let clock = FakeClock(now: Date())
        let hub = try Self.hub(emulator, clock: clock)
        _ = try await hub.signUp(.init(email: "held@example.com", password: Secret(Self.password)), provider: "openfort")
        let capabilities = try hub.accountCapabilities(provider: "openfort")
        #expect(capabilities.isSuperset(of: [.enrollTOTP, .enrollPasskey, .enrollRecoveryCodes, .listMethods, .deleteMethod]))

        let challenge = try await hub.startMethodEnrollment(.totp, options: MethodEnrollmentOptions(accountName: "held@example.com"), provider: "openfort")
        #expect(challenge.source == .authHub)
        let pendingList = try await hub.accountMethods(provider: "openfort")
        #expect(pendingList.contains { $0.kind == .totp && !$0.isConfirmed && $0.source == .authHub }, "\(pendingList)")
        await #expect(throws: AuthError(.invalidMFACode)) {
            try await hub.confirmMethodEnrollment(challenge, response: .code(Secret("000000") == (try Self.totpCode(challenge, at: clock.now)) ? Secret("111111") : Secret("000000")), provider: "openfort")
        }
        let method = try #require(try await hub.confirmMethodEnrollment(challenge, response: .code(try Self.totpCode(challenge, at: clock.now)), provider: "openfort"))
        #expect(method.kind == .totp && method.isConfirmed && method.source == .authHub && method.id.hasPrefix("authhub."))
        let methods = try await hub.accountMethods(provider: "openfort")
        #expect(methods.contains { $0.kind == .password && $0.source == .provider }, "the provider's own methods stay listed")

        // Signing in again: the provider accepts the password, AuthHub asks for the code, nothing is stored meanwhile.
        _ = try await hub.signOut(provider: "openfort")
        let requirement = try await Self.signInExpectingSecondStep(hub, "held@example.com")
        #expect(requirement.challengeTypes == ["totp"])
        #expect(requirement.enrolledFactors.map(\.id) == [method.id])
        await #expect(throws: AuthError(.noSession)) { _ = try await hub.session(provider: "openfort") }
        // The enrollment's own code is used already (same time step).
        await #expect(throws: AuthError(.invalidMFACode)) {
            try await hub.signIn(.mfa(requirement: requirement, response: .otp(try Self.totpCode(challenge, at: clock.now))), provider: "openfort")
        }
        clock.advance(by: 30)
        let code = try Self.totpCode(challenge, at: clock.now)
        let session = try await hub.signIn(.mfa(requirement: requirement, response: .otp(code)), provider: "openfort")
        #expect(session.providerID == "openfort")
        #expect(try await hub.session(provider: "openfort").userID == session.userID)
        // The token was used: answering again finds no waiting sign-in; the code would be a replay anyway.
        await #expect(throws: AuthError(.sessionExpired)) { try await hub.completeHeldSecondStep(token: requirement.token, response: .totp(code)) }
        #expect(try await hub.accountMethods(provider: "openfort").first { $0.id == method.id }?.lastUsedAt != nil)

        // Removed: the next sign-in completes at once.
        try await hub.deleteMethod(id: method.id, provider: "openfort")
        _ = try await hub.signOut(provider: "openfort")
        _ = try await hub.signIn(.password(identifier: "held@example.com", password: Secret(Self.password)), provider: "openfort")
    }

    @Test func recoveryCodesWorkOnceEach() async throws {
        let emulator = try await Emulator.start()
        defer { Task { await emulator.stop() } }
        let hub = try Self.hub(emulator, clock: FakeClock(now: Date()))
        _ = try await hub.signUp(.init(email: "rc@example.com", password: Secret(Self.password)), provider: "openfort")
        let challenge = try await hub.startMethodEnrollment(.recoveryCodes, provider: "openfort")
        guard case .recoveryCodes(let codes) = challenge.prompt else { Issue.record("not recovery codes"); return }
        #expect(codes.count == RecoveryCode.defaultCount)
        let method = try #require(try await hub.confirmMethodEnrollment(challenge, response: .acknowledged, provider: "openfort"))
        #expect(method.detail == "\(codes.count) codes left")

        _ = try await hub.signOut(provider: "openfort")
        var requirement = try await Self.signInExpectingSecondStep(hub, "rc@example.com")
        #expect(requirement.challengeTypes == ["recoveryCode"])
        _ = try await hub.signIn(.mfa(requirement: requirement, response: .recoveryCode(codes[0])), provider: "openfort")
        _ = try await hub.signOut(provider: "openfort")
        requirement = try await Self.signInExpectingSecondStep(hub, "rc@example.com")
        await #expect(throws: AuthError(.invalidMFACode), "the same code is refused the second time") {
            try await hub.signIn(.mfa(requirement: requirement, response: .recoveryCode(codes[0])), provider: "openfort")
        }
        _ = try await hub.signIn(.mfa(requirement: requirement, response: .recoveryCode(codes[1])), provider: "openfort")
        #expect(try await hub.accountMethods(provider: "openfort").first { $0.id == method.id }?.detail == "\(codes.count - 2) codes left")

        // Five wrong answers end the waiting sign-in.
        _ = try await hub.signOut(provider: "openfort")
        requirement = try await Self.signInExpectingSecondStep(hub, "rc@example.com")
        for _ in 0..<4 {
            await #expect(throws: AuthError(.invalidMFACode)) { try await hub.completeHeldSecondStep(token: requirement.token, response: .recoveryCode(Secret("0000-0000-0000-0000"))) }
        }
        await #expect(throws: AuthError(.sessionExpired)) { try await hub.completeHeldSecondStep(token: requirement.token, response: .recoveryCode(Secret("0000-0000-0000-0000"))) }
        await #expect(throws: AuthError(.sessionExpired), "even with a right code afterwards") {
            try await hub.completeHeldSecondStep(token: requirement.token, response: .recoveryCode(codes[2]))
        }
    }

    @Test func aPasskeyIsRegisteredAndAskedFor() async throws {
        let emulator = try await Emulator.start()
        defer { Task { await emulator.stop() } }
        let hub = try Self.hub(emulator, clock: FakeClock(now: Date()))
        _ = try await hub.signUp(.init(email: "pk@example.com", password: Secret(Self.password)), provider: "openfort")
        let authenticator = try SoftwarePasskeyAuthenticator(store: InMemoryPasskeyCredentialStore())
        let challenge = try await hub.startMethodEnrollment(.passkey, options: MethodEnrollmentOptions(accountName: "pk@example.com", name: "Laptop"),
                                                            provider: "openfort")
        guard case .passkey(let options) = challenge.prompt else { Issue.record("not a passkey prompt"); return }
        #expect(options.relyingParty.id == "app.example.test" && options.origin == Self.origin)
        let registration = try await authenticator.makeCredential(options)
        let method = try #require(try await hub.confirmMethodEnrollment(challenge, response: .passkey(registration), provider: "openfort"))
        #expect(method.kind == .passkey && method.name == "Laptop")

        _ = try await hub.signOut(provider: "openfort")
        let requirement = try await Self.signInExpectingSecondStep(hub, "pk@example.com")
        let step = try #require(hub.heldSecondStep(token: requirement.token))
        let assertionOptions = try #require(step.passkey)
        #expect(step.kinds == [.passkey])
        // An assertion for another challenge (a replayed one) is refused; the step's own is accepted.
        var replayed = assertionOptions
        replayed.challenge = Array(repeating: 7, count: 32)
        let wrong = try await authenticator.getAssertion(replayed)
        await #expect(throws: AuthError(.invalidMFACode)) { try await hub.completeHeldSecondStep(token: requirement.token, response: .passkey(wrong)) }
        let assertion = try await authenticator.getAssertion(assertionOptions)
        _ = try await hub.completeHeldSecondStep(token: requirement.token, response: .passkey(assertion))
        #expect(try await hub.session(provider: "openfort").providerID == "openfort")
    }

    /// The session is stored under the account the sign-in was made for (not the provider's
    /// default), as a web layer's browser-session accounts need.
    @Test func theSecondStepStoresUnderTheAccountSignedInFor() async throws {
        let emulator = try await Emulator.start()
        defer { Task { await emulator.stop() } }
        let hub = try Self.hub(emulator, clock: FakeClock(now: Date()))
        _ = try await hub.signUp(.init(email: "acct2@example.com", password: Secret(Self.password)), provider: "openfort", account: "work")
        let challenge = try await hub.startMethodEnrollment(.recoveryCodes, provider: "openfort", account: "work")
        guard case .recoveryCodes(let codes) = challenge.prompt else { Issue.record("not codes"); return }
        _ = try await hub.confirmMethodEnrollment(challenge, response: .acknowledged, provider: "openfort", account: "work")
        _ = try await hub.signOut(provider: "openfort", account: "work")
        var requirement: MFARequirement?
        do {
            _ = try await hub.signIn(.password(identifier: "acct2@example.com", password: Secret(Self.password)), provider: "openfort", account: "work")
        } catch let error as AuthError where AuthHub.isHeldSecondStep(error) {
            requirement = error.mfa
        }
        let token = try #require(requirement?.token)
        _ = try await hub.completeHeldSecondStep(token: token, response: .recoveryCode(codes[0]))
        #expect(try await hub.session(provider: "openfort", account: "work").providerID == "openfort")
        await #expect(throws: AuthError(.noSession)) { _ = try await hub.session(provider: "openfort") }
    }

    /// Deleting the account removes what AuthHub keeps of the user: the session, the user's other
    /// sessions with the provider, and the held factors.
    @Test func deletingTheAccountRemovesHeldFactorsAndOtherSessions() async throws {
        let emulator = try await Emulator.start()
        defer { Task { await emulator.stop() } }
        let hub = try WrapperOwnershipTests.hub(emulator)
        hub.useHeldFactors(try HeldFactors(store: hub.heldFactorStore, providers: ["firebase"], kinds: [.recoveryCode], issuer: "T"))
        let session = try await hub.signUp(.init(email: "gone@example.com", password: Secret(Self.password)), provider: "firebase")
        guard case .signedIn(let signedIn) = session else { Issue.record("not signed in"); return }
        _ = try await hub.signIn(.password(identifier: "gone@example.com", password: Secret(Self.password)), provider: "firebase", account: "laptop")
        let challenge = try await hub.startMethodEnrollment(.recoveryCodes, provider: "firebase")
        _ = try await hub.confirmMethodEnrollment(challenge, response: .acknowledged, provider: "firebase")
        let owner = try #require(HeldFactorOwner(signedIn))
        #expect(try await hub.heldFactorStore?.load(owner) != nil)
        try await hub.deleteAccount(provider: "firebase")
        #expect(try await hub.heldFactorStore?.load(owner) == nil, "the held factors are gone")
        await #expect(throws: AuthError(.noSession), "the user's other session is gone") {
            _ = try await hub.session(provider: "firebase", account: "laptop")
        }
    }

    /// Providers the service does not cover sign in as before; a covered one whose user holds
    /// nothing too.
    @Test func onlyCoveredUsersWithFactorsAreAsked() async throws {
        let emulator = try await Emulator.start()
        defer { Task { await emulator.stop() } }
        let hub = try Self.hub(emulator, clock: FakeClock(now: Date()))
        _ = try await hub.signUp(.init(email: "plain@example.com", password: Secret(Self.password)), provider: "openfort")
        _ = try await hub.signOut(provider: "openfort")
        _ = try await hub.signIn(.password(identifier: "plain@example.com", password: Secret(Self.password)), provider: "openfort")
        #expect(try hub.accountCapabilities(provider: "auth0").contains(.enrollTOTP), "Auth0's own TOTP")
        let auth0Held = try hub.accountCapabilities(provider: "firebase")
        #expect(!auth0Held.contains(.enrollRecoveryCodes), "not covered: no held factors for Firebase")
    }
}
