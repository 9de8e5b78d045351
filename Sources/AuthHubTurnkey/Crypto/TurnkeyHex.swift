import AuthHub
import Foundation

/// Lower-case hexadecimal, the encoding Turnkey uses for keys, signatures and bundle fields.
@_spi(Internals) public enum TurnkeyHex {
    /// Encodes bytes as lower-case hex.
    public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        Hex.lowercase(bytes)
    }

    /// Decodes hex (either case); nil for an odd length or a non-hex character.
    public static func decode(_ text: String) -> [UInt8]? {
        Hex.decode(text)
    }
}
