/// A sequence of bits written most significant first, turned into QR data codewords.
struct QRBitBuffer: Sendable {
    /// The bits written so far, one `Bool` per bit.
    private(set) var bits: [Bool] = []

    /// Number of bits written.
    var count: Int { bits.count }

    /// Appends the low `length` bits of `value`, most significant first.
    mutating func append(_ value: Int, bits length: Int) {
        for shift in stride(from: length - 1, through: 0, by: -1) {
            bits.append((value >> shift) & 1 == 1)
        }
    }

    /// The bits as bytes, most significant bit first; a last partial byte is padded with zeros.
    var bytes: [UInt8] {
        var output = [UInt8](repeating: 0, count: (bits.count + 7) / 8)
        for (index, bit) in bits.enumerated() where bit {
            output[index / 8] |= 0x80 >> UInt8(index % 8)
        }
        return output
    }
}
