import AuthHub
import AuthHubFactors
import AuthHubTesting
import Foundation
import Testing

@Suite struct TOTPEnrollmentTests {
    /// 2026-01-01T00:00:15Z: the middle of a 30-second step.
    static let start = Date(timeIntervalSince1970: 1_767_225_615)
    static let secretBytes: [UInt8] = Array(0xA0..<0xB4)  // 20 scripted bytes

    func makeEnrollment(clock: FakeClock, random: OTPTestRandom = OTPTestRandom(secretBytes), skew: Int = 1) throws
        -> TOTPEnrollment
    {
        try TOTPEnrollment(account: "alice@example.com", issuer: "ACME Co", skew: skew, clock: clock, random: random)
    }

    @Test func startDrawsTheSecretFromTheRandomSourceAndBuildsTheURI() async throws {
        let random = OTPTestRandom(Self.secretBytes)
        let enrollment = try makeEnrollment(clock: FakeClock(now: Self.start), random: random)
        #expect(enrollment.kind == .totp)
        let challenge = try await enrollment.start()
        #expect(random.requests == [20])
        #expect(challenge.secret.revealed() == Self.secretBytes)
        #expect(challenge.base32Secret.revealed() == Base32.encode(Self.secretBytes))
        #expect(challenge.createdAt == Self.start)

        let parsed = try OTPAuthURI(parsing: challenge.uri.string)
        #expect(parsed.secret.revealed() == Self.secretBytes)
        #expect(parsed.account == "alice@example.com" && parsed.issuer == "ACME Co")
        #expect(parsed.kind == .totp(period: 30) && parsed.digits == 6 && parsed.algorithm == .sha1)
        #expect(challenge.uri.string.revealed().hasPrefix("otpauth://totp/ACME%20Co:alice%40example.com?secret="))
    }

    @Test func eachStartDrawsANewSecret() async throws {
        let enrollment = try TOTPEnrollment(account: "a", issuer: nil, clock: FakeClock(now: Self.start))
        let first = try await enrollment.start()
        let second = try await enrollment.start()
        #expect(first.secret.revealed().count == 20)
        #expect(first.secret != second.secret)
    }

    @Test func confirmWithTheCurrentCodeEnrollsAndRecordsTheStep() async throws {
        let clock = FakeClock(now: Self.start)
        let enrollment = try makeEnrollment(clock: clock)
        let challenge = try await enrollment.start()
        clock.advance(by: 10)  // the user scans the QR code and types the code
        let code = try challenge.totp.code(at: clock.now)
        let credential = try await enrollment.confirm(challenge, response: code)
        #expect(credential.lastUsedStep == UInt64(clock.now.timeIntervalSince1970) / 30)
        #expect(credential.enrolledAt == clock.now)
        #expect(credential.account == "alice@example.com" && credential.issuer == "ACME Co")
        #expect(credential.totp.secret.revealed() == Self.secretBytes)
        // An independently computed code (the RFC arithmetic over the same bytes) is what was accepted.
        let independent = try HOTP(secret: Secret(Self.secretBytes)).code(counter: credential.lastUsedStep)
        #expect(independent == code)
    }

