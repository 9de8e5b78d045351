import AuthHub
@testable import AuthHubFactors
import AuthHubTesting
import Foundation
import Testing

/// Runs `Tests/Interop/qr_bridge.py` with the interop Python: a batch of requests in, one result each out.
private struct QRBridge {
    let python: String

    /// Runs the batch off Swift's cooperative thread pool: the bridge blocks on a child process, and
    /// tests run in parallel.
    func call(_ requests: [JSONValue]) async throws -> [JSONValue] {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try callBlocking(requests) })
            }
        }
    }

    private func callBlocking(_ requests: [JSONValue]) throws -> [JSONValue] {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Interop/qr_bridge.py")
        // The input is written from another thread: a large batch can fill the pipe before Python answers.
        let payload = try JSONEncoder().encode(JSONValue.object(["requests": .array(requests)]))
        let run = try SpawnedProcess.run(URL(fileURLWithPath: python), [script.path], input: payload)
        guard run.status == 0 else {
            throw AuthError(.unknown, message: "qr_bridge.py failed: \(run.standardError)")
        }
        let results = try JSONValue.parse(run.stdout)["results"]?.arrayValue ?? []
        guard results.count == requests.count else {
            throw AuthError(.unknown, message: "qr_bridge.py answered \(results.count) of \(requests.count) requests")
        }
        return results
    }
}

private let environment = ProcessInfo.processInfo.environment

/// The QR code encoder against segno (PyPI), a QR code generator nobody here wrote: the same text,
/// level, version and mask must give the same module matrix bit for bit, and the automatic choices
/// of version and mask must agree. Symbols drawn from our matrices and from our terminal rendering
/// are decoded back to the original bytes by zxing-cpp (PyPI), a decoder nobody here wrote either.
///
/// `.ci/interop` installs both and sets `AUTHHUB_INTEROP_PYTHON`; a plain `swift test` skips the suite.
///
/// segno deviates from ISO/IEC 18004 §7.4.10 in one place: when the bit stream already ends on a
/// codeword boundary after the terminator (always so in byte mode when the terminator fits), it adds
/// a whole 0x00 codeword before the 0xEC/0x11 pad codewords, where the standard adds no padding bits.
/// The bridge therefore replaces that one segno function with the standard rule, and
/// ``segnoUntouchedDiffersOnlyByItsExtraZeroCodeword()`` shows, against untouched segno, that this
/// codeword is the only difference.
///
/// segno is called with the text's UTF-8 bytes (its default for a `str` is ISO 8859-1 where possible),
/// byte mode, no ECI, `boost_error=False` (it would otherwise raise the level when that costs no
/// version) and `micro=False`.
@Suite(.enabled(if: environment["AUTHHUB_INTEROP_PYTHON"] != nil, "set by .ci/interop (segno from PyPI)"))
struct InteropSegnoQRTests {
    typealias Level = QRCode.ErrorCorrection

    fileprivate let bridge = QRBridge(python: environment["AUTHHUB_INTEROP_PYTHON"] ?? "python3")

    static let versions = Array(1...10) + [20, 27, 40]

    static func letter(_ level: Level) -> String {
        switch level {
        case .low: "L"
        case .medium: "M"
        case .quartile: "Q"
        case .high: "H"
        }
    }

