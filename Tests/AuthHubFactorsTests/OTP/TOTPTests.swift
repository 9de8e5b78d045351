import AuthHub
import AuthHubFactors
import Foundation
import Testing

@Suite struct TOTPTests {
    /// RFC 6238 Appendix B seeds: the ASCII digits repeated to the hash's output size.
    static func seed(_ algorithm: OTPAlgorithm) -> Secret<[UInt8]> {
        let text = switch algorithm {
        case .sha1: "12345678901234567890"
        case .sha256: "12345678901234567890123456789012"
        case .sha512: "1234567890123456789012345678901234567890123456789012345678901234"
        }
        return Secret(Array(text.utf8))
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var time: TimeInterval
        var step: UInt64
        var totp: String
        var algorithm: OTPAlgorithm
        var testDescription: String { "\(Int64(time)) \(algorithm)" }
    }

    /// RFC 6238 Appendix B: all 18 rows (8 digits, 30-second steps, T0 = 0).
    static let appendixB: [Row] = [
        Row(time: 59, step: 0x0000000000000001, totp: "94287082", algorithm: .sha1),
        Row(time: 59, step: 0x0000000000000001, totp: "46119246", algorithm: .sha256),
        Row(time: 59, step: 0x0000000000000001, totp: "90693936", algorithm: .sha512),
        Row(time: 1111111109, step: 0x00000000023523EC, totp: "07081804", algorithm: .sha1),
        Row(time: 1111111109, step: 0x00000000023523EC, totp: "68084774", algorithm: .sha256),
        Row(time: 1111111109, step: 0x00000000023523EC, totp: "25091201", algorithm: .sha512),
        Row(time: 1111111111, step: 0x00000000023523ED, totp: "14050471", algorithm: .sha1),
        Row(time: 1111111111, step: 0x00000000023523ED, totp: "67062674", algorithm: .sha256),
        Row(time: 1111111111, step: 0x00000000023523ED, totp: "99943326", algorithm: .sha512),
        Row(time: 1234567890, step: 0x000000000273EF07, totp: "89005924", algorithm: .sha1),
        Row(time: 1234567890, step: 0x000000000273EF07, totp: "91819424", algorithm: .sha256),
        Row(time: 1234567890, step: 0x000000000273EF07, totp: "93441116", algorithm: .sha512),
        Row(time: 2000000000, step: 0x0000000003F940AA, totp: "69279037", algorithm: .sha1),
        Row(time: 2000000000, step: 0x0000000003F940AA, totp: "90698825", algorithm: .sha256),
        Row(time: 2000000000, step: 0x0000000003F940AA, totp: "38618901", algorithm: .sha512),
        Row(time: 20000000000, step: 0x0000000027BC86AA, totp: "65353130", algorithm: .sha1),
        Row(time: 20000000000, step: 0x0000000027BC86AA, totp: "77737706", algorithm: .sha256),
        Row(time: 20000000000, step: 0x0000000027BC86AA, totp: "47863826", algorithm: .sha512),
    ]

    @Test func theAppendixHasAllEighteenRows() {
        #expect(Self.appendixB.count == 18)
        #expect(Set(Self.appendixB.map(\.totp)).count == 18)
    }

    @Test(arguments: appendixB)
    func rfc6238AppendixB(row: Row) throws {
        let totp = try TOTP(secret: Self.seed(row.algorithm), algorithm: row.algorithm, digits: 8)
        let date = Date(timeIntervalSince1970: row.time)
        #expect(try totp.timeStep(at: date) == row.step)
        #expect(try totp.code(at: date).revealed() == row.totp)
        #expect(totp.code(timeStep: row.step).revealed() == row.totp)
        #expect(try totp.verify(Secret(row.totp), at: date) == row.step)
    }

