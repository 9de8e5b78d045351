/// Lays out a QR code symbol: function patterns, codeword placement, data masks, and format and
/// version information (ISO/IEC 18004, sections 6.3, 7.7 to 7.10).
///
/// Modules are stored row by row (`y * size + x`), `true` for dark. The format and version
/// information areas and the dark module are reserved as function modules but stay light until
/// ``finish(level:mask:)`` writes them, so that the mask penalty is evaluated, as in the standard's
/// order of steps (ISO/IEC 18004, section 7.1), on the symbol before that information exists.
struct QRMatrixBuilder: Sendable {
    /// The version, 1...40.
    let version: Int
    /// Modules per side.
    let size: Int
    /// The module colours, row by row.
    private(set) var modules: [Bool]
    /// Which modules belong to function patterns or reserved areas (and are never masked).
    private(set) var isFunction: [Bool]

    /// Creates a symbol of `version` with its function patterns drawn and its information areas reserved.
    init(version: Int) {
        self.version = version
        size = 17 + 4 * version
        modules = [Bool](repeating: false, count: size * size)
        isFunction = [Bool](repeating: false, count: size * size)
        drawTimingPatterns()
        drawFinderPattern(centerX: 3, centerY: 3)
        drawFinderPattern(centerX: size - 4, centerY: 3)
        drawFinderPattern(centerX: 3, centerY: size - 4)
        drawAlignmentPatterns()
        reserveInformationAreas()
    }

    /// The colour of the module at column `x`, row `y`.
    subscript(x: Int, y: Int) -> Bool {
        modules[y * size + x]
    }

    private mutating func set(_ x: Int, _ y: Int, dark: Bool) {
        modules[y * size + x] = dark
        isFunction[y * size + x] = true
    }

    // MARK: - Function patterns

    private mutating func drawTimingPatterns() {
        for i in 0..<size {
            set(6, i, dark: i % 2 == 0)
            set(i, 6, dark: i % 2 == 0)
        }
    }

    /// A 7×7 finder pattern and its one-module light separator (clipped at the symbol's edge).
    private mutating func drawFinderPattern(centerX: Int, centerY: Int) {
        for dy in -4...4 {
            for dx in -4...4 {
                let x = centerX + dx
                let y = centerY + dy
                guard (0..<size).contains(x), (0..<size).contains(y) else { continue }
                let ring = max(abs(dx), abs(dy))  // 0…1 centre, 2 light, 3 dark, 4 separator
                set(x, y, dark: ring != 2 && ring != 4)
            }
        }
    }

    private mutating func drawAlignmentPatterns() {
        let coordinates = QRTables.alignmentCoordinates[version - 1]
        guard let first = coordinates.first, let last = coordinates.last else { return }
        for centerY in coordinates {
            for centerX in coordinates {
                let overlapsFinder = (centerX == first && centerY == first) || (centerX == first && centerY == last)
                    || (centerX == last && centerY == first)
                if overlapsFinder { continue }
                for dy in -2...2 {
                    for dx in -2...2 {
                        set(centerX + dx, centerY + dy, dark: max(abs(dx), abs(dy)) != 1)
                    }
                }
            }
        }
    }

    /// Marks the format information (both copies), the dark module and, from version 7, the version
    /// information as function modules, light for now.
    private mutating func reserveInformationAreas() {
        for i in 0...8 where i != 6 {
            set(8, i, dark: false)
            set(i, 8, dark: false)
        }
        for i in 0..<8 {
            set(size - 1 - i, 8, dark: false)
            set(8, size - 1 - i, dark: false)  // includes the dark module at (8, size - 8)
        }
        if version >= 7 {
            for i in 0..<18 {
                set(size - 11 + i % 3, i / 3, dark: false)
                set(i / 3, size - 11 + i % 3, dark: false)
            }
        }
    }

    // MARK: - Codewords

