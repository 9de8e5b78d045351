import AuthHub
@testable import AuthHubFactors
import Testing

@Suite struct CBORTests {
    private func hex(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            out.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return out
    }

    /// RFC 8949 Appendix A examples: each encodes to the listed bytes and decodes back.
    @Test(arguments: [
        (CBORValue.unsigned(0), "00"), (.unsigned(23), "17"), (.unsigned(24), "1818"), (.unsigned(100), "1864"),
        (.unsigned(1000), "1903e8"), (.unsigned(1_000_000), "1a000f4240"),
        (.unsigned(1_000_000_000_000), "1b000000e8d4a51000"), (.unsigned(UInt64.max), "1bffffffffffffffff"),
        (.negative(UInt64.max), "3bffffffffffffffff"), (.int(-1), "20"), (.int(-10), "29"), (.int(-100), "3863"),
        (.int(-1000), "3903e7"), (.bool(false), "f4"), (.bool(true), "f5"), (.null, "f6"), (.undefined, "f7"),
        (.simple(16), "f0"), (.simple(255), "f8ff"), (.bytes([]), "40"), (.bytes([1, 2, 3, 4]), "4401020304"),
        (.text(""), "60"), (.text("a"), "6161"), (.text("IETF"), "6449455446"), (.text("\u{00fc}"), "62c3bc"),
        (.text("\u{6c34}"), "63e6b0b4"), (.array([]), "80"),
        (.array([.int(1), .array([.int(2), .int(3)]), .array([.int(4), .int(5)])]), "8301820203820405"),
        (.map([]), "a0"), (.map([CBORMapEntry(.int(1), .int(2)), CBORMapEntry(.int(3), .int(4))]), "a201020304"),
        (.tagged(1, .unsigned(1_363_896_240)), "c11a514b67b0"), (.float(1.1), "fb3ff199999999999a"),
    ])
    func rfc8949Examples(value: CBORValue, encoding: String) throws {
        #expect(CBOREncoder.encode(value) == hex(encoding))
        #expect(try CBORDecoder.decode(hex(encoding)) == value)
    }

    @Test func decodesHalfAndSinglePrecisionFloats() throws {
        #expect(try CBORDecoder.decode(hex("f93c00")) == .float(1.0))
        #expect(try CBORDecoder.decode(hex("f93e00")) == .float(1.5))
        #expect(try CBORDecoder.decode(hex("f97bff")) == .float(65504.0))
        #expect(try CBORDecoder.decode(hex("f90001")) == .float(5.960464477539063e-08))
        #expect(try CBORDecoder.decode(hex("f9c400")) == .float(-4.0))
        #expect(try CBORDecoder.decode(hex("f97c00")) == .float(.infinity))
        #expect(try CBORDecoder.decode(hex("fa47c35000")) == .float(100000.0))
    }

    /// CTAP2 canonical order: shorter encoded keys first, then bytewise — so COSE keys come out as
    /// 1, 3, -1, -2, -3 and text keys by length.
    @Test func mapKeysAreWrittenInCanonicalOrder() {
        let cose = CBORValue.map([CBORMapEntry(.int(-3), .int(0)), CBORMapEntry(.int(1), .int(0)),
                                  CBORMapEntry(.int(-1), .int(0)), CBORMapEntry(.int(3), .int(0)),
                                  CBORMapEntry(.int(-2), .int(0))])
        #expect(CBOREncoder.encode(cose) == hex("a5010003002000210022 00".replacingOccurrences(of: " ", with: "")))
        let text = CBORValue.map([CBORMapEntry(.text("authData"), .null), CBORMapEntry(.text("fmt"), .null),
                                  CBORMapEntry(.text("attStmt"), .null)])
        let decoded = try? CBORDecoder.decode(CBOREncoder.encode(text))
        #expect(decoded?.mapValue?.map(\.key) == [.text("fmt"), .text("attStmt"), .text("authData")])
    }

    @Test(arguments: [
        ("", "unexpected end"), ("18", "past the end"), ("5f", "indefinite"), ("9f01ff", "indefinite"),
        ("44010203", "runs past the end"), ("9a7fffffff", "runs past the end"), ("bb7fffffffffffffff", "runs past the end"),
        ("62c328", "UTF-8"), ("a20102 0103".replacingOccurrences(of: " ", with: ""), "duplicate"), ("0000", "trailing"),
        ("1c", "reserved"), ("f818", "one-byte form"), ("ff", "break"),
    ])
    func rejectsMalformedInput(bytes: String, reason: String) {
        let error = #expect(throws: AuthError.self) { try CBORDecoder.decode(hex(bytes)) }
        #expect(error?.code == .invalidRequest)
        #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
    }

    @Test func rejectsNestingBeyondTheLimit() {
        let deep = [UInt8](repeating: 0x81, count: CBORDecoder.maximumDepth + 1) + [0x00]
        let error = #expect(throws: AuthError.self) { try CBORDecoder.decode(deep) }
        #expect(error?.message.contains("nesting") == true)
        let fine = [UInt8](repeating: 0x81, count: CBORDecoder.maximumDepth) + [0x00]
        #expect((try? CBORDecoder.decode(fine)) != nil)
    }

    @Test func decodeItemStopsAfterOneItem() throws {
        var decoder = CBORDecoder(hex("a10102") + [0xde, 0xad])
        #expect(try decoder.decodeItem() == .map([CBORMapEntry(.int(1), .int(2))]))
        #expect(decoder.offset == 3)
    }
}
