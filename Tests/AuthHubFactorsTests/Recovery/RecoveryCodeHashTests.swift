import AuthHub
import AuthHubFactors
import Foundation
import Testing

@Suite struct RecoveryCodeHashTests {
    static let code = Secret("ABCD-EFGH-JKMN-PQRS")

    @Test func theStoredFormIsSaltedSHA256InBase64URL() throws {
        // Salt 00 01 … 0F; hash = SHA-256(salt ‖ "ABCDEFGHJKMNPQRS"), computed independently (Python hashlib).
        let hash = try RecoveryCodeHash(hashing: Self.code, random: OTPTestRandom(Array(0..<16)))
        #expect(hash.stored == "sha256$AAECAwQFBgcICQoLDA0ODw$wRO254SetSN4DZY7J4hOe320tA0xNZ8jtSfkRN_joPQ")
        #expect(hash.salt == Array(0..<16))
    }

    @Test func matchesTheCodeHoweverItIsTyped() throws {
        let hash = try RecoveryCodeHash(hashing: Self.code, random: OTPTestRandom())
        for typed in ["ABCD-EFGH-JKMN-PQRS", "abcdefghjkmnpqrs", "abcd efgh jkmn pqrs", " ABCD-efgh JKMN-pqrs "] {
            #expect(hash.matches(Secret(typed)), "\(typed)")
        }
        let zeros = try RecoveryCodeHash(hashing: Secret("0000-1111-0000-1111"), random: OTPTestRandom())
        #expect(zeros.matches(Secret("OOOO-IIII-oooo-llll")))
    }

    @Test func doesNotMatchOtherCodesOrGarbage() throws {
        let hash = try RecoveryCodeHash(hashing: Self.code, random: OTPTestRandom())
        for typed in ["ABCD-EFGH-JKMN-PQRT", "BCDE-FGHJ-KMNP-QRSA", "ABCD-EFGH-JKMN-PQR", "", "ABCD-EFGH-JKMN-PQRS-0000"] {
            #expect(!hash.matches(Secret(typed)), "\(typed)")
        }
    }

    @Test func theSameCodeHashesDifferentlyUnderDifferentSalts() throws {
        let random = OTPTestRandom()
        let first = try RecoveryCodeHash(hashing: Self.code, random: random)
        let second = try RecoveryCodeHash(hashing: Self.code, random: random)
        #expect(first.salt != second.salt)
        #expect(first.digest != second.digest)
        #expect(first.matches(Self.code) && second.matches(Self.code))
        #expect(random.requests == [16, 16])
    }

    @Test func parsingTheStoredFormRestoresTheHash() throws {
        let hash = try RecoveryCodeHash(hashing: Self.code)
        let stored = hash.stored
        #expect(stored.wholeMatch(of: /sha256\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}/) != nil, "\(stored)")
        let parsed = try RecoveryCodeHash(parsing: stored)
        #expect(parsed == hash)
        #expect(parsed.matches(Self.code))
    }

    @Test func onlyRecoveryCodesCanBeHashed() {
        let error = #expect(throws: AuthError.self) { try RecoveryCodeHash(hashing: Secret("hunter2"), random: OTPTestRandom()) }
        #expect(error?.code == .invalidRequest)
        #expect(error?.message.contains("hunter2") == false)
        #expect(throws: AuthError(.invalidConfiguration)) {
            try RecoveryCodeHash(hashing: Self.code, random: OTPTestRandom(shortBy: 1))
        }
    }

    static let salt = "AAECAwQFBgcICQoLDA0ODw"
    static let digest = "wRO254SetSN4DZY7J4hOe320tA0xNZ8jtSfkRN_joPQ"

    @Test(arguments: [
        ("", "expected 3 '$'-separated fields (sha256$salt$hash), found 1"),
        ("sha256$\(salt)", "found 2"),
        ("sha256$\(salt)$\(digest)$extra", "found 4"),
        ("md5$\(salt)$\(digest)", "the scheme must be sha256"),
        ("SHA256$\(salt)$\(digest)", "the scheme must be sha256"),
        ("sha256$$\(digest)", "the salt is not base64url"),
        ("sha256$AAEC+wQF/gcICQoLDA0ODw$\(digest)", "the salt is not base64url"),
        ("sha256$AAECAwQFBgcICQoLDA0ODw==$\(digest)", "the salt is not base64url"),
        ("sha256$AAECAwQFBg$\(digest)", "the salt is 7 bytes, fewer than 8"),
        ("sha256$\(salt)$", "the hash is not base64url"),
        ("sha256$\(salt)$\(digest.dropLast(3))", "the hash is 30 bytes, not 32"),
        ("sha256$\(salt)$\(digest)AAAA", "the hash is 35 bytes, not 32"),
        ("sha256$\(salt)$A", "the hash is not base64url"),
    ])
    func malformedStoredFormsAreClearErrors(stored: String, problem: String) {
        let error = #expect(throws: AuthError.self) { try RecoveryCodeHash(parsing: stored) }
        #expect(error?.code == .invalidRequest)
        #expect(error?.details["reason"] == "malformedRecoveryCodeHash")
        #expect(error?.message.contains(problem) == true, "\(String(describing: error?.message))")
    }

    @Test func codableUsesTheStoredForm() throws {
        let hash = try RecoveryCodeHash(hashing: Self.code, random: OTPTestRandom(Array(0..<16)))
        let json = try #require(String(data: try JSONEncoder().encode([hash]), encoding: .utf8))
        #expect(json == #"["sha256$AAECAwQFBgcICQoLDA0ODw$wRO254SetSN4DZY7J4hOe320tA0xNZ8jtSfkRN_joPQ"]"#)
        #expect(try JSONDecoder().decode([RecoveryCodeHash].self, from: Data(json.utf8)) == [hash])
        #expect(throws: AuthError(.invalidRequest)) { try JSONDecoder().decode([RecoveryCodeHash].self, from: Data(#"["sha256$x"]"#.utf8)) }
    }

    @Test func theDescriptionShowsNeitherCodeNorHash() throws {
        let hash = try RecoveryCodeHash(hashing: Self.code, random: OTPTestRandom(Array(0..<16)))
        #expect(hash.description == "RecoveryCodeHash(sha256)")
    }
}
