import AuthHub
@testable import AuthHubFactors
import Testing

@Suite struct QRCodeTests {
    typealias Level = QRCode.ErrorCorrection

    // MARK: - Capacity and version choice

    /// Byte-mode capacities from ISO/IEC 18004 Table 7 for a few versions, at L, M, Q, H.
    static let byteCapacities: [(version: Int, capacities: [Int])] = [
        (1, [17, 14, 11, 7]),
        (2, [32, 26, 20, 14]),
        (5, [106, 84, 60, 44]),
        (7, [154, 122, 86, 64]),
        (10, [271, 213, 151, 119]),
        (40, [2953, 2331, 1663, 1273]),
    ]

    @Test(arguments: byteCapacities)
    func byteCapacityMatchesTheStandard(version: Int, capacities: [Int]) {
        for (level, capacity) in zip(Level.allCases, capacities) {
            #expect(QRTables.byteCapacity(version: version, level: level) == capacity, "\(version)-\(level)")
        }
    }

    /// Data codewords from ISO/IEC 18004 Table 7 (versions 1 and 40) and total codewords (Table 1).
    @Test func codewordCountsMatchTheStandard() {
        #expect(Level.allCases.map { QRTables.dataCodewords(version: 1, level: $0) } == [19, 16, 13, 9])
        #expect(Level.allCases.map { QRTables.dataCodewords(version: 40, level: $0) } == [2956, 2334, 1666, 1276])
        #expect([1, 2, 7, 10, 40].map { QRTables.totalCodewords(version: $0) } == [26, 44, 196, 346, 3706])
        for version in 1...40 {
            let remainder = QRTables.dataModuleCount(version: version) % 8
            let expected = switch version {
            case 2...6: 7
            case 14...20, 28...34: 3
            case 21...27: 4
            default: 0
            }
            #expect(remainder == expected, "version \(version)")
        }
    }

    /// The codeword formula agrees with the modules the layout actually leaves free.
    @Test func capacityFormulaAgreesWithTheLayout() {
        for version in 1...40 {
            let builder = QRMatrixBuilder(version: version)
            let free = builder.isFunction.count(where: { !$0 })
            #expect(free == QRTables.dataModuleCount(version: version), "version \(version)")
        }
    }

    @Test func everyVersionAndLevelSplitsIntoConsistentBlocks() {
        for version in 1...40 {
            for level in Level.allCases {
                let row = QRTables.index(level)
                let blocks = QRTables.blockCount[row][version - 1]
                let ec = QRTables.ecCodewordsPerBlock[row][version - 1]
                let total = QRTables.totalCodewords(version: version)
                // At most two block lengths, differing by one, and more data than EC in each block.
                #expect(total / blocks - ec > 0, "\(version)-\(level)")
                let codewords = QRCode.interleave(data: [UInt8](repeating: 0x5A, count: QRTables.dataCodewords(version: version, level: level)),
                                                  version: version, level: level)
                #expect(codewords.count == total, "\(version)-\(level)")
            }
        }
    }

    @Test func smallestVersionIsChosenAtCapacityBoundaries() throws {
        #expect(try QRCode(encoding: String(repeating: "a", count: 14)).version == 1)
        #expect(try QRCode(encoding: String(repeating: "a", count: 15)).version == 2)
        #expect(try QRCode(encoding: String(repeating: "a", count: 17), errorCorrection: .low).version == 1)
        #expect(try QRCode(encoding: String(repeating: "a", count: 18), errorCorrection: .low).version == 2)
        #expect(try QRCode(encoding: String(repeating: "a", count: 7), errorCorrection: .high).version == 1)
        #expect(try QRCode(encoding: String(repeating: "a", count: 8), errorCorrection: .high).version == 2)
        // The count indicator grows from 8 to 16 bits at version 10: 9-M holds 180 bytes.
        #expect(try QRCode(encoding: String(repeating: "a", count: 180)).version == 9)
        #expect(try QRCode(encoding: String(repeating: "a", count: 181)).version == 10)
        let largest = try QRCode(encoding: String(repeating: "a", count: 2953), errorCorrection: .low)
        #expect(largest.version == 40 && largest.size == 177)
    }

