/// The data-mask penalty score of ISO/IEC 18004, section 7.8.3.1 (Table 11); the mask with the lowest
/// score is chosen, the first one on a tie.
///
/// The four rules, with the readings this implementation takes where the standard's text leaves room:
/// - N1: a row or column run of 5 + i modules of one colour scores 3 + i.
/// - N2: every 2×2 block of one colour scores 3 (a larger block is counted as its overlapping 2×2
///   blocks, which is Table 11's 3 × (m − 1) × (n − 1)).
/// - N3: every 1:1:3:1:1 dark–light–dark–light–dark run (`1011101`) in a row or column with four
///   light modules before it or after it scores 40. Modules outside the symbol are the quiet zone
///   and count as light; an occurrence is counted once even when it has light on both sides, and
///   the modules of a counted occurrence are not reused by another.
/// - N4: 10 points for every full 5 % by which the share of dark modules differs from 50 %,
///   computed exactly in integers.
///
/// The caller evaluates the symbol as the standard's order of steps has it at masking time (ISO/IEC 18004, section 7.1):
/// function patterns drawn, format and version information (and the dark module) not yet written,
/// i.e. light. Implementations that write the format information first can pick a different mask
/// for the same data; both produce valid symbols. segno (PyPI) takes this order too.
enum QRMaskPenalty {
    /// The total penalty of a symbol given row by row.
    static func score(_ modules: [Bool], size: Int) -> Int {
        var total = 0
        var line = [Bool](repeating: false, count: size)
        for y in 0..<size {
            for x in 0..<size { line[x] = modules[y * size + x] }
            total += runPenalty(line) + finderLikePenalty(line)
        }
        for x in 0..<size {
            for y in 0..<size { line[y] = modules[y * size + x] }
            total += runPenalty(line) + finderLikePenalty(line)
        }
        for y in 0..<(size - 1) {
            for x in 0..<(size - 1) {
                let colour = modules[y * size + x]
                if modules[y * size + x + 1] == colour, modules[(y + 1) * size + x] == colour,
                   modules[(y + 1) * size + x + 1] == colour {
                    total += 3
                }
            }
        }
        let dark = modules.reduce(0) { $0 + ($1 ? 1 : 0) }
        let count = size * size
        total += 10 * (abs(20 * dark - 10 * count) / count)
        return total
    }

    /// N1 for one row or column.
    static func runPenalty(_ line: [Bool]) -> Int {
        var score = 0
        var index = 0
        while index < line.count {
            var end = index + 1
            while end < line.count, line[end] == line[index] { end += 1 }
            let length = end - index
            if length >= 5 { score += 3 + (length - 5) }
            index = end
        }
        return score
    }

    /// The finder-like run N3 looks for.
    private static let finderLike: [Bool] = [true, false, true, true, true, false, true]

    /// N3 for one row or column.
    static func finderLikePenalty(_ line: [Bool]) -> Int {
        let count = line.count
        func isLight(_ range: Range<Int>) -> Bool {
            range.clamped(to: 0..<count).allSatisfy { !line[$0] }
        }
        var score = 0
        var start = 0
        while start + 7 <= count {
            let matches = (0..<7).allSatisfy { line[start + $0] == finderLike[$0] }
            if matches, isLight((start - 4)..<start) || isLight((start + 7)..<(start + 11)) {
                score += 40
                start += 7
            } else {
                start += 1
            }
        }
        return score
    }
}
