import AuthHub
@testable import AuthHubFactors
import Crypto
import Foundation
import Testing
import _CryptoExtras

@Suite struct COSEKeyTests {
    private let message = Array("authenticator data || client data hash".utf8)

    @Test func es256KeysRoundTripAndVerify() throws {
        let key = P256.Signing.PrivateKey()
        let cose = COSEKey(p256: key.publicKey)
        let decoded = try COSEKey(bytes: cose.bytes)
        #expect(decoded == cose)
        #expect(try decoded.subjectPublicKeyInfo() == Array(key.publicKey.derRepresentation))
        let signature = Array(try key.signature(for: message).derRepresentation)
        #expect(try decoded.isValidSignature(signature, for: message))
        #expect(try !decoded.isValidSignature(signature, for: message + [0]))
        #expect(try !decoded.isValidSignature([0x30, 0x00], for: message))
    }

    @Test func es384AndEs512Verify() throws {
        let p384 = P384.Signing.PrivateKey()
        let point384 = Array(p384.publicKey.x963Representation)
        let key384 = COSEKey(algorithm: .es384, material: .ec2(curve: 2, x: Array(point384[1...48]), y: Array(point384[49...])))
        #expect(try COSEKey(bytes: key384.bytes).isValidSignature(Array(try p384.signature(for: message).derRepresentation), for: message))

        let p521 = P521.Signing.PrivateKey()
        let point521 = Array(p521.publicKey.x963Representation)
        let key521 = COSEKey(algorithm: .es512, material: .ec2(curve: 3, x: Array(point521[1...66]), y: Array(point521[67...])))
        #expect(try COSEKey(bytes: key521.bytes).isValidSignature(Array(try p521.signature(for: message).derRepresentation), for: message))
    }

    @Test func edDSAKeysVerifyAndExportSPKI() throws {
        let key = Curve25519.Signing.PrivateKey()
        let cose = COSEKey(algorithm: .edDSA, material: .okp(curve: 6, x: Array(key.publicKey.rawRepresentation)))
        let decoded = try COSEKey(bytes: cose.bytes)
        #expect(try decoded.isValidSignature(Array(try key.signature(for: message)), for: message))
        #expect(try !decoded.isValidSignature(Array(try key.signature(for: message + [1])), for: message))
        let spki = try decoded.subjectPublicKeyInfo()
        #expect(spki.count == 44 && Array(spki.suffix(32)) == Array(key.publicKey.rawRepresentation))
    }

    @Test(arguments: [COSEAlgorithm.rs256, .ps256])
    func rsaKeysVerifyWithTheirPadding(algorithm: COSEAlgorithm) throws {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let components = try key.publicKey.getKeyPrimitives()
        let cose = COSEKey(algorithm: algorithm, material: .rsa(n: Array(components.modulus), e: Array(components.publicExponent)))
        let decoded = try COSEKey(bytes: cose.bytes)
        let padding: _RSA.Signing.Padding = algorithm == .ps256 ? .PSS : .insecurePKCS1v1_5
        let signature = Array(try key.signature(for: SHA256.hash(data: message), padding: padding).rawRepresentation)
        #expect(try decoded.isValidSignature(signature, for: message))
        let otherPadding: _RSA.Signing.Padding = algorithm == .ps256 ? .insecurePKCS1v1_5 : .PSS
        let wrong = Array(try key.signature(for: SHA256.hash(data: message), padding: otherPadding).rawRepresentation)
        #expect(try !decoded.isValidSignature(wrong, for: message))
        #expect(try decoded.subjectPublicKeyInfo() == Array(key.publicKey.derRepresentation))
    }

    @Test(arguments: [
        // kty, alg, params -> expected code
        (CBORValue.map([CBORMapEntry(.int(3), .int(-7))]), AuthErrorCode.webAuthnMalformedResponse),
        (.map([CBORMapEntry(.int(1), .int(2))]), .webAuthnMalformedResponse),
        (.map([CBORMapEntry(.int(1), .int(2)), CBORMapEntry(.int(3), .int(-7)), CBORMapEntry(.int(-1), .int(1))]), .webAuthnMalformedResponse),
        (.map([CBORMapEntry(.int(1), .int(4)), CBORMapEntry(.int(3), .int(-7))]), .webAuthnUnsupportedAlgorithm),
        (.map([CBORMapEntry(.int(1), .int(2)), CBORMapEntry(.int(3), .int(-7)), CBORMapEntry(.int(-1), .int(2)),
               CBORMapEntry(.int(-2), .bytes([1])), CBORMapEntry(.int(-3), .bytes([2]))]), .webAuthnUnsupportedAlgorithm),
        (.map([CBORMapEntry(.int(1), .int(1)), CBORMapEntry(.int(3), .int(-7)), CBORMapEntry(.int(-1), .int(6)),
               CBORMapEntry(.int(-2), .bytes([1]))]), .webAuthnUnsupportedAlgorithm),
        (.map([CBORMapEntry(.int(1), .int(2)), CBORMapEntry(.int(3), .int(-260)), CBORMapEntry(.int(-1), .int(1)),
               CBORMapEntry(.int(-2), .bytes([1])), CBORMapEntry(.int(-3), .bytes([2]))]), .webAuthnUnsupportedAlgorithm),
        (.array([]), .webAuthnMalformedResponse),
    ])
    func malformedOrUnsupportedKeysAreRejected(cbor: CBORValue, code: AuthErrorCode) {
        let error = #expect(throws: AuthError.self) { try COSEKey(cbor: cbor) }
        #expect(error?.code == code)
    }

    @Test func aPointOffTheCurveIsMalformed() throws {
        let cose = COSEKey(algorithm: .es256, material: .ec2(curve: 1, x: Array(repeating: 1, count: 32), y: Array(repeating: 2, count: 32)))
        let error = #expect(throws: AuthError.self) { try cose.isValidSignature([0x30, 0x00], for: message) }
        #expect(error?.code == .webAuthnMalformedResponse)
    }
}