    /// Places the final codeword sequence, most significant bit first, in two-module-wide columns
    /// zigzagging up and down from the bottom-right corner, skipping the vertical timing pattern
    /// and every function module (ISO/IEC 18004, section 7.7.3). Modules left over are remainder bits (light).
    mutating func place(codewords: [UInt8]) {
        let totalBits = codewords.count * 8
        var bitIndex = 0
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }  // the vertical timing pattern takes a whole column
            let upwards = ((right + 1) & 2) == 0
            for step in 0..<size {
                let y = upwards ? size - 1 - step : step
                for x in [right, right - 1] where !isFunction[y * size + x] {
                    if bitIndex < totalBits {
                        let byte = codewords[bitIndex / 8]
                        modules[y * size + x] = (byte >> UInt8(7 - bitIndex % 8)) & 1 == 1
                        bitIndex += 1
                    }
                }
            }
            right -= 2
        }
    }

    // MARK: - Masks

    /// Whether data mask `mask` (0…7, ISO/IEC 18004, section 7.8.2 Table 10) inverts the module in row `i`, column `j`.
    static func maskInverts(_ mask: Int, row i: Int, column j: Int) -> Bool {
        switch mask {
        case 0: (i + j) % 2 == 0
        case 1: i % 2 == 0
        case 2: j % 3 == 0
        case 3: (i + j) % 3 == 0
        case 4: (i / 2 + j / 3) % 2 == 0
        case 5: (i * j) % 2 + (i * j) % 3 == 0
        case 6: ((i * j) % 2 + (i * j) % 3) % 2 == 0
        case 7: ((i + j) % 2 + (i * j) % 3) % 2 == 0
        default: false
        }
    }

    /// A copy of the symbol with mask `mask` applied to every non-function module.
    func masked(_ mask: Int) -> QRMatrixBuilder {
        var copy = self
        for y in 0..<size {
            for x in 0..<size where !isFunction[y * size + x] && Self.maskInverts(mask, row: y, column: x) {
                copy.modules[y * size + x].toggle()
            }
        }
        return copy
    }

    // MARK: - Format and version information

    /// The 15-bit format information for a level and mask: 5 data bits, a BCH(15,5) remainder
    /// with generator `0x537`, XOR `0x5412` (ISO/IEC 18004, section 7.9.1).
    static func formatInformation(level: QRCode.ErrorCorrection, mask: Int) -> Int {
        let data = QRTables.formatBits(level) << 3 | (mask & 7)
        var remainder = data << 10
        for shift in stride(from: 14, through: 10, by: -1) where remainder & (1 << shift) != 0 {
            remainder ^= 0x537 << (shift - 10)
        }
        return (data << 10 | remainder) ^ 0x5412
    }

    /// The 18-bit version information: 6 version bits and a BCH(18,6) remainder with generator
    /// `0x1F25` (ISO/IEC 18004, section 7.10).
    static func versionInformation(version: Int) -> Int {
        var remainder = version << 12
        for shift in stride(from: 17, through: 12, by: -1) where remainder & (1 << shift) != 0 {
            remainder ^= 0x1F25 << (shift - 12)
        }
        return version << 12 | remainder
    }

    /// Writes the format information for `level` and `mask`, the dark module and, from version 7,
    /// the version information.
    mutating func finish(level: QRCode.ErrorCorrection, mask: Int) {
        let format = Self.formatInformation(level: level, mask: mask)
        func bit(_ value: Int, _ index: Int) -> Bool { (value >> index) & 1 == 1 }
        // First copy, around the top-left finder: bits 0–7 down column 8 (skipping the timing
        // row), bits 8–14 leftwards along row 8 (skipping the timing column).
        for i in 0..<6 { set(8, i, dark: bit(format, i)) }
        set(8, 7, dark: bit(format, 6))
        set(8, 8, dark: bit(format, 7))
        set(7, 8, dark: bit(format, 8))
        for i in 9..<15 { set(14 - i, 8, dark: bit(format, i)) }
        // Second copy: bits 0–7 leftwards from the right edge on row 8, bits 8–14 down column 8
        // to the bottom edge.
        for i in 0..<8 { set(size - 1 - i, 8, dark: bit(format, i)) }
        for i in 8..<15 { set(8, size - 15 + i, dark: bit(format, i)) }
        set(8, size - 8, dark: true)

        if version >= 7 {
            let information = Self.versionInformation(version: version)
            for i in 0..<18 {
                set(size - 11 + i % 3, i / 3, dark: bit(information, i))  // top right
                set(i / 3, size - 11 + i % 3, dark: bit(information, i))  // bottom left
            }
        }
    }
}
