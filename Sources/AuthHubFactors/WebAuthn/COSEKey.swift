import AuthHub
import Crypto
import Foundation
import _CryptoExtras

/// A credential public key in COSE_Key form (RFC 9052/9053), as authenticators embed it in
/// attested credential data: EC2 (P-256/384/521), OKP (Ed25519) or RSA.
public struct COSEKey: Sendable, Hashable {
    /// The key material.
    public enum Material: Sendable, Hashable {
        /// An elliptic-curve point; curve 1 = P-256, 2 = P-384, 3 = P-521.
        case ec2(curve: Int, x: [UInt8], y: [UInt8])
        /// An octet key pair; curve 6 = Ed25519.
        case okp(curve: Int, x: [UInt8])
        /// An RSA public key (modulus and exponent, big-endian).
        case rsa(n: [UInt8], e: [UInt8])
    }

    /// The signature algorithm the key is for (label 3).
    public var algorithm: COSEAlgorithm
    /// The key material.
    public var material: Material

    /// Creates a key.
    public init(algorithm: COSEAlgorithm, material: Material) {
        self.algorithm = algorithm
        self.material = material
    }

    /// The COSE_Key of a P-256 key for ES256.
    public init(p256 key: P256.Signing.PublicKey) {
        let point = [UInt8](key.x963Representation)
        self.init(algorithm: .es256, material: .ec2(curve: 1, x: Array(point[1...32]), y: Array(point[33...64])))
    }

    /// Reads a COSE_Key map.
    /// - Throws: ``AuthErrorCode/webAuthnMalformedResponse`` for a map that is not a well-formed
    ///   key, ``AuthErrorCode/webAuthnUnsupportedAlgorithm`` for a key type or curve not supported.
    public init(cbor: CBORValue) throws {
        guard cbor.mapValue != nil else { throw COSEKey.malformed("the credential public key is not a CBOR map") }
        guard let kty = cbor[int: 1]?.intValue else { throw COSEKey.malformed("the credential public key has no kty") }
        guard let alg = cbor[int: 3]?.intValue else { throw COSEKey.malformed("the credential public key has no alg") }
        self.algorithm = COSEAlgorithm(rawValue: alg)
        switch kty {
        case 2:
            guard let crv = cbor[int: -1]?.intValue, let x = cbor[int: -2]?.bytesValue, let y = cbor[int: -3]?.bytesValue else {
                throw COSEKey.malformed("the EC2 key needs crv, x and y")
            }
            self.material = .ec2(curve: crv, x: x, y: y)
        case 1:
            guard let crv = cbor[int: -1]?.intValue, let x = cbor[int: -2]?.bytesValue else {
                throw COSEKey.malformed("the OKP key needs crv and x")
            }
            self.material = .okp(curve: crv, x: x)
        case 3:
            guard let n = cbor[int: -1]?.bytesValue, let e = cbor[int: -2]?.bytesValue else {
                throw COSEKey.malformed("the RSA key needs n and e")
            }
            self.material = .rsa(n: n, e: e)
        default:
            throw AuthError(.webAuthnUnsupportedAlgorithm, message: "COSE key type \(kty) is not supported.")
        }
        try checkAlgorithmMatchesKey()
    }

    /// Reads a CBOR-encoded COSE_Key.
    public init(bytes: [UInt8]) throws {
        let value: CBORValue
        do { value = try CBORDecoder.decode(bytes) } catch let error as AuthError {
            throw COSEKey.malformed(error.message)
        }
        try self.init(cbor: value)
    }

    /// The COSE_Key map.
    public var cbor: CBORValue {
        switch material {
        case .ec2(let curve, let x, let y):
            .map([CBORMapEntry(.int(1), .int(2)), CBORMapEntry(.int(3), .int(algorithm.rawValue)),
                  CBORMapEntry(.int(-1), .int(curve)), CBORMapEntry(.int(-2), .bytes(x)), CBORMapEntry(.int(-3), .bytes(y))])
        case .okp(let curve, let x):
            .map([CBORMapEntry(.int(1), .int(1)), CBORMapEntry(.int(3), .int(algorithm.rawValue)),
                  CBORMapEntry(.int(-1), .int(curve)), CBORMapEntry(.int(-2), .bytes(x))])
        case .rsa(let n, let e):
            .map([CBORMapEntry(.int(1), .int(3)), CBORMapEntry(.int(3), .int(algorithm.rawValue)),
                  CBORMapEntry(.int(-1), .bytes(n)), CBORMapEntry(.int(-2), .bytes(e))])
        }
    }

