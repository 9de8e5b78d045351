import AuthHub

/// The format of recovery codes: generation, display and normalisation.
///
/// A recovery code is 16 symbols from Crockford's base32 alphabet
/// (`0123456789ABCDEFGHJKMNPQRSTVWXYZ`: digits and upper-case letters without `I`, `L`, `O` and
/// `U`), shown in groups of four: `7K3M-Q9TX-2HWD-C8RB`. 16 symbols × 5 bits = **80 bits** of
/// entropy per code, drawn uniformly: each code takes exactly 10 random bytes (80 bits) and splits
/// them into sixteen 5-bit groups, so every code is equally likely and no modulo bias exists.
///
/// What a user types is normalised before comparison: case is ignored, spaces and hyphens are
/// dropped, and the characters left out of the alphabet map to the ones they are mistaken for
/// (`O` → `0`, `I` and `L` → `1`).
///
/// Store codes only as ``RecoveryCodeHash``es (or a ``RecoveryCodeSet``) and show the plain codes
/// to the user once.
public enum RecoveryCode {
    /// The 32 symbols of a code (Crockford's base32).
    public static let alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
    /// The number of symbols in a code.
    public static let length = 16
    /// The entropy of a code in bits (`length` × 5).
    public static let entropyBits = 80
    /// The number of symbols between hyphens in the display form.
    public static let groupLength = 4
    /// The number of codes ``generate(count:using:)`` makes by default.
    public static let defaultCount = 10

    private static let symbols: [UInt8] = Array(alphabet.utf8)

    /// Generates fresh codes in display form (`XXXX-XXXX-XXXX-XXXX`).
    ///
    /// - Parameters:
    ///   - count: how many codes; 10 by default; 1...1000.
    ///   - random: the randomness; must be cryptographically secure in production.
    /// - Returns: the codes, to show the user once and then hash.
    /// - Throws: ``AuthError`` with code ``AuthErrorCode/invalidConfiguration`` when `count` is out of
    ///   range or the random source returns the wrong number of bytes.
    public static func generate(count: Int = defaultCount, using random: any RandomSource = SystemRandom()) throws
        -> [Secret<String>]
    {
        guard (1...1000).contains(count) else {
            throw AuthError(.invalidConfiguration, message: "Generate between 1 and 1000 recovery codes, not \(count).")
        }
        let bytesPerCode = entropyBits / 8
        var codes: [Secret<String>] = []
        codes.reserveCapacity(count)
        for _ in 0..<count {
            let bytes = random.bytes(bytesPerCode)
            guard bytes.count == bytesPerCode else {
                throw AuthError(.invalidConfiguration,
                                message: "The random source returned \(bytes.count) bytes instead of \(bytesPerCode).")
            }
            codes.append(Secret(display(symbolsFrom: bytes)))
        }
        return codes
    }

    /// Normalises a typed code to its 16 canonical symbols.
    ///
    /// - Parameter code: what the user typed, in any case, with or without spaces and hyphens.
    /// - Returns: the canonical symbols without separators, or `nil` when the input is not 16
    ///   symbols of the alphabet after normalisation.
    public static func normalized(_ code: Secret<String>) -> Secret<String>? {
        var output: [UInt8] = []
        output.reserveCapacity(length)
        for byte in code.revealed().utf8 {
            let upper = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) ? byte - 32 : byte
            switch upper {
            case UInt8(ascii: " "), UInt8(ascii: "-"):
                continue
            case UInt8(ascii: "O"):
                output.append(UInt8(ascii: "0"))
            case UInt8(ascii: "I"), UInt8(ascii: "L"):
                output.append(UInt8(ascii: "1"))
            default:
                guard symbols.contains(upper) else { return nil }
                output.append(upper)
            }
        }
        guard output.count == length else { return nil }
        return Secret(String(decoding: output, as: UTF8.self))
    }

    /// Sixteen symbols from ten bytes, grouped for display.
    private static func display(symbolsFrom bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        for value in Base32.quintets(bytes) {
            if !output.isEmpty && (output.count + 1) % (groupLength + 1) == 0 {
                output.append(UInt8(ascii: "-"))
            }
            output.append(symbols[Int(value)])
        }
        return String(decoding: output, as: UTF8.self)
    }
}
