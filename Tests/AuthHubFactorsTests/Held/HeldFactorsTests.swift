import AuthHub
import AuthHubFactors
import AuthHubTesting
import Foundation
import Testing

/// `HeldFactors` on its own (no provider): configuration checks, one winner when the same code is
/// presented at once, records it cannot read.
@Suite struct HeldFactorsTests {
    static let owner = HeldFactorOwner(provider: "oidc", user: "user-1")

    static func service(_ store: any HeldFactorStore = InMemoryHeldFactorStore(), clock: FakeClock = FakeClock()) throws -> HeldFactors {
        try HeldFactors(store: store, providers: ["oidc"], kinds: [.totp, .recoveryCode], issuer: "Tests", clock: clock)
    }

    @Test func configurationIsChecked() throws {
        #expect(throws: AuthError(.invalidConfiguration)) { _ = try HeldFactors(store: nil, providers: ["oidc"], issuer: "T") }
        #expect(throws: AuthError(.invalidConfiguration), "passkeys need a relying party") {
            _ = try HeldFactors(store: InMemoryHeldFactorStore(), providers: ["oidc"], kinds: [.passkey], issuer: "T")
        }
        #expect(throws: AuthError(.invalidConfiguration)) {
            _ = try HeldFactors(store: InMemoryHeldFactorStore(), providers: ["oidc"], kinds: [.smsCode], issuer: "T")
        }
        #expect(throws: AuthError(.invalidConfiguration)) {
            _ = try HeldFactors(store: InMemoryHeldFactorStore(), providers: ["oidc"], kinds: [.recoveryCode], issuer: "T", recoveryCodeCount: 0)
        }
        let service = try Self.service()
        #expect(service.accountCapabilities == [.enrollTOTP, .enrollRecoveryCodes, .listMethods, .deleteMethod])
    }

    /// Sixteen second steps presenting the same recovery code at the same moment: exactly one passes
    /// (compare-and-swap on the owner's record), and the code is gone after.
    @Test(arguments: [false, true]) func aRecoveryCodePresentedConcurrentlyPassesOnce(onFiles: Bool) async throws {
        let store: any HeldFactorStore = onFiles
            ? try FileHeldFactorStore(directory: FileManager.default.temporaryDirectory.appendingPathComponent("held-\(UUID().uuidString)"))
            : InMemoryHeldFactorStore()
        let service = try Self.service(store)
        let challenge = try await service.startEnrollment(.recoveryCodes, options: MethodEnrollmentOptions(), owner: Self.owner)
        guard case .recoveryCodes(let codes) = challenge.prompt else { Issue.record("not codes"); return }
        _ = try await service.confirmEnrollment(challenge, response: .acknowledged, owner: Self.owner)
        let step = try #require(try await service.secondStep(for: Self.owner))
        let passed = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<16 {
                group.addTask { (try? await service.verify(.recoveryCode(codes[0]), step: step, owner: Self.owner)) != nil }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(passed == 1)
        await #expect(throws: AuthError(.invalidMFACode)) { try await service.verify(.recoveryCode(codes[0]), step: step, owner: Self.owner) }
        try await service.verify(.recoveryCode(codes[1]), step: step, owner: Self.owner)
    }

    /// The same TOTP code twice at once: one passes.
    @Test func aTOTPCodePresentedConcurrentlyPassesOnce() async throws {
        let clock = FakeClock(now: Date(timeIntervalSince1970: 1_767_225_600))
        let service = try Self.service(clock: clock)
        let challenge = try await service.startEnrollment(.totp, options: MethodEnrollmentOptions(), owner: Self.owner)
        guard case .totp(let uri, _) = challenge.prompt else { Issue.record("not TOTP"); return }
        let totp = try OTPAuthURI(parsing: uri).totp(skew: 0)
        _ = try await service.confirmEnrollment(challenge, response: .code(try totp.code(at: clock.now)), owner: Self.owner)
        clock.advance(by: 30)
        let code = try totp.code(at: clock.now)
        let step = try #require(try await service.secondStep(for: Self.owner))
        let passed = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 { group.addTask { (try? await service.verify(.totp(code), step: step, owner: Self.owner)) != nil } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(passed == 1)
    }

    /// A pending enrollment is forgotten after its lifetime; a factor whose material cannot be read
    /// refuses the step (storageFailure), never lets it pass.
    @Test func staleEnrollmentsAndUnreadableMaterial() async throws {
        let clock = FakeClock(now: Date(timeIntervalSince1970: 1_767_225_600))
        let store = InMemoryHeldFactorStore()
        let service = try Self.service(store, clock: clock)
        let replaced = try await service.startEnrollment(.totp, options: MethodEnrollmentOptions(), owner: Self.owner)
        let challenge = try await service.startEnrollment(.totp, options: MethodEnrollmentOptions(), owner: Self.owner)
        #expect(try await service.methods(of: Self.owner).count == 1, "a new enrollment of a kind replaces the pending one")
        await #expect(throws: AuthError(.sessionExpired)) {
            _ = try await service.confirmEnrollment(replaced, response: .code(Secret("000000")), owner: Self.owner)
        }
        #expect(try await service.secondStep(for: Self.owner) == nil, "an unconfirmed factor asks for nothing")
        clock.advance(by: HeldFactors.enrollmentLifetime + 1)
        #expect(try await service.methods(of: Self.owner).isEmpty)
        await #expect(throws: AuthError(.sessionExpired)) {
            _ = try await service.confirmEnrollment(challenge, response: .code(Secret("000000")), owner: Self.owner)
        }
        try await store.save(HeldFactorRecord(owner: Self.owner, factors: [
            HeldFactor(id: "authhub.bad", kind: .totp, createdAt: clock.now, isConfirmed: true, material: Secret("not json")),
        ]), expectedVersion: try await store.load(Self.owner)?.version)
        let step = try #require(try await service.secondStep(for: Self.owner))
        await #expect(throws: AuthError(.storageFailure)) { try await service.verify(.totp(Secret("123456")), step: step, owner: Self.owner) }
    }
}