    /// Deterministic printable ASCII text of `length` bytes, different for every seed.
    static func text(length: Int, seed: Int) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 -._~:/?#[]@!$&'()*+,;=%")
        var state = UInt64(truncatingIfNeeded: seed) &* 0x9E37_79B9_7F4A_7C15 &+ 1
        var characters: [Character] = []
        characters.reserveCapacity(length)
        for _ in 0..<length {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            characters.append(alphabet[Int((state >> 33) % UInt64(alphabet.count))])
        }
        return String(characters)
    }

    static let uris = [
        "otpauth://totp/ACME%20Co:alice@example.com?secret=JBSWY3DPEHPK3PXP&issuer=ACME%20Co&algorithm=SHA1&digits=6&period=30",
        "otpauth://totp/AuthHub:grace%40example.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=AuthHub",
        "otpauth://totp/B%C3%BCcher%20%26%20S%C3%B6hne:jo%20hn%2Bx%40example.com?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=B%C3%BCcher%20%26%20S%C3%B6hne&algorithm=SHA512&digits=8&period=60",
        "otpauth://hotp/HOTP%20Inc:carol?secret=MZXW6YTBOI&issuer=HOTP%20Inc&counter=8589934592",
    ]

    static let utf8Texts = [
        "", "a", "Grüße aus Köln", "日本語のテキスト", "Здравствуй, мир", "emoji 🌍🔐👩‍💻 and flags 🇪🇺🇯🇵",
        "mixed: ñ € 𝄞 \u{0} nul and \t tab\nnewline", String(repeating: "é", count: 200), String(repeating: "🔑", count: 300),
    ]

    /// Our modules as rows of "0"/"1", top row first.
    static func rows(_ code: QRCode) -> [String] {
        (0..<code.size).map { y in String((0..<code.size).map { code[$0, y] ? "1" : "0" }) }
    }

    struct Case: CustomStringConvertible {
        var text: String
        var level: Level
        var version: Int?
        var mask: Int?
        /// Whether segno runs with the standard padding rule (see `qr_bridge.py`).
        var isoPadding = true
        var description: String {
            "\(text.utf8.count) bytes at \(QRCode.ErrorCorrection.self).\(level), version \(version.map(String.init) ?? "auto"), "
                + "mask \(mask.map(String.init) ?? "auto")"
        }
        var request: JSONValue {
            ["op": "encode", "text": .string(text), "level": .string(InteropSegnoQRTests.letter(level)),
             "version": version.map { .number(Double($0)) } ?? .null, "mask": mask.map { .number(Double($0)) } ?? .null,
             "iso_padding": .bool(isoPadding)]
        }
    }

    /// Encodes every case with both and compares version, mask, level and every module.
    /// Returns the number of symbols that matched bit for bit.
    @discardableResult
    private func compare(_ cases: [Case], sourceLocation: SourceLocation = #_sourceLocation) async throws -> Int {
        let results = try await bridge.call(cases.map(\.request))
        var matched = 0
        for (item, result) in zip(cases, results) {
            if let failure = result["failure"]?.stringValue {
                Issue.record("segno rejected \(item): \(failure)", sourceLocation: sourceLocation)
                continue
            }
            let ours = try QRCode(encoding: item.text, errorCorrection: item.level, version: item.version, mask: item.mask)
            #expect(result["version"]?.intValue == ours.version, "\(item)", sourceLocation: sourceLocation)
            #expect(result["mask"]?.intValue == ours.mask, "\(item)", sourceLocation: sourceLocation)
            #expect(result["level"]?.stringValue == Self.letter(item.level), "\(item)", sourceLocation: sourceLocation)
            let theirs = result["rows"]?.arrayValue?.compactMap(\.stringValue) ?? []
            let mine = Self.rows(ours)
            if theirs == mine {
                matched += 1
            } else {
                let differing = zip(theirs, mine).enumerated().flatMap { y, pair in
                    zip(pair.0, pair.1).enumerated().compactMap { x, modules in modules.0 == modules.1 ? nil : "(\(x),\(y))" }
                }
                Issue.record("\(item): \(differing.count) modules differ, first \(differing.prefix(8))", sourceLocation: sourceLocation)
            }
        }
        return matched
    }

    // MARK: - Forced version and mask

    /// Every version 1–40 at every level, filled to capacity, with a mask cycling through 0–7:
    /// 160 symbols compared bit for bit. One byte more must fail in both.
    @Test func everyVersionAndLevelAtFullCapacityMatches() async throws {
        var cases: [Case] = []
        for version in 1...40 {
            for (index, level) in Level.allCases.enumerated() {
                let capacity = QRTables.byteCapacity(version: version, level: level)
                cases.append(Case(text: Self.text(length: capacity, seed: version * 4 + index), level: level,
                                  version: version, mask: (version + index) % 8))
            }
        }
        let matched = try await compare(cases)
        #expect(matched == 160)

        let overfull = cases.map { Case(text: $0.text + "x", level: $0.level, version: $0.version, mask: $0.mask) }
        let results = try await bridge.call(overfull.map(\.request))
        for (item, result) in zip(overfull, results) {
            #expect(result["failure"] != nil, "segno accepted \(item)")
            #expect(throws: AuthError(.invalidRequest), "\(item)") {
                try QRCode(encoding: item.text, errorCorrection: item.level, version: item.version, mask: item.mask)
            }
        }
    }

    /// Versions 1–10, 20, 27 and 40 at every level, partly filled, each with a forced mask.
    @Test func listedVersionsWithForcedMasksMatch() async throws {
        var cases: [Case] = []
        for version in Self.versions {
            for (index, level) in Level.allCases.enumerated() {
                let capacity = QRTables.byteCapacity(version: version, level: level)
                cases.append(Case(text: Self.text(length: capacity / 3, seed: 1000 + version * 4 + index), level: level,
                                  version: version, mask: (version * 3 + index) % 8))
            }
        }
        #expect(try await compare(cases) == cases.count)
    }

    /// All eight masks at each level for versions 1, 2, 7 and 40.
    @Test func allEightMasksMatch() async throws {
        var cases: [Case] = []
        for version in [1, 2, 7, 40] {
            // Text that fits the version at every level: the most level H holds, or an otpauth URI at 40.
            let text = version == 40 ? Self.uris[0] : Self.text(length: QRTables.byteCapacity(version: version, level: .high), seed: version)
            for level in Level.allCases {
                for mask in 0..<8 {
                    cases.append(Case(text: text, level: level, version: version, mask: mask))
                }
            }
        }
        #expect(try await compare(cases) == 128)
    }

    // MARK: - Automatic choices

    /// Forced versions 1–10, 20, 27 and 40 at every level with the mask left to each encoder: the
    /// penalty rules must pick the same mask.
    @Test func automaticMaskMatchesAtListedVersions() async throws {
        var cases: [Case] = []
        for version in Self.versions {
            for (index, level) in Level.allCases.enumerated() {
                let capacity = QRTables.byteCapacity(version: version, level: level)
                cases.append(Case(text: Self.text(length: capacity * 2 / 3, seed: 2000 + version * 4 + index), level: level,
                                  version: version, mask: nil))
            }
        }
        #expect(try await compare(cases) == cases.count)
    }

    /// Version and mask both automatic, for otpauth URIs, UTF-8 text, and lengths on either side of
    /// every capacity boundary up to version 12 at every level.
    @Test func automaticVersionAndMaskMatch() async throws {
        var cases: [Case] = []
        for level in Level.allCases {
            for text in Self.uris + Self.utf8Texts {
                cases.append(Case(text: text, level: level))
            }
            for version in 1...12 {
                let capacity = QRTables.byteCapacity(version: version, level: level)
                cases.append(Case(text: Self.text(length: capacity, seed: 3000 + version), level: level))
                cases.append(Case(text: Self.text(length: capacity + 1, seed: 3100 + version), level: level))
            }
        }
        // Random lengths across the whole range.
        for (index, length) in [37, 95, 260, 511, 777, 1024, 1500, 2048, 2331].enumerated() {
            cases.append(Case(text: Self.text(length: length, seed: 4000 + index), level: index % 2 == 0 ? .low : .medium))
        }
        #expect(try await compare(cases) == cases.count)
    }

    // MARK: - segno's padding

    /// The data codewords as segno builds them: the standard stream, except that an extra 0x00
    /// codeword follows the terminator when the stream is byte-aligned there.
    static func segnoStyleData(_ bytes: [UInt8], version: Int, level: Level) -> [UInt8] {
        let capacity = QRTables.dataCodewords(version: version, level: level)
        var buffer = QRBitBuffer()
        buffer.append(0b0100, bits: 4)
        buffer.append(bytes.count, bits: QRTables.characterCountBits(version: version))
        for byte in bytes { buffer.append(Int(byte), bits: 8) }
        buffer.append(0, bits: min(4, capacity * 8 - buffer.count))
        buffer.append(0, bits: 8 - buffer.count % 8)  // segno: 8 zero bits when already aligned
        var data = Array(buffer.bytes.prefix(capacity))
        var pad: UInt8 = 0xEC
        while data.count < capacity {
            data.append(pad)
            pad = pad == 0xEC ? 0x11 : 0xEC
        }
        return data
    }

    /// Untouched segno equals our layout of segno's own data codewords bit for bit, and differs
    /// from our standard symbol whenever there is room for padding: the extra codeword is the only
    /// difference between the two encoders.
    @Test func segnoUntouchedDiffersOnlyByItsExtraZeroCodeword() async throws {
        var cases: [Case] = []
        for (index, level) in Level.allCases.enumerated() {
            for version in [1, 2, 5, 7, 10, 20, 40] {
                let capacity = QRTables.byteCapacity(version: version, level: level)
                cases.append(Case(text: Self.text(length: capacity / 2, seed: 6000 + version), level: level, version: version,
                                  mask: (version + index) % 8, isoPadding: false))
            }
        }
        let results = try await bridge.call(cases.map(\.request))
        var matched = 0
        for (item, result) in zip(cases, results) {
            let version = try #require(item.version)
            let mask = try #require(item.mask)
            let codewords = QRCode.interleave(data: Self.segnoStyleData(Array(item.text.utf8), version: version, level: item.level),
                                              version: version, level: item.level)
            var builder = QRMatrixBuilder(version: version)
            builder.place(codewords: codewords)
            var symbol = builder.masked(mask)
            symbol.finish(level: item.level, mask: mask)
            let segnoStyle = (0..<symbol.size).map { y in String((0..<symbol.size).map { symbol[$0, y] ? "1" : "0" }) }
            let theirs = result["rows"]?.arrayValue?.compactMap(\.stringValue) ?? []
            if theirs == segnoStyle { matched += 1 } else { Issue.record("\(item): untouched segno differs from its own padding") }
            let standard = try QRCode(encoding: item.text, errorCorrection: item.level, version: version, mask: mask)
            #expect(Self.rows(standard) != theirs, "\(item)")
        }
        #expect(matched == cases.count)
    }

    // MARK: - Decoding with zxing-cpp

    /// Rows read back from our terminal rendering (no quiet zone), inked or not per `inverted`.
    static func rowsFromRendering(_ code: QRCode, inverted: Bool) -> [String] {
        let lines = code.terminalRendering(quietZone: 0, inverted: inverted).split(separator: "\n").map(Array.init)
        return (0..<code.size).map { y in
            String((0..<code.size).map { x -> Character in
                let character = lines[y / 2][x]
                let inked = y % 2 == 0 ? (character == "█" || character == "▀") : (character == "█" || character == "▄")
                return inked != inverted ? "1" : "0"
            })
        }
    }

    /// zxing-cpp decodes symbols drawn from our matrices, and from our terminal rendering read back,
    /// to the original UTF-8 bytes at the right level.
    @Test func zxingDecodesOurSymbols() async throws {
        let probe = try await bridge.call([["op": "decode", "rows": ["1"]]])
        try #require(probe.first?["failure"]?.stringValue != "zxing-cpp is not installed",
                     "install zxing-cpp and pillow next to segno, as .ci/interop does")
        var codes: [(QRCode, String)] = []
        for (index, text) in (Self.uris + Self.utf8Texts.filter { !$0.isEmpty }).enumerated() {
            let level = Level.allCases[index % 4]
            codes.append((try QRCode(encoding: text, errorCorrection: level), text))
        }
        codes.append((try QRCode(encoding: Self.text(length: 2953, seed: 5), errorCorrection: .low), Self.text(length: 2953, seed: 5)))
        for version in [7, 20, 27] {
            let text = Self.text(length: 50, seed: version)
            codes.append((try QRCode(encoding: text, errorCorrection: .high, version: version, mask: version % 8), text))
        }
        var requests: [JSONValue] = []
        for (code, _) in codes {
            requests.append(["op": "decode", "rows": .array(Self.rows(code).map { .string($0) }), "quiet_zone": 4, "scale": 3])
            let rendered = Self.rowsFromRendering(code, inverted: code.version % 2 == 0)
            #expect(rendered == Self.rows(code))
            requests.append(["op": "decode", "rows": .array(rendered.map { .string($0) }), "quiet_zone": 4, "scale": 3])
        }
        let results = try await bridge.call(requests)
        for (index, (code, text)) in codes.enumerated() {
            let hex = text.utf8.map { String(format: "%02x", $0) }.joined()
            for result in [results[2 * index], results[2 * index + 1]] {
                #expect(result["failure"] == nil, "\(code): \(result)")
                #expect(result["bytes_hex"]?.stringValue == hex, "\(code)")
                #expect(result["level"]?.stringValue == Self.letter(code.errorCorrection), "\(code)")
            }
        }
    }
}
