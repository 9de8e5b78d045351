import AuthHub
import AuthHubFactors
import Foundation
import Testing

@Suite struct RecoveryCodeSetTests {
    @Test func generatesCodesAndTheSetThatStoresThem() throws {
        let random = OTPTestRandom()
        let (codes, set) = try RecoveryCodeSet.generate(random: random)
        #expect(codes.count == 10)
        #expect(set.remaining == 10)
        #expect(random.requests == Array(repeating: 10, count: 10) + Array(repeating: 16, count: 10))
        for (code, hash) in zip(codes, set.hashes) { #expect(hash.matches(code)) }
    }

    @Test func eachCodeWorksExactlyOnce() throws {
        var (codes, set) = try RecoveryCodeSet.generate(count: 5, random: OTPTestRandom())
        try set.consume(codes[2])
        #expect(set.remaining == 4)
        let error = #expect(throws: AuthError.self) { try set.consume(codes[2]) }
        #expect(error?.code == .invalidMFACode)
        #expect(error?.details["remaining"] == "4")
        #expect(set.remaining == 4)

        // Typed differently, another code still works once.
        let typed = codes[4].revealed().lowercased().replacingOccurrences(of: "-", with: " ")
        try set.consume(Secret(typed))
        #expect(set.remaining == 3)
        #expect(throws: AuthError(.invalidMFACode)) { try set.consume(codes[4]) }

        for index in [0, 1, 3] { try set.consume(codes[index]) }
        #expect(set.remaining == 0)
        for code in codes { #expect(throws: AuthError(.invalidMFACode)) { try set.consume(code) } }
    }

    @Test func aWrongCodeLeavesTheSetUnchanged() throws {
        var (_, set) = try RecoveryCodeSet.generate(count: 3, random: OTPTestRandom())
        let before = set
        for wrong in ["ZZZZ-ZZZZ-ZZZZ-ZZZZ", "", "not a code", "0000-0000-0000-000"] {
            #expect(throws: AuthError(.invalidMFACode), "\(wrong)") { try set.consume(Secret(wrong)) }
        }
        #expect(set == before)
        #expect(set.remaining == 3)
    }

    @Test func theStoredFormsRoundTripAndKeepConsumption() throws {
        var (codes, set) = try RecoveryCodeSet.generate(count: 4, random: OTPTestRandom())
        try set.consume(codes[0])
        let data = try JSONEncoder().encode(set)
        let array = try JSONDecoder().decode([String].self, from: data)
        #expect(array == set.storedForms)
        #expect(array.count == 3)

        var restored = try JSONDecoder().decode(RecoveryCodeSet.self, from: data)
        #expect(restored == set)
        #expect(throws: AuthError(.invalidMFACode)) { try restored.consume(codes[0]) }
        try restored.consume(codes[1])
        #expect(restored.remaining == 2)

        var fromStrings = try RecoveryCodeSet(storedForms: set.storedForms)
        try fromStrings.consume(codes[3])
        #expect(fromStrings.remaining == 2)
    }

    @Test func aMalformedStoredFormIsAClearError() throws {
        let (_, set) = try RecoveryCodeSet.generate(count: 2, random: OTPTestRandom())
        let error = #expect(throws: AuthError.self) { try RecoveryCodeSet(storedForms: set.storedForms + ["sha256$only-two"]) }
        #expect(error?.details["reason"] == "malformedRecoveryCodeHash")
        #expect(throws: AuthError(.invalidRequest)) {
            try JSONDecoder().decode(RecoveryCodeSet.self, from: Data(#"["sha1$AAAAAAAAAAA$AAAA"]"#.utf8))
        }
    }

    @Test func theDescriptionCountsWithoutRevealing() throws {
        let (codes, set) = try RecoveryCodeSet.generate(count: 3, random: OTPTestRandom())
        var dumped = ""
        dump(set, to: &dumped)
        #expect(set.description == "RecoveryCodeSet(3 remaining)")
        for code in codes {
            let plain = code.revealed()
            #expect(!dumped.contains(plain) && !dumped.contains(plain.replacingOccurrences(of: "-", with: "")))
        }
    }
}
