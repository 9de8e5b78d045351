import AuthHub
@_spi(Internals) @testable import AuthHubTurnkey
import Crypto
import Foundation
import Testing

@Suite struct TurnkeyAPIKeyStamperTests {
    static let pem = """
    -----BEGIN PUBLIC KEY-----
    MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE9zn4x3sy9NXxMmWGH+vXbnqcYaEU
    DSlrjBYwJQiHAxbCSXCteBHM2dp/G4jyAr66x3BmPvWLpoNGGG3XeCAN1A==
    -----END PUBLIC KEY-----
    """

    /// spec §8.1: the stamp over `hello from TKHQ!` has the three keys, the scheme, and a DER hex
    /// signature that verifies with the fixture public key and its PEM.
    @Test func fixtureStampVerifiesWithPublicKeyAndPEM() async throws {
        let stamper = try TurnkeyAPIKeyStamper(privateKeyHex: Secret(TK.fixturePrivate), publicKeyHex: TK.fixturePublic)
        #expect(stamper.publicKey == TK.fixturePublic)
        let body = Array("hello from TKHQ!".utf8)
        #expect(TurnkeyHex.encode(SHA256.hash(data: body)) == "f3f6f5e9a2f761d7b83242faf497a72cfcb72de3b49b773fb9e804ab5c1eda0b")
        let header = try await stamper.stampHeader(body)
        #expect(header.name == "X-Stamp")
        #expect(!header.value.contains("="), "no padding")
        let decoded = try JSONValue.parse(try #require(Base64URL.decode(header.value)))
        #expect(decoded.objectValue.map { Set($0.keys) } == ["publicKey", "scheme", "signature"])
        #expect(decoded["scheme"] == "SIGNATURE_SCHEME_TK_API_P256")
        #expect(decoded["publicKey"] == .string(TK.fixturePublic))
        let signatureHex = try #require(decoded["signature"]?.stringValue)
        #expect(signatureHex == signatureHex.lowercased())
        let signature = try P256.Signing.ECDSASignature(derRepresentation: try #require(TurnkeyHex.decode(signatureHex)))
        let fromPEM = try P256.Signing.PublicKey(pemRepresentation: Self.pem)
        let fromHex = try P256.Signing.PublicKey(compressedRepresentation: try #require(TurnkeyHex.decode(TK.fixturePublic)))
        #expect(fromPEM.isValidSignature(signature, for: SHA256.hash(data: body)))
        #expect(fromHex.isValidSignature(signature, for: SHA256.hash(data: body)))
        #expect(!fromPEM.isValidSignature(signature, for: SHA256.hash(data: Array("hello from TKHQ?".utf8))))
        #expect(TurnkeyHex.encode(fromPEM.x963Representation)
            == "04f739f8c77b32f4d5f13265861febd76e7a9c61a1140d296b8c16302508870316c24970ad7811ccd9da7f1b88f202bebac770663ef58ba68346186dd778200dd4")
        // The RFC 6979 signature printed in §8.1 verifies too.
        let printed = try P256.Signing.ECDSASignature(derRepresentation: try #require(TurnkeyHex.decode(
            "3046022100b9d0146ae33c9b5b8905a910d916845525aea5c0d96f15be05731951b4559353022100b03f26581a4a6f3a5f11eb01556ba32980a8a1c4fad672a8c6e63da398e95beb")))
        #expect(fromPEM.isValidSignature(printed, for: SHA256.hash(data: body)))
    }