    @Test func stepsStartAtT0AndRoundDown() throws {
        let totp = try TOTP(secret: Self.seed(.sha1), digits: 8)
        #expect(try totp.timeStep(at: Date(timeIntervalSince1970: 0)) == 0)
        #expect(try totp.timeStep(at: Date(timeIntervalSince1970: 29.999)) == 0)
        #expect(try totp.timeStep(at: Date(timeIntervalSince1970: 30)) == 1)
        #expect(try totp.timeStep(at: Date(timeIntervalSince1970: 59.999)) == 1)
        #expect(try totp.timeStep(at: Date(timeIntervalSince1970: 60)) == 2)

        let shifted = try TOTP(secret: Self.seed(.sha1), digits: 8, t0: Date(timeIntervalSince1970: 1000))
        #expect(try shifted.timeStep(at: Date(timeIntervalSince1970: 1059)) == 1)
        #expect(try shifted.code(at: Date(timeIntervalSince1970: 1059)).revealed() == "94287082")
        let error = #expect(throws: AuthError.self) { try shifted.code(at: Date(timeIntervalSince1970: 999)) }
        #expect(error?.code == .invalidRequest)
        #expect(throws: AuthError(.invalidRequest)) { try shifted.verify(Secret("94287082"), at: Date(timeIntervalSince1970: 999)) }
    }

    @Test func aLongerPeriodMakesLongerSteps() throws {
        let totp = try TOTP(secret: Self.seed(.sha1), digits: 8, period: 60)
        // 1111111109 / 60 = 18518518 (0x11A9E76), i.e. HOTP at that counter.
        let hotp = try HOTP(secret: Self.seed(.sha1), digits: 8)
        #expect(try totp.timeStep(at: Date(timeIntervalSince1970: 1111111109)) == 18518518)
        #expect(try totp.code(at: Date(timeIntervalSince1970: 1111111109)) == hotp.code(counter: 18518518))
        #expect(try totp.code(at: Date(timeIntervalSince1970: 119)).revealed() == "94287082")
    }

    @Test func theSkewWindowAcceptsNeighbouringStepsOnly() throws {
        let now = Date(timeIntervalSince1970: 1_767_225_615)  // mid-step
        let oneStep = try TOTP(secret: Self.seed(.sha1), skew: 1)
        let current = try oneStep.timeStep(at: now)
        for offset in [-1, 0, 1] {
            let step = UInt64(Int64(current) + Int64(offset))
            #expect(try oneStep.verify(oneStep.code(timeStep: step), at: now) == step, "offset \(offset)")
        }
        for offset in [-3, -2, 2, 3] {
            let step = UInt64(Int64(current) + Int64(offset))
            #expect(throws: AuthError(.invalidMFACode), "offset \(offset)") {
                try oneStep.verify(oneStep.code(timeStep: step), at: now)
            }
        }

        let strict = try TOTP(secret: Self.seed(.sha1), skew: 0)
        #expect(try strict.verify(strict.code(timeStep: current), at: now) == current)
        #expect(throws: AuthError(.invalidMFACode)) { try strict.verify(strict.code(timeStep: current - 1), at: now) }

