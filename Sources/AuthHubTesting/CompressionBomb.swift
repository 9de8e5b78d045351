import Foundation

/// A gzip body that inflates to 256 MiB of zeros from about 1.7 MB: what a hostile server sends to a
/// client that decodes compressed replies before its body cap can count them. Built by hand (one
/// deflate block with fixed Huffman codes: a literal zero, then ~1 million copies of "258 bytes at
/// distance 1"), so the test kit needs no compression library.
enum CompressionBomb {
    /// The number of "258 at distance 1" references: 1 + 258 × this is the inflated size.
    static let references = 1_040_447
    /// The inflated size: 268,435,327 bytes (256 MiB less 129 bytes).
    static let inflatedSize = 1 + 258 * references
    /// CRC-32 of `inflatedSize` zero bytes (computed once with zlib's `crc32`).
    static let inflatedCRC32: UInt32 = 0xE25C_F02A

    /// The gzip member (RFC 1952) whose deflate stream (RFC 1951) inflates to `inflatedSize` zeros.
    ///
    /// Built in a few milliseconds even in a debug build: every reference is the same 13 bits, so
    /// once the first 8 are written the writer is back in the same state every 8 references (104 bits,
    /// 13 whole bytes), and the rest is those 13 bytes repeated. (Writing a million references bit by
    /// bit took seconds in a debug build, holding up every test that waited for this value.)
    static let gzip: Data = {
        var out = Data([0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xFF])  // magic, deflate, no flags, no mtime, unknown OS
        var writer = BitWriter()
        writer.bits(1, count: 1)  // BFINAL
        writer.bits(1, count: 2)  // BTYPE 01: fixed Huffman codes
        writer.code(0x30, length: 8)  // literal 0x00
        func reference(_ writer: inout BitWriter) {
            writer.code(0xC5, length: 8)  // length 258 (symbol 285)
            writer.code(0, length: 5)  // distance 1 (distance code 0)
        }
        for _ in 0..<8 { reference(&writer) }
        // One period: the 13 bytes eight more references write, from and back to the same state.
        let before = writer.bytes.count
        for _ in 0..<8 { reference(&writer) }
        let period = Array(writer.bytes[before...])
        let repeats = (references - 16) / 8
        writer.bytes.reserveCapacity(writer.bytes.count + repeats * period.count + 16)
        for _ in 0..<repeats { writer.bytes.append(contentsOf: period) }
        for _ in 0..<((references - 16) % 8) { reference(&writer) }
        writer.code(0, length: 7)  // end of block (symbol 256)
        out.append(writer.finish())
        for value in [inflatedCRC32, UInt32(truncatingIfNeeded: inflatedSize)] {
            withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
        }
        return out
    }()

    /// Deflate's bit order: raw values least significant bit first, Huffman codes most significant first.
    private struct BitWriter {
        var bytes: [UInt8] = []
        var accumulator: UInt32 = 0
        var count: UInt32 = 0


        mutating func bits(_ value: UInt32, count length: UInt32) {
            accumulator |= value << count
            count += length
            while count >= 8 {
                bytes.append(UInt8(truncatingIfNeeded: accumulator))
                accumulator >>= 8
                count -= 8
            }
        }

        mutating func code(_ code: UInt32, length: UInt32) {
            var reversed: UInt32 = 0
            for bit in 0..<length { reversed |= ((code >> bit) & 1) << (length - 1 - bit) }
            bits(reversed, count: length)
        }

        mutating func finish() -> Data {
            if count > 0 { bytes.append(UInt8(truncatingIfNeeded: accumulator)) }
            return Data(bytes)
        }
    }
}

/// The process's peak resident memory (`VmHWM`) since it was made: the kernel's high-water mark is
/// reset on creation (`/proc/self/clear_refs`), so ``growth()`` is how far the peak rose since,
/// whoever in the process allocated. Nil where `/proc` does not offer this (not Linux).
struct PeakMemory {
    private let baseline: Int?

    init() {
        #if os(Linux)
        // "5" resets the peak resident set size to the current one (Linux 4.0 and later).
        let reset = (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) != nil
        baseline = reset ? Self.read("VmHWM:") : nil
        #else
        baseline = nil
        #endif
    }

    /// Bytes the peak rose by since ``init()``; nil when unknown.
    func growth() -> Int? {
        guard let baseline, let now = Self.read("VmHWM:") else { return nil }
        return now - baseline
    }

    /// A `/proc/self/status` line's value in bytes (the file says kB).
    private static func read(_ field: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }) else { return nil }
        let digits = line.dropFirst(field.count).filter(\.isNumber)
        return Int(digits).map { $0 * 1024 }
    }
}