    /// spec §3.1: the SDK refuses to sign when the private key does not derive the configured public key.
    @Test func mismatchedKeyPairIsRefused() throws {
        let other = "03bf162576eb8dfecf33d9275d09595284f6c4df0db6156c3c582777886a0ee0ac"
        let error = #expect(throws: AuthError.self) {
            try TurnkeyAPIKeyStamper(privateKeyHex: Secret(TK.fixturePrivate), publicKeyHex: other)
        }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message.contains("does not belong") == true)
        #expect(error?.message.contains(TK.fixturePrivate) == false, "never the private key")
        for bad in ["", "zz", String(repeating: "0", count: 64), String(TK.fixturePrivate.dropLast(2))] {
            #expect(throws: AuthError(.invalidConfiguration)) { try TurnkeyAPIKeyStamper(privateKeyHex: Secret(bad)) }
        }
        // Upper-case configured public key is the same key.
        #expect(try TurnkeyAPIKeyStamper(privateKeyHex: Secret(TK.fixturePrivate), publicKeyHex: TK.fixturePublic.uppercased()).publicKey == TK.fixturePublic)
        #expect(!"\(try TurnkeyAPIKeyStamper(privateKeyHex: Secret(TK.fixturePrivate)))".contains(TK.fixturePrivate))
    }

    /// spec §10: the X-Stamp example's JSON and base64url.
    @Test func worked10Example() throws {
        let stamp = TurnkeyAPIStamp(publicKey: TK.fixturePublic, scheme: "SIGNATURE_SCHEME_TK_API_P256",
                                    signature: "3046022100b9d0146ae33c9b5b8905a910d916845525aea5c0d96f15be05731951b4559353022100b03f26581a4a6f3a5f11eb01556ba32980a8a1c4fad672a8c6e63da398e95beb")
        #expect(stamp.json == #"{"publicKey":"02f739f8c77b32f4d5f13265861febd76e7a9c61a1140d296b8c16302508870316","scheme":"SIGNATURE_SCHEME_TK_API_P256","signature":"3046022100b9d0146ae33c9b5b8905a910d916845525aea5c0d96f15be05731951b4559353022100b03f26581a4a6f3a5f11eb01556ba32980a8a1c4fad672a8c6e63da398e95beb"}"#)
        #expect(stamp.headerValue == "eyJwdWJsaWNLZXkiOiIwMmY3MzlmOGM3N2IzMmY0ZDVmMTMyNjU4NjFmZWJkNzZlN2E5YzYxYTExNDBkMjk2YjhjMTYzMDI1MDg4NzAzMTYiLCJzY2hlbWUiOiJTSUdOQVRVUkVfU0NIRU1FX1RLX0FQSV9QMjU2Iiwic2lnbmF0dXJlIjoiMzA0NjAyMjEwMGI5ZDAxNDZhZTMzYzliNWI4OTA1YTkxMGQ5MTY4NDU1MjVhZWE1YzBkOTZmMTViZTA1NzMxOTUxYjQ1NTkzNTMwMjIxMDBiMDNmMjY1ODFhNGE2ZjNhNWYxMWViMDE1NTZiYTMyOTgwYThhMWM0ZmFkNjcyYThjNmU2M2RhMzk4ZTk1YmViIn0")
        #expect(try TurnkeyAPIStamp(headerValue: stamp.headerValue) == stamp)
    }

    /// spec §8.2: base64url of a stamp JSON, no padding; `hello` → `aGVsbG8`.
    @Test func base64URLVectors() {
        let input = #"{"publicKey":"02f739f8c77b32f4d5f13265861febd76e7a9c61a1140d296b8c16302508870316","signature":"304402202a92c24e4b4de3cdb5c05a2b1f42264ba8139cf66b2d1ecf0a09987ab9a2fecb02203bfd91d8c5e87f78da8b5cf5ddb27c96cb00b848797d0fc73bf371892c423f81","scheme":"SIGNATURE_SCHEME_TK_API_P256"}"#
        #expect(Base64URL.encode(Array(input.utf8)) == "eyJwdWJsaWNLZXkiOiIwMmY3MzlmOGM3N2IzMmY0ZDVmMTMyNjU4NjFmZWJkNzZlN2E5YzYxYTExNDBkMjk2YjhjMTYzMDI1MDg4NzAzMTYiLCJzaWduYXR1cmUiOiIzMDQ0MDIyMDJhOTJjMjRlNGI0ZGUzY2RiNWMwNWEyYjFmNDIyNjRiYTgxMzljZjY2YjJkMWVjZjBhMDk5ODdhYjlhMmZlY2IwMjIwM2JmZDkxZDhjNWU4N2Y3OGRhOGI1Y2Y1ZGRiMjdjOTZjYjAwYjg0ODc5N2QwZmM3M2JmMzcxODkyYzQyM2Y4MSIsInNjaGVtZSI6IlNJR05BVFVSRV9TQ0hFTUVfVEtfQVBJX1AyNTYifQ")
        #expect(Base64URL.encode(Array("hello".utf8)) == "aGVsbG8")
    }

    /// The stamp header value is redacted by the core log redactor, for both stamp headers.
    @Test func stampHeadersAreRedactedInLogs() {
        #expect(Redactor.isSensitive("X-Stamp"))
        #expect(Redactor.isSensitive("X-Stamp-WebAuthn"))
        #expect(Redactor.isSensitive("x-stamp-webauthn"))
        let rendered = Redactor.headers([HTTPField.Name.constant("X-Stamp"): "eyJzZWNyZXQ", HTTPField.Name.constant("X-Stamp-WebAuthn"): "{\"signature\":\"abc\"}", .contentType: "application/json"])
        #expect(!rendered.contains("eyJzZWNyZXQ"))
        #expect(!rendered.contains("abc"))
        #expect(rendered.contains("application/json"))
    }
}

@Suite struct TurnkeyAPIKeyStamperRedactionTests {
    /// Neither `description` nor `dump` shows the private key (spec §8.1 fixture).
    @Test func privateKeyNeverPrints() throws {
        let stamper = try TurnkeyAPIKeyStamper(privateKeyHex: Secret(TK.fixturePrivate), publicKeyHex: TK.fixturePublic)
        var dumped = ""
        dump(stamper, to: &dumped)
        for text in [dumped, "\(stamper)", String(reflecting: stamper)] {
            #expect(!text.contains(TK.fixturePrivate), "\(text)")
        }
        #expect(dumped.contains(TK.fixturePublic) && dumped.contains("<redacted>"), "\(dumped)")
    }
}
