import AuthHub
import Crypto
import Foundation
import Testing

/// The spec's vectors (spec/turnkey.md §8.4, §8.6) checked with the same decoding the emulator
/// tests use, so those tests read bundles and JWTs the way Turnkey's own clients do.
@Suite struct TurnkeyVectorTests {
    @Test func credentialBundleVectorDecrypts() throws {
        let bundle = "w99a5xV6A75TfoAUkZn869fVyDYvgVsKrawMALZXmrauZd8hEv66EkPU1Z42CUaHESQjcA5bqd8dynTGBMLWB9ewtXWPEVbZvocB4Tw2K1vQVp7uwjf"
        let receiver = try P256.KeyAgreement.PrivateKey(
            rawRepresentation: TurnkeyWire.fromHex("20fa65df11f24833790ae283fc9a0c215eecbbc589549767977994dc69d05a56")
        )
        let payload = try #require(Base58Check.decode(bundle))
        #expect(payload.count == 81)
        #expect(TurnkeyWire.hex(payload.prefix(33)) == "02f7451e4e321118b347611373e73386450021b89862d1dbad7c21aad931b3c828")
        let enc = try P256.KeyAgreement.PublicKey(compressedRepresentation: payload.prefix(33)).x963Representation
        var recipient = try HPKE.Recipient(
            privateKey: receiver, ciphersuite: HPKE.Ciphersuite(kem: .P256_HKDF_SHA256, kdf: .HKDF_SHA256, aead: .AES_GCM_256),
            info: Data("turnkey_hpke".utf8), encapsulatedKey: enc
        )
        let plaintext = try recipient.open(Data(payload.dropFirst(33)), authenticating: enc + receiver.publicKey.x963Representation)
        #expect(TurnkeyWire.hex(plaintext) == "67ee05fc3bdf4161bc70701c221d8d77180294cefcfcea64ba83c4d4c732fcb9")
        #expect(Base58Check.decode(bundle.replacingOccurrences(of: "w99", with: "w98")) == nil, "checksum is checked")
    }

    @Test func sessionJWTVectorVerifiesPrehashed() throws {
        let jwt = "eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCJ9.eyJleHAiOjE3NDg4NzY4MzcsInB1YmxpY19rZXkiOiIwMzk5ZmUyYWNlNjIwOGFmMGFkZjg0OGY0NGJjNDgyMTBiNTk0YjdlNjllY2Q5MWVjOTY4ZmQ3NWIzYmI0NDgzMzYiLCJzZXNzaW9uX3R5cGUiOiJTRVNTSU9OX1RZUEVfUkVBRF9XUklURSIsInVzZXJfaWQiOiI2OTEyYjgxOS1mNGRmLTQwZjQtYTE5Mi0yMGVlNDMwOTA5NzQiLCJvcmdhbml6YXRpb25faWQiOiJjNzVlY2IwNy1jODRhLTRkZDUtOTMyYy01MzlkZmFmYzY4NjQifQ.y6LPW1jlTwc9jFcvCwKJoKfleL_vHnGUr5tRVdMFUCnHvDspSPZ3DWK85tf1znCCBFQ6MYaFOl-1FLb0KcFxqQ"
        let notarizer = try P256.Signing.PublicKey(x963Representation: TurnkeyWire.fromHex(
            "04d498aa87ac3bf982ac2b5dd9604d0074905cfbda5d62727c5a237b895e6749205e9f7cd566909c4387f6ca25c308445c60884b788560b785f4a96ac33702a469"
        ))
        let parts = jwt.split(separator: ".").map(String.init)
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: try #require(Base64URL.decode(parts[2])))
        let input = Array((parts[0] + "." + parts[1]).utf8)
        #expect(notarizer.isValidSignature(signature, for: SHA256.hash(data: Array(SHA256.hash(data: input)))))
        #expect(!notarizer.isValidSignature(signature, for: SHA256.hash(data: input)))
    }
}
