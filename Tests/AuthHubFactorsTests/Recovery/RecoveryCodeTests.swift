import AuthHub
import AuthHubFactors
import Testing

@Suite struct RecoveryCodeTests {
    static func isDisplayForm(_ text: String) -> Bool {
        text.wholeMatch(of: /[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){3}/) != nil
    }

    @Test func theAlphabetHas32UnambiguousSymbolsAndCodesCarry80Bits() {
        let symbols = Array(RecoveryCode.alphabet)
        #expect(symbols.count == 32)
        #expect(Set(symbols).count == 32)
        for confusable in "ILOU" { #expect(!symbols.contains(confusable)) }
        #expect(RecoveryCode.length == 16)
        #expect(RecoveryCode.entropyBits == RecoveryCode.length * 5)  // log2(32) = 5 bits per symbol
        #expect(RecoveryCode.entropyBits == 80)
    }

    @Test func generatesTenGroupedCodesFromTenBytesEach() throws {
        let random = OTPTestRandom()
        let codes = try RecoveryCode.generate(using: random)
        #expect(codes.count == 10)
        #expect(random.requests == Array(repeating: 10, count: 10))
        for code in codes {
            #expect(Self.isDisplayForm(code.revealed()), "\(code.revealed())")
        }
        #expect(Set(codes.map { $0.revealed() }).count == 10)
    }

    @Test func theBitsMapOneToOneOntoSymbols() throws {
        // Twenty bytes that hold the 5-bit values 0, 1, ..., 31 in order: every symbol appears once,
        // so each 5-bit group picks a symbol with no bias.
        let packed: [UInt8] = [0x00, 0x44, 0x32, 0x14, 0xC7, 0x42, 0x54, 0xB6, 0x35, 0xCF,
                               0x84, 0x65, 0x3A, 0x56, 0xD7, 0xC6, 0x75, 0xBE, 0x77, 0xDF]
        let codes = try RecoveryCode.generate(count: 2, using: OTPTestRandom(packed))
        #expect(codes.map { $0.revealed() } == ["0123-4567-89AB-CDEF", "GHJK-MNPQ-RSTV-WXYZ"])

        let edges = try RecoveryCode.generate(count: 3, using: OTPTestRandom(Array(repeating: 0, count: 10)
            + Array(repeating: 0xFF, count: 10) + Array(0..<10)))
        #expect(edges.map { $0.revealed() } == ["0000-0000-0000-0000", "ZZZZ-ZZZZ-ZZZZ-ZZZZ", "000G-40R4-0M30-E209"])
    }

    @Test func systemRandomCodesUseTheWholeAlphabet() throws {
        let codes = try RecoveryCode.generate(count: 100)
        let used = Set(codes.flatMap { $0.revealed().filter { $0 != "-" } })
        #expect(used == Set(RecoveryCode.alphabet))  // 1,600 draws miss a symbol with probability < 1e-20
    }

    @Test(arguments: [0, -1, 1001])
    func countsOutOfRangeAreRejected(count: Int) {
        let error = #expect(throws: AuthError.self) { try RecoveryCode.generate(count: count, using: OTPTestRandom()) }
        #expect(error?.code == .invalidConfiguration)
    }

    @Test func aShortRandomSourceIsAnError() {
        #expect(throws: AuthError(.invalidConfiguration)) { try RecoveryCode.generate(count: 1, using: OTPTestRandom(shortBy: 1)) }
    }

    @Test func normalisationIgnoresCaseSeparatorsAndConfusableCharacters() {
        let cases: [(String, String?)] = [
            ("ABCD-EFGH-JKMN-PQRS", "ABCDEFGHJKMNPQRS"),
            ("abcd efgh jkmn pqrs", "ABCDEFGHJKMNPQRS"),
            (" abcd--efgh jkmn-pqrs ", "ABCDEFGHJKMNPQRS"),
            ("OOOO-IIII-LLLL-oil0", "0000111111110110"),
            ("ABCD-EFGH-JKMN-PQRU", nil),   // U is not in the alphabet
            ("ABCD-EFGH-JKMN-PQR", nil),    // 15 symbols
            ("ABCD-EFGH-JKMN-PQRST", nil),  // 17 symbols
            ("ABCD_EFGH_JKMN_PQRS", nil),
            ("ÀBCD-EFGH-JKMN-PQRS", nil),
            ("", nil),
        ]
        for (typed, expected) in cases {
            #expect(RecoveryCode.normalized(Secret(typed))?.revealed() == expected, "\(typed)")
        }
    }
}
