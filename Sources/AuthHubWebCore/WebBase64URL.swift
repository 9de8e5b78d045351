/// Base64url without padding (RFC 4648, section 5) of a few bytes, table-driven: the session
/// id's account (a SHA-256) and the CSRF token (an HMAC-SHA256) are encoded on every session
/// request, and the generic `Base64URL.encode` (Foundation's encoder, then the alphabet
/// translated) cost ~23 % of a session resolution (perf, `web.hummingbird.session`). Same output.
enum WebBase64URL {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    static func encode(_ bytes: UnsafeRawBufferPointer) -> String {
        let count = bytes.count
        return alphabet.withUnsafeBufferPointer { table in
            String(unsafeUninitializedCapacity: (count * 4 + 2) / 3) { out in
                var index = 0, written = 0
                while index + 3 <= count {
                    let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
                    out[written] = table[Int(group >> 18 & 63)]
                    out[written + 1] = table[Int(group >> 12 & 63)]
                    out[written + 2] = table[Int(group >> 6 & 63)]
                    out[written + 3] = table[Int(group & 63)]
                    index += 3
                    written += 4
                }
                if count - index == 1 {
                    let group = UInt32(bytes[index]) << 16
                    out[written] = table[Int(group >> 18 & 63)]
                    out[written + 1] = table[Int(group >> 12 & 63)]
                    written += 2
                } else if count - index == 2 {
                    let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
                    out[written] = table[Int(group >> 18 & 63)]
                    out[written + 1] = table[Int(group >> 12 & 63)]
                    out[written + 2] = table[Int(group >> 6 & 63)]
                    written += 3
                }
                return written
            }
        }
    }
}