    @Test func capacityCountsUTF8Bytes() throws {
        // "é" is two bytes: seven of them fill 1-M, eight need version 2.
        #expect(try QRCode(encoding: String(repeating: "é", count: 7)).version == 1)
        #expect(try QRCode(encoding: String(repeating: "é", count: 8)).version == 2)
        #expect(try QRCode(encoding: "€€€€").version == 1)       // 12 bytes
        #expect(try QRCode(encoding: "€€€€€").version == 2)      // 15 bytes
    }

    @Test func tooLongTextThrowsInvalidRequestWithoutEchoingIt() throws {
        let text = "otpauth://totp/x?secret=" + String(repeating: "S", count: 2953)
        let error = #expect(throws: AuthError.self) { try QRCode(encoding: text, errorCorrection: .low) }
        #expect(error?.code == .invalidRequest)
        #expect(error?.message.contains("SSSS") == false)
        #expect(throws: AuthError(.invalidRequest)) { try QRCode(encoding: String(repeating: "a", count: 2954), errorCorrection: .low) }
        #expect(throws: AuthError(.invalidRequest)) { try QRCode(encoding: String(repeating: "a", count: 1274), errorCorrection: .high) }
        #expect(try QRCode(encoding: String(repeating: "a", count: 1273), errorCorrection: .high).version == 40)
    }

