import AuthHub
@testable import AuthHubFactors
import Foundation
import Testing

@Suite struct HOTPTests {
    static let rfcSecret = Secret(Array("12345678901234567890".utf8))

    /// RFC 4226 Appendix D: count, HMAC-SHA-1(secret, count), truncated value (hex and decimal), HOTP.
    static let appendixD: [(count: UInt64, hmac: String, truncatedHex: UInt32, truncated: UInt32, hotp: String)] = [
        (0, "cc93cf18508d94934c64b65d8ba7667fb7cde4b0", 0x4c93cf18, 1284755224, "755224"),
        (1, "75a48a19d4cbe100644e8ac1397eea747a2d33ab", 0x41397eea, 1094287082, "287082"),
        (2, "0bacb7fa082fef30782211938bc1c5e70416ff44", 0x82fef30, 137359152, "359152"),
        (3, "66c28227d03a2d5529262ff016a1e6ef76557ece", 0x66ef7655, 1726969429, "969429"),
        (4, "a904c900a64b35909874b33e61c5938a8e15ed1c", 0x61c5938a, 1640338314, "338314"),
        (5, "a37e783d7b7233c083d4f62926c7a25f238d0316", 0x33c083d4, 868254676, "254676"),
        (6, "bc9cd28561042c83f219324d3c607256c03272ae", 0x7256c032, 1918287922, "287922"),
        (7, "a4fb960c0bc06e1eabb804e5b397cdc4b45596fa", 0x4e5b397, 82162583, "162583"),
        (8, "1b3c89f65e6c9e883012052823443f048b4332db", 0x2823443f, 673399871, "399871"),
        (9, "1637409809a679dc698207310c8c7fc07290d9e5", 0x2679dc69, 645520489, "520489"),
    ]

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test func rfc4226AppendixD() throws {
        let hotp = try HOTP(secret: Self.rfcSecret)
        for row in Self.appendixD {
            let message = (0..<8).map { UInt8(truncatingIfNeeded: row.count >> (56 - 8 * UInt64($0))) }
            #expect(Self.hex(OTPAlgorithm.sha1.authenticationCode(for: message, key: Self.rfcSecret.revealed())) == row.hmac,
                    "HMAC, count \(row.count)")
            #expect(row.truncatedHex == row.truncated)
            #expect(hotp.truncatedValue(counter: row.count) == row.truncated, "truncation, count \(row.count)")
            #expect(hotp.code(counter: row.count).revealed() == row.hotp, "HOTP, count \(row.count)")
        }
    }

    @Test func sevenAndEightDigitCodesKeepMoreOfTheTruncatedValue() throws {
        let seven = try HOTP(secret: Self.rfcSecret, digits: 7)
        let eight = try HOTP(secret: Self.rfcSecret, digits: 8)
        #expect(seven.code(counter: 0).revealed() == "4755224")   // 1284755224 mod 10^7
        #expect(eight.code(counter: 0).revealed() == "84755224")  // 1284755224 mod 10^8
        #expect(eight.code(counter: 7).revealed() == "82162583")
        #expect(seven.code(counter: 2).revealed() == "7359152")   // 137359152 mod 10^7
    }

    @Test(arguments: [Int.min, 0, 5, 9, 10])
    func digitsOutsideSixToEightAreRejected(digits: Int) {
        let error = #expect(throws: AuthError.self) { try HOTP(secret: Self.rfcSecret, digits: digits) }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message.contains("\(digits)") == true)
    }

    @Test func anEmptySecretIsRejected() {
        let error = #expect(throws: AuthError.self) { try HOTP(secret: Secret([])) }
        #expect(error?.code == .invalidConfiguration)
    }

    @Test func verifyReturnsTheMatchedCounterWithinTheLookAheadWindow() throws {
        let hotp = try HOTP(secret: Self.rfcSecret)
        #expect(try hotp.verify(Secret("755224"), counter: 0) == 0)
        #expect(try hotp.verify(Secret("969429"), counter: 1, lookAhead: 2) == 3)
        #expect(try hotp.verify(Secret("969 429"), counter: 3) == 3, "spaces are ignored")
        // Behind the expected counter: a used code fails.
        #expect(throws: AuthError(.invalidMFACode)) { try hotp.verify(Secret("755224"), counter: 1, lookAhead: 5) }
        // Beyond the window.
        #expect(throws: AuthError(.invalidMFACode)) { try hotp.verify(Secret("520489"), counter: 0, lookAhead: 8) }
        #expect(try hotp.verify(Secret("520489"), counter: 0, lookAhead: 9) == 9)
    }

    @Test func wrongMalformedOrEmptyCodesFail() throws {
        let hotp = try HOTP(secret: Self.rfcSecret)
        for code in ["755225", "75522", "7552244", "", "abcdef", "755224\u{0}", "０７５５２２４"] {
            #expect(throws: AuthError(.invalidMFACode), "\(code.debugDescription)") {
                try hotp.verify(Secret(code), counter: 0, lookAhead: 1)
            }
        }
    }

    @Test(arguments: [-1, 101, Int.max])
    func aLookAheadOutsideTheWindowIsAConfigurationError(lookAhead: Int) throws {
        let hotp = try HOTP(secret: Self.rfcSecret)
        let error = #expect(throws: AuthError.self) { try hotp.verify(Secret("755224"), counter: 0, lookAhead: lookAhead) }
        #expect(error?.code == .invalidConfiguration)
        #expect(try hotp.verify(Secret("755224"), counter: 0, lookAhead: 100) == 0)
    }

    @Test func theWindowStopsAtTheLargestCounterInsteadOfOverflowing() throws {
        let hotp = try HOTP(secret: Self.rfcSecret)
        let last = hotp.code(counter: .max)
        #expect(try hotp.verify(last, counter: .max - 1, lookAhead: 10) == .max)
    }

    @Test func theSecretNeverShowsInDescriptionsOrDumps() throws {
        let hotp = try HOTP(secret: Secret(Array("very-secret-key-bytes".utf8)), algorithm: .sha256, digits: 8)
        var dumped = ""
        dump(hotp, to: &dumped)
        for text in [hotp.description, String(reflecting: hotp), "\(hotp)", dumped] {
            #expect(!text.contains("very-secret"), "\(text)")
            #expect(!text.contains("118, 101, 114"), "\(text)")  // "ver" as bytes
        }
        #expect(hotp.description == "HOTP(SHA256, 8 digits, secret: <redacted>)")
    }

    @Test func codableRoundTripValidatesOnDecode() throws {
        let hotp = try HOTP(secret: Self.rfcSecret, algorithm: .sha512, digits: 7)
        let data = try JSONEncoder().encode(hotp)
        #expect(try JSONDecoder().decode(HOTP.self, from: data) == hotp)
        let tampered = try #require(String(data: data, encoding: .utf8)).replacingOccurrences(of: "\"digits\":7", with: "\"digits\":4")
        #expect(tampered.contains("\"digits\":4"))
        #expect(throws: AuthError(.invalidConfiguration)) { try JSONDecoder().decode(HOTP.self, from: Data(tampered.utf8)) }
    }

    @Test func algorithmNamesAreCaseInsensitive() {
        #expect(OTPAlgorithm(name: "sha1") == .sha1)
        #expect(OTPAlgorithm(name: "Sha256") == .sha256)
        #expect(OTPAlgorithm(name: "SHA512") == .sha512)
        #expect(OTPAlgorithm(name: "SHA-1") == nil)
        #expect(OTPAlgorithm(name: "MD5") == nil)
        #expect(OTPAlgorithm(name: "") == nil)
    }
}
