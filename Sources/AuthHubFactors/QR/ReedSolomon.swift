/// Reed–Solomon error-correction codewords for QR codes (ISO/IEC 18004, section 7.5.2).
///
/// The generator polynomial of degree n is (x − α⁰)(x − α¹)…(x − αⁿ⁻¹) over ``GaloisField``; the
/// error-correction codewords of a block are the remainder of the data polynomial × xⁿ divided by
/// it, highest power first.
struct ReedSolomon: Sendable {
    /// Coefficients of the generator after its leading 1, highest power first (`degree` values).
    let generator: [UInt8]

    /// Creates an encoder producing `degree` error-correction codewords per block.
    init(degree: Int) {
        // Start from the polynomial 1 and multiply by (x − αⁱ) one factor at a time. The array holds
        // every coefficient, highest power first; minus is plus in characteristic 2.
        var coefficients: [UInt8] = [1]
        for i in 0..<max(0, degree) {
            let root = GaloisField.power(i)
            var next = [UInt8](repeating: 0, count: coefficients.count + 1)
            for (index, coefficient) in coefficients.enumerated() {
                next[index] ^= coefficient                                  // × x
                next[index + 1] ^= GaloisField.multiply(coefficient, root)  // × αⁱ
            }
            coefficients = next
        }
        generator = Array(coefficients.dropFirst())
    }

    /// The error-correction codewords of one block of data codewords.
    func remainder(of data: [UInt8]) -> [UInt8] {
        var remainder = [UInt8](repeating: 0, count: generator.count)
        guard !remainder.isEmpty else { return [] }
        for byte in data {
            let factor = byte ^ remainder[0]
            remainder.removeFirst()
            remainder.append(0)
            if factor != 0 {
                for index in generator.indices {
                    remainder[index] ^= GaloisField.multiply(generator[index], factor)
                }
            }
        }
        return remainder
    }
}
