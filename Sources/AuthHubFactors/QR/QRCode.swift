import AuthHub

/// A QR code symbol (ISO/IEC 18004, model 2, versions 1–40) holding UTF-8 text in byte mode.
///
/// Built for drawing `otpauth://` URIs in a terminal (``terminalRendering(quietZone:inverted:)``),
/// so it encodes in byte mode only: the text's UTF-8 bytes, without an ECI header, which is what
/// authenticator apps read. The encoder picks the smallest version that holds the text at the
/// requested error-correction level, and the data mask with the lowest penalty score of
/// ISO/IEC 18004, section 7.8.3, evaluated before the format and version information are written (the
/// standard's order of steps); the first mask wins a tie. The symbols match segno's (PyPI) bit for
/// bit, mask choice included, once segno's extra pad codeword is accounted for (see the interop tests).
///
/// The modules encode the text, and an `otpauth://` URI carries the TOTP secret, so
/// `description` names only the version, level and mask.
public struct QRCode: Sendable, Hashable, CustomStringConvertible {
    /// The error-correction level: the share of codewords that can be restored.
    public enum ErrorCorrection: Sendable, Hashable, CaseIterable {
        /// About 7 % of codewords can be restored.
        case low
        /// About 15 % of codewords can be restored.
        case medium
        /// About 25 % of codewords can be restored.
        case quartile
        /// About 30 % of codewords can be restored.
        case high
    }

    /// The version, 1...40, which fixes the size: 17 + 4 × version modules per side.
    public let version: Int
    /// The error-correction level.
    public let errorCorrection: ErrorCorrection
    /// The data mask pattern, 0...7.
    public let mask: Int
    /// The modules row by row, `true` for dark.
    private let modules: [Bool]

    /// Encodes text in byte mode at the smallest version that holds it, with the best mask.
    ///
    /// Empty text is valid (a version 1 symbol with no data).
    ///
    /// - Parameters:
    ///   - text: the text; its UTF-8 bytes are encoded.
    ///   - errorCorrection: the level; medium by default.
    /// - Throws: ``AuthError`` with ``AuthErrorCode/invalidRequest`` when the text's UTF-8 form is
    ///   longer than version 40 holds at that level (2,953 bytes at low, 1,273 at high).
    public init(encoding text: String, errorCorrection: ErrorCorrection = .medium) throws {
        try self.init(encoding: text, errorCorrection: errorCorrection, version: nil, mask: nil)
    }

    /// Encodes text in byte mode with a forced version and/or mask.
    ///
    /// - Parameters:
    ///   - text: the text; its UTF-8 bytes are encoded.
    ///   - errorCorrection: the level.
    ///   - version: the version, 1...40; `nil` picks the smallest that holds the text.
    ///   - mask: the data mask, 0...7; `nil` picks the one with the lowest penalty score.
    /// - Throws: ``AuthError`` with ``AuthErrorCode/invalidRequest`` when `version` or `mask` is out
    ///   of range or the text does not fit. The message never repeats the text, which may be secret.
    public init(encoding text: String, errorCorrection: ErrorCorrection, version: Int?, mask: Int?) throws {
        let bytes = Array(text.utf8)
        if let mask, !(0...7).contains(mask) {
            throw AuthError(.invalidRequest, message: "A QR code mask is 0 to 7; \(mask) is not.",
                            details: ["mask": String(mask)])
        }
        let chosenVersion: Int
        if let version {
            guard (1...40).contains(version) else {
                throw AuthError(.invalidRequest, message: "A QR code version is 1 to 40; \(version) is not.",
                                details: ["version": String(version)])
            }
            let capacity = QRTables.byteCapacity(version: version, level: errorCorrection)
            guard bytes.count <= capacity else {
                throw AuthError(.invalidRequest,
                                message: "The text is \(bytes.count) bytes; a version \(version) QR code at level "
                                    + "\(errorCorrection) holds at most \(capacity).",
                                details: ["bytes": String(bytes.count), "capacity": String(capacity)])
            }
            chosenVersion = version
        } else {
            guard let smallest = (1...40).first(where: { bytes.count <= QRTables.byteCapacity(version: $0, level: errorCorrection) }) else {
                let capacity = QRTables.byteCapacity(version: 40, level: errorCorrection)
                throw AuthError(.invalidRequest,
                                message: "The text is \(bytes.count) bytes; a QR code at level \(errorCorrection) "
                                    + "holds at most \(capacity).",
                                details: ["bytes": String(bytes.count), "capacity": String(capacity)])
            }
            chosenVersion = smallest
        }

        let codewords = Self.codewords(for: bytes, version: chosenVersion, level: errorCorrection)
        var builder = QRMatrixBuilder(version: chosenVersion)
        builder.place(codewords: codewords)

        let chosenMask: Int
        var symbol: QRMatrixBuilder
        if let mask {
            chosenMask = mask
            symbol = builder.masked(mask)
        } else {
            var best = (mask: 0, score: Int.max, symbol: builder)
            for candidate in 0..<8 {
                let masked = builder.masked(candidate)
                let score = QRMaskPenalty.score(masked.modules, size: masked.size)
                if score < best.score { best = (candidate, score, masked) }
            }
            chosenMask = best.mask
            symbol = best.symbol
        }
        symbol.finish(level: errorCorrection, mask: chosenMask)

        self.version = chosenVersion
        self.errorCorrection = errorCorrection
        self.mask = chosenMask
        self.modules = symbol.modules
    }

