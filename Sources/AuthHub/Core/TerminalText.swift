/// Text from outside (a provider's error message, a claim, a display name, a device code) made safe
/// to show on a terminal: every character that a terminal acts on instead of showing is written as a
/// visible escape, `\u{1B}`.
///
/// A provider, or anyone who can put text in a claim, could otherwise clear the screen (ESC
/// sequences), rewrite the line before (`Wrong email or password.\rSigned in as admin.`), set the
/// window title, or disguise a file name with a right-to-left override. Escaped are:
/// - the C0 controls U+0000–U+001F (TAB, LF and CR included: outside text is one line) and DEL U+007F;
/// - the C1 controls U+0080–U+009F (U+009B is a one-byte CSI on many terminals);
/// - the line and paragraph separators U+2028 and U+2029;
/// - the bidirectional controls: U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069.
///
/// Everything else is kept as it is, so text without such characters comes back unchanged and
/// escaping twice gives what escaping once gave (the library escapes its messages, the CLI escapes
/// what it prints, and neither shows `\u{5C}u{…}`). A reader can undo the escape (``unescape(_:)``)
/// for any text that did not already contain the characters `\u{`.
public enum TerminalText {
    /// Whether a terminal would act on `scalar` instead of showing it (see the type's list).
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x2028, 0x2029: true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// `text` with every unsafe character written as `\u{HEX}` (upper-case hex, no leading zeros).
    public static func escape(_ text: String) -> String {
        escape(text, keepingNewlines: false)
    }

    /// `text` escaped as ``escape(_:)`` does, except LF, which is kept: for a block of lines the
    /// program itself wrote around values that were escaped one by one.
    public static func escapeKeepingNewlines(_ text: String) -> String {
        escape(text, keepingNewlines: true)
    }

    /// True when `text` has no character ``escape(_:)`` would change.
    public static func isSafe(_ text: String) -> Bool {
        !text.unicodeScalars.contains(where: isUnsafe)
    }

    /// Reverses ``escape(_:)``: every `\u{HEX}` whose value is an unsafe character becomes that
    /// character again; anything else is left as it is.
    public static func unescape(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        let scalars = Array(text.unicodeScalars)
        var index = 0
        while index < scalars.count {
            if let (scalar, length) = escapedScalar(in: scalars, at: index) {
                out.append(scalar)
                index += length
            } else {
                out.append(scalars[index])
                index += 1
            }
        }
        return String(out)
    }

    private static func escape(_ text: String, keepingNewlines: Bool) -> String {
        guard text.unicodeScalars.contains(where: { isUnsafe($0) && !(keepingNewlines && $0 == "\n") }) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar), !(keepingNewlines && scalar == "\n") {
                out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// The unsafe scalar written at `index` as `\u{HEX}`, and how many scalars the escape spans.
    private static func escapedScalar(in scalars: [Unicode.Scalar], at index: Int) -> (Unicode.Scalar, Int)? {
        guard index + 4 < scalars.count, scalars[index] == "\\", scalars[index + 1] == "u", scalars[index + 2] == "{" else { return nil }
        var value: UInt32 = 0
        var cursor = index + 3
        while cursor < scalars.count, cursor - index - 3 < 5, let digit = Character(scalars[cursor]).hexDigitValue {
            value = value * 16 + UInt32(digit)
            cursor += 1
        }
        guard cursor > index + 3, cursor < scalars.count, scalars[cursor] == "}",
              let scalar = Unicode.Scalar(value), isUnsafe(scalar) else { return nil }
        return (scalar, cursor - index + 1)
    }
}
