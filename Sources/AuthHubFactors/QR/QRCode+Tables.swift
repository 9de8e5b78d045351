/// The per-version constants of ISO/IEC 18004 that cannot be derived from a formula: error-correction
/// block structure (Table 9) and alignment pattern centres (Annex E, Table E.1).
///
/// Everything else about a version (symbol size, codeword capacity, remainder bits) is computed from
/// the function-pattern layout, and the tests check the two agree.
enum QRTables {
    /// Error-correction codewords per block, indexed `[level][version - 1]` in the order
    /// `low, medium, quartile, high`. Within a version every block has the same number.
    static let ecCodewordsPerBlock: [[Int]] = [
        // L
        [7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28,
         28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
        // M
        [10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26,
         26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28],
        // Q
        [13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30,
         28, 30, 30, 30, 30, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
        // H
        [17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28,
         30, 24, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
    ]

    /// Number of error-correction blocks (both groups together), indexed `[level][version - 1]`.
    ///
    /// The split into the two groups of Table 9 follows from the codeword count: the blocks share
    /// the codewords as evenly as possible, the shorter ones first.
    static let blockCount: [[Int]] = [
        // L
        [1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8,
         8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25],
        // M
        [1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16,
         17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49],
        // Q
        [1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20,
         23, 23, 25, 27, 29, 34, 34, 35, 38, 40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68],
        // H
        [1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25,
         25, 34, 30, 32, 35, 37, 40, 42, 45, 48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81],
    ]

    /// Row/column coordinates of alignment pattern centres, indexed `[version - 1]`; empty for
    /// version 1. Patterns sit at every pair of these coordinates except the three that would
    /// overlap a finder pattern.
    static let alignmentCoordinates: [[Int]] = [
        [],
        [6, 18], [6, 22], [6, 26], [6, 30], [6, 34],
        [6, 22, 38], [6, 24, 42], [6, 26, 46], [6, 28, 50], [6, 30, 54], [6, 32, 58], [6, 34, 62],
        [6, 26, 46, 66], [6, 26, 48, 70], [6, 26, 50, 74], [6, 30, 54, 78], [6, 30, 56, 82], [6, 30, 58, 86],
        [6, 34, 62, 90],
        [6, 28, 50, 72, 94], [6, 26, 50, 74, 98], [6, 30, 54, 78, 102], [6, 28, 54, 80, 106],
        [6, 32, 58, 84, 110], [6, 30, 58, 86, 114], [6, 34, 62, 90, 118],
        [6, 26, 50, 74, 98, 122], [6, 30, 54, 78, 102, 126], [6, 26, 52, 78, 104, 130],
        [6, 30, 56, 82, 108, 134], [6, 34, 60, 86, 112, 138], [6, 30, 58, 86, 114, 142],
        [6, 34, 62, 90, 118, 146],
        [6, 30, 54, 78, 102, 126, 150], [6, 24, 50, 76, 102, 128, 154], [6, 28, 54, 80, 106, 132, 158],
        [6, 32, 58, 84, 110, 136, 162], [6, 26, 54, 82, 110, 138, 166], [6, 30, 58, 86, 114, 142, 170],
    ]

    /// The table index of a level (the order of ``QRCode/ErrorCorrection/allCases``).
    static func index(_ level: QRCode.ErrorCorrection) -> Int {
        switch level {
        case .low: 0
        case .medium: 1
        case .quartile: 2
        case .high: 3
        }
    }

    /// The two format-information bits of a level (ISO/IEC 18004 Table 12): L 01, M 00, Q 11, H 10.
    static func formatBits(_ level: QRCode.ErrorCorrection) -> Int {
        switch level {
        case .low: 0b01
        case .medium: 0b00
        case .quartile: 0b11
        case .high: 0b10
        }
    }

    /// Modules of a version's symbol left for codewords once the function patterns, format and
    /// version information are placed (codewords × 8 plus 0, 3, 4 or 7 remainder bits).
    static func dataModuleCount(version: Int) -> Int {
        let size = 17 + 4 * version
        var count = size * size
        count -= 3 * 64           // finder patterns with their separators
        count -= 2 * 15 + 1       // two copies of the format information, and the dark module
        count -= 2 * (size - 16)  // timing patterns between the separators
        let coordinates = alignmentCoordinates[version - 1].count
        if coordinates > 0 {
            let patterns = coordinates * coordinates - 3
            // Patterns centred on row or column 6 share five modules each with a timing pattern.
            count -= 25 * patterns - 2 * 5 * (coordinates - 2)
        }
        if version >= 7 {
            count -= 2 * 18       // two copies of the version information
        }
        return count
    }

    /// All codewords (data and error correction) a version holds.
    static func totalCodewords(version: Int) -> Int {
        dataModuleCount(version: version) / 8
    }

    /// Data codewords a version holds at a level.
    static func dataCodewords(version: Int, level: QRCode.ErrorCorrection) -> Int {
        let row = index(level)
        return totalCodewords(version: version)
            - blockCount[row][version - 1] * ecCodewordsPerBlock[row][version - 1]
    }

    /// Bits of the byte-mode character count indicator: 8 for versions 1–9, 16 above (Table 3).
    static func characterCountBits(version: Int) -> Int {
        version <= 9 ? 8 : 16
    }

    /// The most bytes byte mode holds at a version and level.
    static func byteCapacity(version: Int, level: QRCode.ErrorCorrection) -> Int {
        let bits = dataCodewords(version: version, level: level) * 8 - 4 - characterCountBits(version: version)
        return max(0, bits / 8)
    }
}