    /// Modules per side: 17 + 4 × ``version``.
    public var size: Int { 17 + 4 * version }

    /// Whether the module at column `x`, row `y` is dark; (0, 0) is the top-left corner.
    ///
    /// Coordinates outside the symbol are its quiet zone and read as light.
    public subscript(x: Int, y: Int) -> Bool {
        guard (0..<size).contains(x), (0..<size).contains(y) else { return false }
        return modules[y * size + x]
    }

    /// The version, level and mask, never the modules.
    public var description: String {
        "QRCode(version: \(version), errorCorrection: \(errorCorrection), mask: \(mask))"
    }

    // MARK: - Codewords

    /// The final codeword sequence for `bytes` (ISO/IEC 18004, sections 7.4 to 7.6): the byte-mode bit stream with
    /// terminator and padding, split into blocks, each followed by its Reed–Solomon codewords, then
    /// interleaved. The caller has checked that the bytes fit.
    static func codewords(for bytes: [UInt8], version: Int, level: ErrorCorrection) -> [UInt8] {
        let dataCapacity = QRTables.dataCodewords(version: version, level: level)
        var buffer = QRBitBuffer()
        buffer.append(0b0100, bits: 4)
        buffer.append(bytes.count, bits: QRTables.characterCountBits(version: version))
        for byte in bytes { buffer.append(Int(byte), bits: 8) }
        let capacityBits = dataCapacity * 8
        buffer.append(0, bits: max(0, min(4, capacityBits - buffer.count)))  // terminator
        buffer.append(0, bits: (8 - buffer.count % 8) % 8)
        var data = buffer.bytes
        var pad: UInt8 = 0xEC
        while data.count < dataCapacity {
            data.append(pad)
            pad = pad == 0xEC ? 0x11 : 0xEC
        }
        return interleave(data: data, version: version, level: level)
    }

    /// Splits data codewords into the version's blocks, adds each block's error-correction
    /// codewords, and interleaves: the first data codeword of every block, then the second, …, then
    /// the error-correction codewords the same way (ISO/IEC 18004, section 7.6).
    static func interleave(data: [UInt8], version: Int, level: ErrorCorrection) -> [UInt8] {
        let row = QRTables.index(level)
        let blockCount = QRTables.blockCount[row][version - 1]
        let ecLength = QRTables.ecCodewordsPerBlock[row][version - 1]
        let total = QRTables.totalCodewords(version: version)
        // Group 1 blocks hold `total / blockCount` codewords; the last `total % blockCount` blocks
        // (group 2) hold one data codeword more.
        let shortBlocks = blockCount - total % blockCount
        let shortDataLength = total / blockCount - ecLength
        let encoder = ReedSolomon(degree: ecLength)

        var blocks: [[UInt8]] = []
        var ecBlocks: [[UInt8]] = []
        var offset = 0
        for index in 0..<blockCount {
            let length = shortDataLength + (index < shortBlocks ? 0 : 1)
            let end = min(data.count, offset + length)
            let block = Array(data[min(offset, end)..<end])
            offset += length
            blocks.append(block)
            ecBlocks.append(encoder.remainder(of: block))
        }

        var output: [UInt8] = []
        output.reserveCapacity(total)
        for column in 0...shortDataLength {
            for block in blocks where column < block.count { output.append(block[column]) }
        }
        for column in 0..<ecLength {
            for block in ecBlocks { output.append(block[column]) }
        }
        return output
    }
}
