import AuthHub
import Foundation
import Testing

/// `TerminalText`: what a terminal would act on is shown escaped, nothing else changes, escaping is
/// idempotent and can be undone.
@Suite struct TerminalTextTests {
    /// Every character the type promises to escape, by class.
    static let unsafeExamples: [(String, Unicode.Scalar)] = [
        ("NUL", "\u{0}"), ("BEL", "\u{7}"), ("BS", "\u{8}"), ("TAB", "\u{9}"), ("LF", "\u{A}"), ("CR", "\u{D}"), ("ESC", "\u{1B}"),
        ("DEL", "\u{7F}"), ("C1 PAD", "\u{80}"), ("C1 CSI", "\u{9B}"), ("C1 OSC", "\u{9D}"), ("C1 APC", "\u{9F}"),
        ("LINE SEPARATOR", "\u{2028}"), ("PARAGRAPH SEPARATOR", "\u{2029}"), ("ALM", "\u{61C}"), ("LRM", "\u{200E}"),
        ("RLM", "\u{200F}"), ("LRE", "\u{202A}"), ("RLO", "\u{202E}"), ("LRI", "\u{2066}"), ("PDI", "\u{2069}"),
    ]

    @Test(arguments: unsafeExamples.map(\.0))
    func eachUnsafeClassIsEscaped(_ name: String) throws {
        let scalar = try #require(Self.unsafeExamples.first { $0.0 == name }?.1)
        let text = "a" + String(Character(scalar)) + "b"
        let escaped = TerminalText.escape(text)
        #expect(escaped == "a\\u{\(String(scalar.value, radix: 16, uppercase: true))}b")
        #expect(TerminalText.isSafe(escaped))
        #expect(TerminalText.unescape(escaped) == text)
    }

    @Test func theAttacksOfTheIssueAreDefused() {
        let rewrite = "Wrong email or password.\rSigned in as admin."
        #expect(TerminalText.escape(rewrite) == "Wrong email or password.\\u{D}Signed in as admin.")
        let clear = "\u{1B}[2J\u{1B}]0;pwned\u{7}name"
        #expect(TerminalText.escape(clear) == "\\u{1B}[2J\\u{1B}]0;pwned\\u{7}name")
        let disguised = "invoice\u{202E}fdp.exe"
        #expect(TerminalText.escape(disguised) == "invoice\\u{202E}fdp.exe")
    }

    @Test func printableTextIsUnchanged() {
        for text in ["", "ada@example.com", "Zoë Ünïcödé 日本語 🧑‍💻 (ZWJ kept)", "C:\\path\\u not an escape", "tab-less\\u{41}"] {
            #expect(TerminalText.escape(text) == text)
            #expect(TerminalText.isSafe(text))
        }
    }

    @Test func newlinesCanBeKeptForTheProgramsOwnLines() {
        #expect(TerminalText.escapeKeepingNewlines("one\ntwo\r\u{1B}") == "one\ntwo\\u{D}\\u{1B}")
    }

    /// A property over 20,000 random strings drawn from a mix of ASCII, controls, C1, separators, bidi
    /// and other Unicode: the output holds no unsafe character, escaping twice changes nothing more,
    /// and unescaping gives the input back when it did not already contain `\u{`.
    @Test func propertyOverRandomText() {
        var generator = SplitMix64(seed: 0x7E57_7E47)
        let pools: [ClosedRange<UInt32>] = [0x00...0x1F, 0x20...0x7E, 0x7F...0x9F, 0xA0...0x2FF, 0x2000...0x206F, 0x0600...0x061F, 0x1F300...0x1F6FF]
        for _ in 0..<20_000 {
            var scalars = String.UnicodeScalarView()
            for _ in 0..<Int(generator.next() % 24) {
                let pool = pools[Int(generator.next() % UInt64(pools.count))]
                let value = pool.lowerBound + UInt32(generator.next() % UInt64(pool.count))
                if let scalar = Unicode.Scalar(value) { scalars.append(scalar) }
                if generator.next() % 17 == 0 { scalars.append(contentsOf: "\\u{".unicodeScalars) }
            }
            let text = String(scalars)
            let once = TerminalText.escape(text)
            // Checked without #expect in the loop (its bookkeeping, 100,000 times, kept a thread busy
            // for seconds); the first input that breaks a property is recorded.
            let holds = !once.unicodeScalars.contains(where: TerminalText.isUnsafe)
                && TerminalText.escape(once) == once
                && TerminalText.escapeKeepingNewlines(once) == once
                && (text.contains("\\u{") || TerminalText.unescape(once) == text)
                && (!TerminalText.isSafe(text) || once == text)
            if !holds {
                Issue.record("a property does not hold for \(Array(text.unicodeScalars))")
                return
            }
        }
    }

    @Test func errorMessagesAreEscapedAndKeepTheRawText() {
        let raw = "Wrong email or password.\r\u{1B}[2KSigned in as admin."
        let error = AuthError(.invalidCredentials, message: raw, provider: "auth0")
        #expect(TerminalText.isSafe(error.message))
        #expect(!error.message.contains("\n"))
        #expect(error.details["rawMessage"] == raw)
        #expect(TerminalText.isSafe(error.description))
        let plain = AuthError(.invalidCredentials, message: "Wrong email or password.")
        #expect(plain.details["rawMessage"] == nil)
    }
}

/// A small, seeded generator so the property runs the same inputs every time.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
