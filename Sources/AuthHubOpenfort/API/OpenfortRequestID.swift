import AuthHub
import Foundation

/// `x-request-id` values: random (version 4) UUIDs from an injected ``RandomSource``.
enum OpenfortRequestID {
    static func make(_ random: any RandomSource) -> String {
        var b = random.bytes(16)
        if b.count < 16 { b += [UInt8](repeating: 0, count: 16 - b.count) }
        b[6] = (b[6] & 0x0F) | 0x40
        b[8] = (b[8] & 0x3F) | 0x80
        let hex = Array(b.map { String(format: "%02x", $0) }.joined())
        func part(_ r: Range<Int>) -> String { String(hex[r]) }
        return [part(0..<8), part(8..<12), part(12..<16), part(16..<20), part(20..<32)].joined(separator: "-")
    }
}