        let wide = try TOTP(secret: Self.seed(.sha1), skew: 3)
        #expect(try wide.verify(wide.code(timeStep: current - 3), at: now) == current - 3)
        #expect(try wide.verify(wide.code(timeStep: current + 3), at: now) == current + 3)
    }

    @Test func theWindowDoesNotUnderflowAtStepZero() throws {
        let totp = try TOTP(secret: Self.seed(.sha1), digits: 8, skew: 2)
        #expect(try totp.verify(Secret("94287082"), at: Date(timeIntervalSince1970: 10)) == 1)
        #expect(try totp.verify(totp.code(timeStep: 0), at: Date(timeIntervalSince1970: 10)) == 0)
    }

    @Test func aCodeIsRefusedOnceItsStepHasBeenUsed() throws {
        let totp = try TOTP(secret: Self.seed(.sha256), algorithm: .sha256, digits: 8)
        let start = Date(timeIntervalSince1970: 1111111109)
        let code = Secret("68084774")
        let used = try totp.verify(code, at: start)
        #expect(used == 0x23523EC)

        // The same code again, still inside its window: replay.
        #expect(throws: AuthError(.invalidMFACode)) { try totp.verify(code, at: start, after: used) }
        #expect(throws: AuthError(.invalidMFACode)) {
            try totp.verify(code, at: start.addingTimeInterval(20), after: used)
        }
        // An older code still inside the skew window is refused too.
        #expect(throws: AuthError(.invalidMFACode)) {
            try totp.verify(totp.code(timeStep: used - 1), at: start, after: used)
        }
        // The next step's code is accepted, and becomes the new high-water mark.
        let next = try totp.verify(totp.code(timeStep: used + 1), at: start.addingTimeInterval(30), after: used)
        #expect(next == used + 1)
    }

    @Test func spacesInTheCodeAreIgnored() throws {
        let totp = try TOTP(secret: Self.seed(.sha1), digits: 8)
        #expect(try totp.verify(Secret(" 9428 7082 "), at: Date(timeIntervalSince1970: 59)) == 1)
        #expect(throws: AuthError(.invalidMFACode)) { try totp.verify(Secret("9428-7082"), at: Date(timeIntervalSince1970: 59)) }
    }

    @Test func invalidParametersAreRejectedAtInit() {
        let secret = Self.seed(.sha1)
        for (label, make) in [
            ("period 0", { _ = try TOTP(secret: secret, period: 0) }),
            ("period -30", { _ = try TOTP(secret: secret, period: -30) }),
            ("skew -1", { _ = try TOTP(secret: secret, skew: -1) }),
            ("skew 11", { _ = try TOTP(secret: secret, skew: TOTP.maximumSkew + 1) }),
            ("digits 5", { _ = try TOTP(secret: secret, digits: 5) }),
            ("digits 9", { _ = try TOTP(secret: secret, digits: 9) }),
            ("empty secret", { _ = try TOTP(secret: Secret([])) }),
            ("infinite T0", { _ = try TOTP(secret: secret, t0: .distantFuture.addingTimeInterval(.infinity)) }),
        ] as [(String, () throws -> Void)] {
            let error = #expect(throws: AuthError.self, "\(label)") { try make() }
            #expect(error?.code == .invalidConfiguration, "\(label)")
        }
    }

    @Test func defaultsAreSHA1SixDigitsThirtySecondsSkewOne() throws {
        let totp = try TOTP(secret: Self.seed(.sha1))
        #expect(totp.algorithm == .sha1)
        #expect(totp.digits == 6)
        #expect(totp.period == 30)
        #expect(totp.skew == 1)
        #expect(totp.t0 == Date(timeIntervalSince1970: 0))
        #expect(try totp.code(at: Date(timeIntervalSince1970: 59)).revealed() == "287082")
    }

    @Test func codableRoundTripKeepsEveryParameter() throws {
        let totp = try TOTP(secret: Self.seed(.sha512), algorithm: .sha512, digits: 7, period: 45,
                            t0: Date(timeIntervalSince1970: 120), skew: 2)
        let decoded = try JSONDecoder().decode(TOTP.self, from: JSONEncoder().encode(totp))
        #expect(decoded == totp)
        #expect(decoded.period == 45 && decoded.skew == 2 && decoded.digits == 7 && decoded.t0 == totp.t0)
        let time = Date(timeIntervalSince1970: 1_000_000)
        #expect(try decoded.code(at: time) == totp.code(at: time))
    }

    @Test func theSecretNeverShowsInDescriptions() throws {
        let totp = try TOTP(secret: Secret(Array("totally-secret-seed!".utf8)))
        var dumped = ""
        dump(totp, to: &dumped)
        for text in [totp.description, String(reflecting: totp), dumped] {
            #expect(!text.contains("totally"), "\(text)")
            #expect(!text.contains("116, 111, 116"), "\(text)")
        }
        #expect(totp.description == "TOTP(SHA1, 6 digits, period 30 s, skew 1, secret: <redacted>)")
    }
}