    /// The canonical CBOR encoding of the key.
    public var bytes: [UInt8] { CBOREncoder.encode(cbor) }

    /// The key as SubjectPublicKeyInfo DER (what `getPublicKey()` returns in a browser).
    /// - Throws: ``AuthErrorCode/webAuthnUnsupportedAlgorithm`` or
    ///   ``AuthErrorCode/webAuthnMalformedResponse`` when the key cannot be built.
    public func subjectPublicKeyInfo() throws -> [UInt8] {
        switch try verifier() {
        case .p256(let key): return [UInt8](key.derRepresentation)
        case .p384(let key): return [UInt8](key.derRepresentation)
        case .p521(let key): return [UInt8](key.derRepresentation)
        case .ed25519(let key):
            // SEQUENCE { SEQUENCE { OID 1.3.101.112 }, BIT STRING { key } }
            return [0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00] + [UInt8](key.rawRepresentation)
        case .rsa(let key, _): return [UInt8](key.derRepresentation)
        }
    }

    /// Whether `signature` is a valid signature of `data` by this key under its algorithm.
    ///
    /// ECDSA signatures are DER (as WebAuthn sends them), EdDSA raw, RSA the raw modulus-sized value.
    /// - Throws: ``AuthErrorCode/webAuthnUnsupportedAlgorithm`` for an algorithm or curve AuthHub
    ///   does not implement, ``AuthErrorCode/webAuthnMalformedResponse`` for a key that is not a
    ///   valid point or modulus.
    public func isValidSignature(_ signature: [UInt8], for data: [UInt8]) throws -> Bool {
        switch try verifier() {
        case .p256(let key):
            guard let sig = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(sig, for: data)
        case .p384(let key):
            guard let sig = try? P384.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(sig, for: data)
        case .p521(let key):
            guard let sig = try? P521.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(sig, for: data)
        case .ed25519(let key):
            return key.isValidSignature(signature, for: data)
        case .rsa(let key, let padding):
            return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature),
                                        for: SHA256.hash(data: data), padding: padding)
        }
    }

    private enum Verifier {
        case p256(P256.Signing.PublicKey)
        case p384(P384.Signing.PublicKey)
        case p521(P521.Signing.PublicKey)
        case ed25519(Curve25519.Signing.PublicKey)
        case rsa(_RSA.Signing.PublicKey, _RSA.Signing.Padding)
    }

    private func checkAlgorithmMatchesKey() throws {
        let fits: Bool
        switch (material, algorithm) {
        case (.ec2(let curve, _, _), .es256): fits = curve == 1
        case (.ec2(let curve, _, _), .es384): fits = curve == 2
        case (.ec2(let curve, _, _), .es512): fits = curve == 3
        case (.okp(let curve, _), .edDSA): fits = curve == 6
        case (.rsa, .rs256), (.rsa, .ps256): fits = true
        default:
            throw AuthError(.webAuthnUnsupportedAlgorithm,
                            message: "The credential's algorithm \(algorithm) is not supported for its key type.")
        }
        guard fits else {
            throw AuthError(.webAuthnUnsupportedAlgorithm, message: "The credential's curve does not match its algorithm \(algorithm).")
        }
    }

    private func verifier() throws -> Verifier {
        try checkAlgorithmMatchesKey()
        do {
            switch material {
            case .ec2(let curve, let x, let y):
                let point = [0x04] + x + y
                switch curve {
                case 1: return .p256(try P256.Signing.PublicKey(x963Representation: point))
                case 2: return .p384(try P384.Signing.PublicKey(x963Representation: point))
                default: return .p521(try P521.Signing.PublicKey(x963Representation: point))
                }
            case .okp(_, let x):
                return .ed25519(try Curve25519.Signing.PublicKey(rawRepresentation: x))
            case .rsa(let n, let e):
                return .rsa(try _RSA.Signing.PublicKey(n: n, e: e), algorithm == .ps256 ? .PSS : .insecurePKCS1v1_5)
            }
        } catch {
            throw AuthError(.webAuthnMalformedResponse, message: "The credential public key is not a valid \(algorithm) key.",
                            underlying: error)
        }
    }

    static func malformed(_ text: String) -> AuthError {
        AuthError(.webAuthnMalformedResponse, message: "Malformed credential public key: \(text).")
    }
}