    @Test func forcedVersionAndMaskAreValidated() throws {
        for version in [0, -1, 41, Int.max, Int.min] {
            #expect(throws: AuthError(.invalidRequest)) { try QRCode(encoding: "a", errorCorrection: .low, version: version, mask: nil) }
        }
        for mask in [-1, 8, Int.max, Int.min] {
            #expect(throws: AuthError(.invalidRequest)) { try QRCode(encoding: "a", errorCorrection: .low, version: nil, mask: mask) }
        }
        #expect(throws: AuthError(.invalidRequest)) {
            try QRCode(encoding: String(repeating: "a", count: 15), errorCorrection: .medium, version: 1, mask: nil)
        }
        let forced = try QRCode(encoding: "a", errorCorrection: .quartile, version: 12, mask: 5)
        #expect(forced.version == 12 && forced.mask == 5 && forced.errorCorrection == .quartile && forced.size == 65)
        for mask in 0..<8 {
            #expect(try QRCode(encoding: "a", errorCorrection: .low, version: nil, mask: mask).mask == mask)
        }
    }

    @Test func emptyTextIsEncoded() throws {
        let code = try QRCode(encoding: "")
        #expect(code.version == 1 && code.size == 21)
        #expect(try QRCode(encoding: "", errorCorrection: .high, version: 40, mask: 0).size == 177)
    }

    // MARK: - Codewords and Reed–Solomon

    /// The generator polynomial of degree 7 is α⁰x⁷ + α⁸⁷x⁶ + α²²⁹x⁵ + α¹⁴⁶x⁴ + α¹⁴⁹x³ + α²³⁸x² + α¹⁰²x + α²¹.
    @Test func generatorPolynomialOfDegreeSeven() {
        let generator = ReedSolomon(degree: 7).generator
        #expect(generator.map { GaloisField.log[Int($0)] } == [87, 229, 146, 149, 238, 102, 21])
    }

    @Test func galoisFieldIsGeneratedBy0x11D() {
        #expect(GaloisField.power(8) == 0x1D)
        #expect(GaloisField.power(255) == 1)
        #expect(Set(GaloisField.exp[0..<255]).count == 255)
        #expect(GaloisField.multiply(0x80, 2) == 0x1D)
        for a in 1...255 {
            #expect(GaloisField.exp[GaloisField.log[a]] == UInt8(a))
        }
    }

    /// ISO/IEC 18004 Annex I: "01234567" at 1-M (numeric mode) — its data codewords and their
    /// ten error-correction codewords.
    @Test func reedSolomonMatchesTheStandardsWorkedExample() {
        let data: [UInt8] = [0x10, 0x20, 0x0C, 0x56, 0x61, 0x80, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11]
        #expect(ReedSolomon(degree: 10).remainder(of: data) == [0xA5, 0x24, 0xD4, 0xC1, 0xED, 0x36, 0xC7, 0x87, 0x2C, 0x55])
    }

    /// "HELLO WORLD" at 1-M (alphanumeric mode), a widely published example.
    @Test func reedSolomonMatchesHelloWorld() {
        let data: [UInt8] = [32, 91, 11, 120, 209, 114, 220, 77, 67, 64, 236, 17, 236, 17, 236, 17]
        #expect(ReedSolomon(degree: 10).remainder(of: data) == [196, 35, 39, 119, 235, 215, 231, 226, 93, 23])
    }

    @Test func byteModeBitStreamWithTerminatorAndPadding() {
        // "hi" at 1-M: 0100 | 00000010 | 01101000 01101001 | 0000, then 0xEC 0x11 alternately.
        let codewords = QRCode.codewords(for: Array("hi".utf8), version: 1, level: .medium)
        let expectedData: [UInt8] = [0x40, 0x26, 0x86, 0x90, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11]
        #expect(Array(codewords.prefix(16)) == expectedData)
        #expect(Array(codewords.suffix(10)) == ReedSolomon(degree: 10).remainder(of: expectedData))
        // Full capacity: the terminator is cut short and no pad codeword is needed (1-L holds 17 bytes).
        let full = QRCode.codewords(for: [UInt8](repeating: 0xFF, count: 17), version: 1, level: .low)
        #expect(full.count == 26)
        #expect(Array(full.prefix(2)) == [0x41, 0x1F] && full[18] == 0xF0)
        // 16-bit count from version 10.
        let long = QRCode.codewords(for: [0xAB], version: 10, level: .high)
        #expect(Array(long.prefix(1)) == [0x40])
    }

    @Test func blocksAreInterleaved() {
        // 5-Q: 2 blocks of 15 data codewords, then 2 of 16; 18 EC codewords each.
        let data = (0..<62).map { UInt8($0) }
        let codewords = QRCode.interleave(data: data, version: 5, level: .quartile)
        #expect(codewords.count == 134)
        #expect(Array(codewords.prefix(8)) == [0, 15, 30, 46, 1, 16, 31, 47])
        // The last data column exists only in the two longer blocks.
        #expect(Array(codewords[56..<62]) == [14, 29, 44, 60, 45, 61])
        let ec = ReedSolomon(degree: 18)
        let firstBlockEC = ec.remainder(of: Array(data[0..<15]))
        let lastBlockEC = ec.remainder(of: Array(data[46..<62]))
        #expect(codewords[62] == firstBlockEC[0] && codewords[65] == lastBlockEC[0])
        #expect(codewords[133] == lastBlockEC[17])
    }

    // MARK: - Format and version information

    /// ISO/IEC 18004 Annex C, Table C.1: every format information string.
    static let formatStrings: [Level: [String]] = [
        .low: ["111011111000100", "111001011110011", "111110110101010", "111100010011101",
               "110011000101111", "110001100011000", "110110001000001", "110100101110110"],
        .medium: ["101010000010010", "101000100100101", "101111001111100", "101101101001011",
                  "100010111111001", "100000011001110", "100111110010111", "100101010100000"],
        .quartile: ["011010101011111", "011000001101000", "011111100110001", "011101000000110",
                    "010010010110100", "010000110000011", "010111011011010", "010101111101101"],
        .high: ["001011010001001", "001001110111110", "001110011100111", "001100111010000",
                "000011101100010", "000001001010101", "000110100001100", "000100000111011"],
    ]

    @Test func formatInformationMatchesTheStandardsTable() {
        for level in Level.allCases {
            for mask in 0..<8 {
                let expected = Int(Self.formatStrings[level]?[mask] ?? "", radix: 2)
                #expect(QRMatrixBuilder.formatInformation(level: level, mask: mask) == expected, "\(level) mask \(mask)")
            }
        }
    }

    /// ISO/IEC 18004 Annex D, Table D.1 (first, second and last entries).
    @Test func versionInformationMatchesTheStandardsTable() {
        #expect(QRMatrixBuilder.versionInformation(version: 7) == 0b000111_110010010100)
        #expect(QRMatrixBuilder.versionInformation(version: 8) == 0b001000_010110111100)
        #expect(QRMatrixBuilder.versionInformation(version: 40) == 0b101000_110001101001)
    }

    /// Reads both format information copies back from the symbol, bit 14 first.
    func formatCopies(_ code: QRCode) -> (Int, Int) {
        let n = code.size
        var first = 0
        var second = 0
        // Copy 1: bits 14…9 at row 8 columns 0…5, 8 at column 7, 7 at (8, 8), 6 at row 7, 5…0 at rows 5…0.
        let copy1: [(Int, Int)] = (0...5).map { ($0, 8) } + [(7, 8), (8, 8), (8, 7)] + (0...5).reversed().map { (8, $0) }
        // Copy 2: bits 14…8 at column 8 rows n-1…n-7, bits 7…0 at row 8 columns n-8…n-1.
        let copy2: [(Int, Int)] = (0..<7).map { (8, n - 1 - $0) } + (0..<8).map { (n - 8 + $0, 8) }
        for (x, y) in copy1 { first = first << 1 | (code[x, y] ? 1 : 0) }
        for (x, y) in copy2 { second = second << 1 | (code[x, y] ? 1 : 0) }
        return (first, second)
    }

    @Test func bothFormatCopiesAreWrittenForEveryLevelAndMask() throws {
        for level in Level.allCases {
            for mask in 0..<8 {
                let code = try QRCode(encoding: "format", errorCorrection: level, version: 3, mask: mask)
                let expected = Int(Self.formatStrings[level]?[mask] ?? "", radix: 2)
                let (first, second) = formatCopies(code)
                #expect(first == expected && second == expected, "\(level) mask \(mask)")
            }
        }
    }

    @Test func bothVersionCopiesAreWrittenFromVersion7() throws {
        for version in [7, 8, 21, 40] {
            let code = try QRCode(encoding: "v", errorCorrection: .low, version: version, mask: 1)
            let n = code.size
            var topRight = 0
            var bottomLeft = 0
            for i in (0..<18).reversed() {
                topRight = topRight << 1 | (code[n - 11 + i % 3, i / 3] ? 1 : 0)
                bottomLeft = bottomLeft << 1 | (code[i / 3, n - 11 + i % 3] ? 1 : 0)
            }
            let expected = QRMatrixBuilder.versionInformation(version: version)
            #expect(topRight == expected && bottomLeft == expected, "version \(version)")
            #expect(expected >> 12 == version)
        }
    }

    // MARK: - Structure

    func expectFinder(_ code: QRCode, x left: Int, y top: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        for dy in -1...7 {
            for dx in -1...7 {
                let x = left + dx
                let y = top + dy
                guard (0..<code.size).contains(x), (0..<code.size).contains(y) else { continue }
                let ring = max(abs(dx - 3), abs(dy - 3))
                #expect(code[x, y] == (ring <= 1 || ring == 3), "(\(x), \(y))", sourceLocation: sourceLocation)
            }
        }
    }

    @Test(arguments: [1, 2, 6, 7, 14, 27, 40])
    func functionPatternsAreInPlace(version: Int) throws {
        let code = try QRCode(encoding: "https://a.io/", errorCorrection: .medium, version: version, mask: nil)
        let n = code.size
        #expect(n == 17 + 4 * version)
        expectFinder(code, x: 0, y: 0)
        expectFinder(code, x: n - 7, y: 0)
        expectFinder(code, x: 0, y: n - 7)
        for i in 8..<(n - 8) {
            #expect(code[i, 6] == (i % 2 == 0), "timing row at \(i)")
            #expect(code[6, i] == (i % 2 == 0), "timing column at \(i)")
        }
        #expect(code[8, n - 8], "dark module")
        // Alignment patterns: dark centre, light ring, dark border.
        let coordinates = QRTables.alignmentCoordinates[version - 1]
        for cy in coordinates {
            for cx in coordinates where !(cx == 6 && cy == 6) && !(cx == 6 && cy == n - 7) && !(cx == n - 7 && cy == 6) {
                for dy in -2...2 {
                    for dx in -2...2 {
                        #expect(code[cx + dx, cy + dy] == (max(abs(dx), abs(dy)) != 1), "alignment at (\(cx), \(cy))")
                    }
                }
            }
        }
        #expect(coordinates.last.map { $0 == n - 7 } ?? true)
    }

    @Test func outOfRangeSubscriptsAreLight() throws {
        let code = try QRCode(encoding: "x")
        #expect(!code[-1, 0] && !code[0, -1] && !code[21, 0] && !code[0, 21])
        #expect(!code[Int.min, Int.max])
        #expect(code[0, 0])
    }

    @Test func descriptionDoesNotDumpTheModules() throws {
        let code = try QRCode(encoding: "otpauth://totp/a?secret=JBSWY3DPEHPK3PXP")
        #expect(code.description == "QRCode(version: 3, errorCorrection: medium, mask: \(code.mask))")
    }

    // MARK: - Masks and penalties

    @Test func maskPatternsMatchTheirFormulas() {
        // Spot checks at (row, column) against Table 10's conditions, evaluated by hand.
        #expect(QRMatrixBuilder.maskInverts(0, row: 1, column: 1) && !QRMatrixBuilder.maskInverts(0, row: 1, column: 2))
        #expect(QRMatrixBuilder.maskInverts(1, row: 2, column: 7) && !QRMatrixBuilder.maskInverts(1, row: 3, column: 7))
        #expect(QRMatrixBuilder.maskInverts(2, row: 5, column: 3) && !QRMatrixBuilder.maskInverts(2, row: 5, column: 4))
        #expect(QRMatrixBuilder.maskInverts(3, row: 1, column: 2) && !QRMatrixBuilder.maskInverts(3, row: 1, column: 1))
        #expect(QRMatrixBuilder.maskInverts(4, row: 2, column: 3) && !QRMatrixBuilder.maskInverts(4, row: 2, column: 0))
        #expect(QRMatrixBuilder.maskInverts(5, row: 6, column: 1) && !QRMatrixBuilder.maskInverts(5, row: 1, column: 1))
        #expect(QRMatrixBuilder.maskInverts(6, row: 1, column: 1) && !QRMatrixBuilder.maskInverts(6, row: 1, column: 5))
        #expect(QRMatrixBuilder.maskInverts(7, row: 0, column: 0) && !QRMatrixBuilder.maskInverts(7, row: 0, column: 1))
    }

    @Test func runPenalty() {
        func line(_ text: String) -> [Bool] { text.map { $0 == "1" } }
        #expect(QRMaskPenalty.runPenalty(line("0101010101")) == 0)
        #expect(QRMaskPenalty.runPenalty(line("1111001010")) == 0)
        #expect(QRMaskPenalty.runPenalty(line("1111101010")) == 3)
        #expect(QRMaskPenalty.runPenalty(line("0111111010")) == 4)
        #expect(QRMaskPenalty.runPenalty(line("0000000000")) == 8)
        #expect(QRMaskPenalty.runPenalty(line("1111100000")) == 6)
    }

    @Test func finderLikePenalty() {
        func line(_ text: String) -> [Bool] { text.map { $0 == "1" } }
        #expect(QRMaskPenalty.finderLikePenalty(line("00001011101")) == 40)          // light before
        #expect(QRMaskPenalty.finderLikePenalty(line("10111010000")) == 40)          // light after
        #expect(QRMaskPenalty.finderLikePenalty(line("000010111010000")) == 40)      // both: counted once
        #expect(QRMaskPenalty.finderLikePenalty(line("1011101")) == 40)              // the quiet zone is light
        #expect(QRMaskPenalty.finderLikePenalty(line("110111011")) == 0)             // dark on both sides
        #expect(QRMaskPenalty.finderLikePenalty(line("1000101110100011")) == 0)      // three light, not four
        #expect(QRMaskPenalty.finderLikePenalty(line("10001011101000011")) == 40)
        #expect(QRMaskPenalty.finderLikePenalty(line("1011001")) == 0)
        #expect(QRMaskPenalty.finderLikePenalty(line("0000101110100001011101")) == 80)
    }

    @Test func balanceAndBlockPenalties() {
        // A 5×5 all-light square: N1 5 rows + 5 columns of 5 → 30; N2 16 blocks → 48; N4 100 % off → 100.
        #expect(QRMaskPenalty.score([Bool](repeating: false, count: 25), size: 5) == 30 + 48 + 100)
        // A 4×4 checkerboard: no runs, no blocks, no finder-like runs, exactly 50 % dark.
        let checkerboard = (0..<16).map { ($0 / 4 + $0 % 4) % 2 == 0 }
        #expect(QRMaskPenalty.score(checkerboard, size: 4) == 0)
        // 3×3 with 6 dark modules: 66.7 % → three full 5 % steps → 30; plus the 2×2 blocks.
        let twoThirds = [true, true, true, true, true, true, false, false, false]
        #expect(QRMaskPenalty.score(twoThirds, size: 3) == 30 + 2 * 3)
    }

    @Test func automaticMaskIsTheFirstLowestPenalty() throws {
        for (text, level) in [("hello", Level.medium), ("otpauth://totp/ACME:alice?secret=JBSWY3DPEHPK3PXP&issuer=ACME", .quartile),
                              ("", .low), (String(repeating: "z", count: 300), .high)] {
            let automatic = try QRCode(encoding: text, errorCorrection: level)
            var builder = QRMatrixBuilder(version: automatic.version)
            builder.place(codewords: QRCode.codewords(for: Array(text.utf8), version: automatic.version, level: level))
            let scores = (0..<8).map { QRMaskPenalty.score(builder.masked($0).modules, size: builder.size) }
            let lowest = scores.min() ?? 0
            #expect(automatic.mask == scores.firstIndex(of: lowest), "\(scores)")
            // Deterministic, and identical to forcing that mask.
            #expect(try QRCode(encoding: text, errorCorrection: level) == automatic)
            #expect(try QRCode(encoding: text, errorCorrection: level, version: nil, mask: automatic.mask) == automatic)
        }
    }

    @Test func differentMasksGiveDifferentSymbols() throws {
        let symbols = try (0..<8).map { try QRCode(encoding: "mask", errorCorrection: .medium, version: 2, mask: $0) }
        #expect(Set(symbols).count == 8)
    }

    // MARK: - Terminal rendering

    @Test func terminalRenderingDimensions() throws {
        let code = try QRCode(encoding: "otpauth://totp/ACME:alice?secret=JBSWY3DPEHPK3PXP&issuer=ACME")
        for quiet in [0, 1, 2, 4] {
            let extent = code.size + 2 * quiet
            for inverted in [false, true] {
                let text = code.terminalRendering(quietZone: quiet, inverted: inverted)
                #expect(text.hasSuffix("\n"))
                let lines = text.dropLast().split(separator: "\n", omittingEmptySubsequences: false)
                #expect(lines.count == (extent + 1) / 2, "quiet \(quiet)")
                #expect(lines.allSatisfy { $0.count == extent }, "quiet \(quiet)")
                #expect(text.allSatisfy { "█▀▄ \n".contains($0) })
            }
        }
        #expect(code.terminalRendering(quietZone: -3) == code.terminalRendering(quietZone: 0))
        #expect(code.terminalRendering(quietZone: .max) == code.terminalRendering(quietZone: 100))
        #expect(code.terminalRendering(quietZone: .min) == code.terminalRendering(quietZone: 0))
    }

    @Test func terminalRenderingDrawsModulesAsHalfBlocks() throws {
        let code = try QRCode(encoding: "x")  // version 1: 21 rows, odd
        let plain = code.terminalRendering(quietZone: 0).split(separator: "\n").map(String.init)
        // Finder rows 0 and 1: a full top edge; the second row is dark only at columns 0 and 6.
        #expect(plain[0].hasPrefix("█▀▀▀▀▀█ "))
        // Rows 2 and 3 of the finder: dark border, light, dark centre (rows 2–3 are both dark there).
        #expect(plain[1].hasPrefix("█ ███ █ "))
        // The last line holds only row 20; its lower half is blank.
        #expect(plain[10].allSatisfy { $0 == "▀" || $0 == " " })
        #expect(plain[10].hasPrefix("▀▀▀▀▀▀▀ "))

        let inverted = code.terminalRendering(quietZone: 1, inverted: true).split(separator: "\n").map(String.init)
        // Row 0 is quiet zone (inked when inverted), row 1 the finder's top edge (not inked).
        // Column 8 is the finder's light separator, so inked on both rows again.
        #expect(inverted[0].hasPrefix("█▀▀▀▀▀▀▀█"))
        #expect(inverted[0].hasSuffix("█▀▀▀▀▀▀▀█"))
        // 23 rows: the last line is quiet zone on top, blank below.
        #expect(inverted[11] == String(repeating: "▀", count: 23))

        let margin = code.terminalRendering(quietZone: 2).split(separator: "\n").map(String.init)
        #expect(margin[0] == String(repeating: " ", count: 25))
        #expect(margin[1].hasPrefix("  █▀▀▀▀▀█"))
    }

    @Test func renderingMatchesTheSubscript() throws {
        let code = try QRCode(encoding: "Grüße, 世界 🌍", errorCorrection: .high)
        let lines = code.terminalRendering(quietZone: 0).split(separator: "\n").map { Array($0) }
        for y in 0..<code.size {
            for x in 0..<code.size {
                let character = lines[y / 2][x]
                let dark = y % 2 == 0 ? (character == "█" || character == "▀") : (character == "█" || character == "▄")
                #expect(dark == code[x, y], "(\(x), \(y))")
            }
        }
    }
}