    @Test func confirmToleratesOneStepOfDriftButNotTwo() async throws {
        let clock = FakeClock(now: Self.start)
        let enrollment = try makeEnrollment(clock: clock)
        let challenge = try await enrollment.start()
        let step = try challenge.totp.timeStep(at: clock.now)
        let previous = try await enrollment.confirm(challenge, response: challenge.totp.code(timeStep: step - 1))
        #expect(previous.lastUsedStep == step - 1)
        await #expect(throws: AuthError(.invalidMFACode)) {
            try await enrollment.confirm(challenge, response: challenge.totp.code(timeStep: step - 2))
        }
        await #expect(throws: AuthError(.invalidMFACode)) {
            try await enrollment.confirm(challenge, response: challenge.totp.code(timeStep: step + 2))
        }
    }

    @Test func aWrongCodeIsInvalidMFACode() async throws {
        let clock = FakeClock(now: Self.start)
        let enrollment = try makeEnrollment(clock: clock)
        let challenge = try await enrollment.start()
        let right = try challenge.totp.code(at: clock.now).revealed()
        let wrong = String(right.dropLast()) + (right.hasSuffix("0") ? "1" : "0")
        let error = await #expect(throws: AuthError.self) { try await enrollment.confirm(challenge, response: Secret(wrong)) }
        #expect(error?.code == .invalidMFACode)
        #expect(error?.message.contains(right) == false)
    }

    @Test func aCodeShownLongAgoHasExpiredByConfirmation() async throws {
        let clock = FakeClock(now: Self.start)
        let enrollment = try makeEnrollment(clock: clock)
        let challenge = try await enrollment.start()
        let shown = try challenge.totp.code(at: clock.now)
        clock.advance(by: 5 * 60)
        await #expect(throws: AuthError(.invalidMFACode)) { try await enrollment.confirm(challenge, response: shown) }
    }

    @Test func theEnrolledCredentialRefusesReplayAndAcceptsTheNextCode() async throws {
        let clock = FakeClock(now: Self.start)
        let enrollment = try makeEnrollment(clock: clock)
        let challenge = try await enrollment.start()
        let enrollCode = try challenge.totp.code(at: clock.now)
        var credential = try await enrollment.confirm(challenge, response: enrollCode)
        let enrolledStep = credential.lastUsedStep

        // The enrollment code cannot sign in a second time.
        #expect(throws: AuthError(.invalidMFACode)) { try credential.verify(enrollCode, at: clock.now) }
        #expect(credential.lastUsedStep == enrolledStep)

        clock.advance(by: 30)
        let next = try credential.totp.code(at: clock.now)
        #expect(try credential.verify(next, at: clock.now) == enrolledStep + 1)
        #expect(credential.lastUsedStep == enrolledStep + 1)
        #expect(throws: AuthError(.invalidMFACode)) { try credential.verify(next, at: clock.now) }
    }

    @Test func theCredentialSurvivesStorage() async throws {
        let clock = FakeClock(now: Self.start)
        let enrollment = try TOTPEnrollment(account: "bob", issuer: nil, algorithm: .sha512, digits: 8, period: 60,
                                            skew: 0, secretLength: 64, clock: clock, random: OTPTestRandom())
        let challenge = try await enrollment.start()
        let credential = try await enrollment.confirm(challenge, response: challenge.totp.code(at: clock.now))
        let data = try JSONEncoder().encode(credential)
        var restored = try JSONDecoder().decode(TOTPEnrollment.Credential.self, from: data)
        #expect(restored == credential)
        #expect(restored.totp.algorithm == .sha512 && restored.totp.digits == 8 && restored.totp.period == 60)
        #expect(restored.totp.secret.revealed().count == 64)
        // The replay guard is part of what is stored.
        #expect(throws: AuthError(.invalidMFACode)) { try restored.verify(challenge.totp.code(at: clock.now), at: clock.now) }
        clock.advance(by: 60)
        #expect(try restored.verify(restored.totp.code(at: clock.now), at: clock.now) == credential.lastUsedStep + 1)
    }

    @Test func walksTheFactorFlowToCompletion() async throws {
        let clock = FakeClock(now: Self.start)
        let flow = FactorFlow(try makeEnrollment(clock: clock))
        let states = await flow.states()
        guard case .challenge(let challenge) = await flow.start() else {
            Issue.record("expected a challenge")
            return
        }
        guard case .completed(let credential) = await flow.confirm(try challenge.totp.code(at: clock.now)) else {
            Issue.record("expected completion")
            return
        }
        #expect(credential.totp.secret == challenge.secret)
        var names: [String] = []
        for await state in states {
            names.append(state.name)
            if names.count == 5 { break }
        }
        #expect(names == ["idle", "loading", "challenge", "confirming", "completed"])
    }

    @Test func aWrongCodeInTheFlowFailsThenRetryKeepsTheSameSecret() async throws {
        let clock = FakeClock(now: Self.start)
        let flow = FactorFlow(try makeEnrollment(clock: clock))
        guard case .challenge(let challenge) = await flow.start() else {
            Issue.record("expected a challenge")
            return
        }
        let right = try challenge.totp.code(at: clock.now).revealed()
        let wrong = right == "000000" ? "000001" : "000000"
        guard case .failed(let error) = await flow.confirm(Secret(wrong)) else {
            Issue.record("expected failure")
            return
        }
        #expect(error.code == .invalidMFACode)
        guard case .challenge(let again) = await flow.retry() else {
            Issue.record("expected the challenge again")
            return
        }
        #expect(again.secret == challenge.secret)
        #expect(await flow.confirm(Secret(right)).name == "completed")
    }

    @Test func aMisbehavingRandomSourceFailsTheStart() async throws {
        let enrollment = try TOTPEnrollment(account: "a", issuer: nil, clock: FakeClock(now: Self.start),
                                            random: OTPTestRandom(shortBy: 1))
        let error = await #expect(throws: AuthError.self) { try await enrollment.start() }
        #expect(error?.code == .invalidConfiguration)
        let flow = FactorFlow(enrollment)
        #expect(await flow.start().name == "failed")
    }

    @Test func invalidSettingsAreRejectedUpFront() {
        let clock = FakeClock(now: Self.start)
        let cases: [(String, () throws -> Void)] = [
            ("empty account", { _ = try TOTPEnrollment(account: "", issuer: nil, clock: clock) }),
            ("15-byte secret", { _ = try TOTPEnrollment(account: "a", issuer: nil, secretLength: 15, clock: clock) }),
            ("digits 9", { _ = try TOTPEnrollment(account: "a", issuer: nil, digits: 9, clock: clock) }),
            ("period 0", { _ = try TOTPEnrollment(account: "a", issuer: nil, period: 0, clock: clock) }),
            ("skew -1", { _ = try TOTPEnrollment(account: "a", issuer: nil, skew: -1, clock: clock) }),
        ]
        for (label, make) in cases {
            let error = #expect(throws: AuthError.self, "\(label)") { try make() }
            #expect(error?.code == .invalidConfiguration, "\(label)")
        }
    }

    @Test func descriptionsRedactTheSecret() async throws {
        let clock = FakeClock(now: Self.start)
        let enrollment = try makeEnrollment(clock: clock)
        let challenge = try await enrollment.start()
        let credential = try await enrollment.confirm(challenge, response: challenge.totp.code(at: clock.now))
        let base32 = Base32.encode(Self.secretBytes)
        var dumpedChallenge = ""
        var dumpedCredential = ""
        dump(challenge, to: &dumpedChallenge)
        dump(credential, to: &dumpedCredential)
        for text in [challenge.description, "\(challenge)", credential.description, "\(credential)", dumpedChallenge,
                     dumpedCredential, String(reflecting: challenge), String(reflecting: credential)] {
            #expect(!text.contains(base32), "\(text)")
            #expect(!text.contains(String(base32.prefix(8))), "\(text)")
            #expect(!text.contains("160, 161, 162"), "\(text)")
        }
        #expect(challenge.description.contains("secret=<redacted>"))
    }
}
