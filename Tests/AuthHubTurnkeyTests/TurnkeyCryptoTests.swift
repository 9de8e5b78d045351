import AuthHub
@_spi(Internals) @testable import AuthHubTurnkey
import Crypto
import Foundation
import Testing

@Suite struct TurnkeyCryptoTests {
    static let credentialBundle = "w99a5xV6A75TfoAUkZn869fVyDYvgVsKrawMALZXmrauZd8hEv66EkPU1Z42CUaHESQjcA5bqd8dynTGBMLWB9ewtXWPEVbZvocB4Tw2K1vQVp7uwjf"
    static let receiverHex = "20fa65df11f24833790ae283fc9a0c215eecbbc589549767977994dc69d05a56"

    static func keyAgreement(_ hex: String) throws -> P256.KeyAgreement.PrivateKey {
        try P256.KeyAgreement.PrivateKey(rawRepresentation: try #require(TurnkeyHex.decode(hex)))
    }

    // MARK: base58check

    @Test func base58CheckDecodesTheCredentialBundle() throws {
        let payload = try Base58Check.decode(Self.credentialBundle)
        #expect(payload.count == 81)
        #expect(TurnkeyHex.encode(payload.prefix(33)) == "02f7451e4e321118b347611373e73386450021b89862d1dbad7c21aad931b3c828")
        #expect(TurnkeyHex.encode(payload.dropFirst(33))
            == "f197bde16393a4b7eafa090f5ac460660a39990a87961a437a8b9757d096c81a93089bd9fc6b3c42be2119c0fe01a69a")
        #expect(Base58Check.encode(payload) == Self.credentialBundle)
    }

    @Test func base58LeadingOnesAreZeroBytes() throws {
        #expect(try Base58Check.decodeBase58("111") == [0, 0, 0])
        #expect(try Base58Check.decodeBase58("1112") == [0, 0, 0, 1])
        #expect(try Base58Check.decodeBase58("") == [])
        #expect(Base58Check.encodeBase58([0, 0, 1]) == "112")
        let payload: [UInt8] = [0, 0, 0xFF, 0x10, 0x00]
        #expect(try Base58Check.decode(Base58Check.encode(payload)) == payload)
    }

    @Test func base58CheckRejectsBadCharactersAndChecksums() throws {
        for bad in ["0abc", "Ol", "I", "abc+", "é"] {
            let error = #expect(throws: AuthError.self) { try Base58Check.decodeBase58(bad) }
            #expect(error?.code == .invalidToken)
            #expect(error?.message.contains("alphabet") == true)
        }
        var tampered = Array(Self.credentialBundle)
        tampered[10] = tampered[10] == "a" ? "b" : "a"
        let error = #expect(throws: AuthError.self) { try Base58Check.decode(String(tampered)) }
        #expect(error?.message.contains("checksum") == true)
        #expect(throws: AuthError(.invalidToken)) { try Base58Check.decode("1") }
    }

    /// Reading (issue 16): base58 decoding is quadratic, so a multi-megabyte "bundle" from a reply
    /// kept a core busy for hours; a text beyond `maximumTextLength` is refused at once.
    @Test(.timeLimit(.minutes(1))) func hugeBase58TextIsRefusedNotDecodedForHours() throws {
        let huge = String(repeating: "z", count: 2_000_000)
        let error = #expect(throws: AuthError.self) { try Base58Check.decodeBase58(huge) }
        #expect(error?.code == .invalidToken)
        #expect(error?.message.contains("at most 4096") == true)
        #expect(throws: AuthError(.invalidToken)) {
            try TurnkeyCredentialBundle.decrypt(huge, receiverPrivateKey: try Self.keyAgreement(Self.receiverHex))
        }
        let longest = String(repeating: "1", count: Base58Check.maximumTextLength)
        #expect(try Base58Check.decodeBase58(longest) == [UInt8](repeating: 0, count: Base58Check.maximumTextLength))
    }

    // MARK: §8.4 credential bundle

    @Test func credentialBundleDecryptsToTheFixtureKey() throws {
        let receiver = try Self.keyAgreement(Self.receiverHex)
        #expect(TurnkeyHex.encode(receiver.publicKey.compressedRepresentation) == "0264fb511728122da3b7b8a449c79d7a9e3fb847f4cbf0efbc6c82f68ada0ae5eb")
        let bytes = try TurnkeyCredentialBundle.decryptBytes(Self.credentialBundle, receiverPrivateKey: receiver)
        #expect(TurnkeyHex.encode(bytes.revealed()) == "67ee05fc3bdf4161bc70701c221d8d77180294cefcfcea64ba83c4d4c732fcb9")
        let key = try TurnkeyCredentialBundle.decrypt(Self.credentialBundle, receiverPrivateKey: receiver)
        #expect(TurnkeyKeys.compressedHex(key.publicKey) == "03bf162576eb8dfecf33d9275d09595284f6c4df0db6156c3c582777886a0ee0ac")
        let encapped = try P256.KeyAgreement.PublicKey(compressedRepresentation: try Base58Check.decode(Self.credentialBundle).prefix(33))
        #expect(TurnkeyKeys.uncompressedHex(encapped)
            == "04f7451e4e321118b347611373e73386450021b89862d1dbad7c21aad931b3c8284127c18585433264f8498af0df85043c0470dcde35273577a97c66584c28e446")
    }

    @Test func credentialBundleFailures() throws {
        let receiver = try Self.keyAgreement(Self.receiverHex)
        // Wrong receiver key.
        #expect(throws: AuthError(.invalidToken)) {
            try TurnkeyCredentialBundle.decrypt(Self.credentialBundle, receiverPrivateKey: P256.KeyAgreement.PrivateKey())
        }
        // Too short: a valid base58check of 33 bytes.
        let short = Base58Check.encode(Array(try Base58Check.decode(Self.credentialBundle).prefix(33)))
        let error = #expect(throws: AuthError.self) { try TurnkeyCredentialBundle.decrypt(short, receiverPrivateKey: receiver) }
        #expect(error?.message.contains("too short") == true)
        // Tampered ciphertext (checksum recomputed).
        var payload = try Base58Check.decode(Self.credentialBundle)
        payload[40] ^= 1
        #expect(throws: AuthError(.invalidToken)) {
            try TurnkeyCredentialBundle.decrypt(Base58Check.encode(payload), receiverPrivateKey: receiver)
        }
    }

    // MARK: §8.5 export bundle

    static let exportData = "7b22656e6361707065645075626c6963223a2230343434313065633837653566653266666461313561313866613337376132316133633431633334373666383631333362343238306164373631303266343064356462326463353362343730303763636139336166666330613535316464353134333937643039373931636664393233306663613330343862313731663364363738222c2263697068657274657874223a22656662303538626633666634626534653232323330326266326636303738363062343237346232623031616339343536643362613638646135613235363236303030613839383262313465306261663061306465323966353434353461333739613362653664633364386339343938376131353638633764393566396663346239316265663232316165356562383432333361323833323131346431373962646664636631643066376164656231353766343131613439383430222c226f7267616e697a6174696f6e4964223a2266396133316336342d643630342d343265342d396265662d613737333039366166616437227d"
    static let exportSignature = "304502203a7dc258590a637e76f6be6ed1a2080eed5614175060b9073f5e36592bdaf610022100ab9955b603df6cf45408067f652da48551652451b91967bf37dd094d13a7bdd4"
    static let exportOrg = "f9a31c64-d604-42e4-9bef-a773096afad7"
    static let embeddedHex = "ffc6090f14bcf260e5dfe63f45412e60a477bb905956d7cc90195b71c2a544b3"

    static func exportBundle(data: String = exportData, signature: String = exportSignature,
                             quorum: String = TurnkeyExportBundle.productionSignerPublicKeyHex, version: String = "v1.0.0") -> String {
        #"{"version":"\#(version)","data":"\#(data)","dataSignature":"\#(signature)","enclaveQuorumPublic":"\#(quorum)"}"#
    }

    @Test func exportBundleDecryptsToTheMnemonic() throws {
        let mnemonic = try TurnkeyExportBundle.decryptMnemonic(Self.exportBundle(), organizationId: Self.exportOrg,
                                                              embeddedPrivateKey: try Self.keyAgreement(Self.embeddedHex))
        #expect(mnemonic.revealed() == "leaf lady until indicate praise final route toast cake minimum insect unknown")
        let bytes = try TurnkeyExportBundle.decryptBytes(Self.exportBundle(), organizationId: Self.exportOrg,
                                                        embeddedPrivateKey: try Self.keyAgreement(Self.embeddedHex))
        #expect(TurnkeyHex.encode(bytes.revealed()) == "6c656166206c61647920756e74696c20696e646963617465207072616973652066696e616c20726f75746520746f6173742063616b65206d696e696d756d20696e7365637420756e6b6e6f776e")
    }

    @Test func tamperedExportBundlesAreRejected() throws {
        let key = try Self.keyAgreement(Self.embeddedHex)
        func reason(_ bundle: String, org: String = Self.exportOrg) -> String? {
            #expect(throws: AuthError.self) { try TurnkeyExportBundle.decryptMnemonic(bundle, organizationId: org, embeddedPrivateKey: key) }
            do { _ = try TurnkeyExportBundle.decryptMnemonic(bundle, organizationId: org, embeddedPrivateKey: key) } catch let e as AuthError {
                #expect(e.code == .invalidToken)
                return e.message
            } catch { return nil }
            return nil
        }
        // Data changed by one nibble.
        var data = Array(Self.exportData)
        data[20] = data[20] == "3" ? "4" : "3"
        #expect(reason(Self.exportBundle(data: String(data)))?.contains("dataSignature") == true)
        // Signature changed.
        var signature = Array(Self.exportSignature)
        signature[20] = signature[20] == "a" ? "b" : "a"
        #expect(reason(Self.exportBundle(signature: String(signature)))?.contains("dataSignature") == true)
        // Another organization.
        #expect(reason(Self.exportBundle(), org: "00000000-0000-4000-8000-000000000009")?.contains("organizationId") == true)
        // Not the production signer.
        let other = TurnkeyHex.encode(P256.Signing.PrivateKey().publicKey.x963Representation)
        #expect(reason(Self.exportBundle(quorum: other))?.contains("enclaveQuorumPublic") == true)
        #expect(reason(Self.exportBundle(version: "v2"))?.contains("version") == true)
        #expect(reason("<html>")?.contains("JSON") == true)
        // Wrong embedded key.
        #expect(throws: AuthError(.invalidToken)) {
            try TurnkeyExportBundle.decryptMnemonic(Self.exportBundle(), organizationId: Self.exportOrg,
                                                   embeddedPrivateKey: P256.KeyAgreement.PrivateKey())
        }
    }

    // MARK: §8.6 session JWT

    static let specJWT = "eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCJ9.eyJleHAiOjE3NDg4NzY4MzcsInB1YmxpY19rZXkiOiIwMzk5ZmUyYWNlNjIwOGFmMGFkZjg0OGY0NGJjNDgyMTBiNTk0YjdlNjllY2Q5MWVjOTY4ZmQ3NWIzYmI0NDgzMzYiLCJzZXNzaW9uX3R5cGUiOiJTRVNTSU9OX1RZUEVfUkVBRF9XUklURSIsInVzZXJfaWQiOiI2OTEyYjgxOS1mNGRmLTQwZjQtYTE5Mi0yMGVlNDMwOTA5NzQiLCJvcmdhbml6YXRpb25faWQiOiJjNzVlY2IwNy1jODRhLTRkZDUtOTMyYy01MzlkZmFmYzY4NjQifQ.y6LPW1jlTwc9jFcvCwKJoKfleL_vHnGUr5tRVdMFUCnHvDspSPZ3DWK85tf1znCCBFQ6MYaFOl-1FLb0KcFxqQ"

    @Test func specSessionJWTDecodesAndVerifiesWithTheProductionNotarizer() throws {
        let jwt = try TurnkeySessionJWT(Secret(Self.specJWT))
        #expect(jwt.expiresAt == Date(timeIntervalSince1970: 1_748_876_837))
        #expect(jwt.publicKey == "0399fe2ace6208af0adf848f44bc48210b594b7e69ecd91ec968fd75b3bb448336")
        #expect(jwt.sessionType == "SESSION_TYPE_READ_WRITE")
        #expect(jwt.userId == "6912b819-f4df-40f4-a192-20ee43090974")
        #expect(jwt.organizationId == "c75ecb07-c84a-4dd5-932c-539dfafc6864")
        let notarizer = try TurnkeyKeys.signingPublicKey(hex: TurnkeySessionJWT.productionNotarizerPublicKeyHex)
        try jwt.verifySignature(notarizerPublicKey: notarizer)
        // Plain ES256 (single SHA-256) does not verify.
        let parts = Self.specJWT.split(separator: ".")
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: try #require(Base64URL.decode(String(parts[2]))))
        #expect(!notarizer.isValidSignature(signature, for: SHA256.hash(data: Array("\(parts[0]).\(parts[1])".utf8))))
        // Another key does not verify.
        #expect(throws: AuthError(.invalidToken)) { try jwt.verifySignature(notarizerPublicKey: P256.Signing.PrivateKey().publicKey) }
    }

    @Test func tamperedSessionJWTFails() throws {
        let notarizer = try TurnkeyKeys.signingPublicKey(hex: TurnkeySessionJWT.productionNotarizerPublicKeyHex)
        let parts = Self.specJWT.split(separator: ".").map(String.init)
        // Payload with another user, same signature.
        var payload = try JSONValue.parse(try #require(Base64URL.decode(parts[1]))).objectValue ?? [:]
        payload["user_id"] = "00000000-0000-0000-0000-000000000000"
        let forged = "\(parts[0]).\(Base64URL.encode(try JSONEncoder().encode(JSONValue.object(payload)))).\(parts[2])"
        let error = #expect(throws: AuthError.self) { try TurnkeySessionJWT(Secret(forged)).verifySignature(notarizerPublicKey: notarizer) }
        #expect(error?.code == .invalidToken)
        #expect(error?.message.contains("notarizer") == true)
        // Signature bit flipped.
        var sig = try #require(Base64URL.decode(parts[2]))
        sig[5] ^= 1
        #expect(throws: AuthError(.invalidToken)) {
            try TurnkeySessionJWT(Secret("\(parts[0]).\(parts[1]).\(Base64URL.encode(sig))")).verifySignature(notarizerPublicKey: notarizer)
        }
        // Malformed tokens and missing claims.
        #expect(throws: AuthError(.invalidToken)) { try TurnkeySessionJWT(Secret("not-a-jwt")) }
        #expect(throws: AuthError(.invalidToken)) { try TurnkeySessionJWT(Secret("a.b")) }
    }

    @Test func sessionJWTClaimChecksNameTheClaim() throws {
        let key = "0399fe2ace6208af0adf848f44bc48210b594b7e69ecd91ec968fd75b3bb448336"
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let jwt = try TurnkeySessionJWT(Secret(TK.jwt(TK.claims(publicKey: key, exp: now.addingTimeInterval(60)))))
        try jwt.validate(expectedPublicKey: key, expectedOrganizationId: TK.subOrg, now: now)
        try jwt.validate(expectedPublicKey: key, expectedOrganizationId: nil, now: now)
        func message(_ body: () throws -> Void) -> String? {
            do { try body() } catch let e as AuthError { #expect(e.code == .invalidToken); return e.message } catch {}
            return nil
        }
        #expect(message { try jwt.validate(expectedPublicKey: TK.fixturePublic, expectedOrganizationId: nil, now: now) }?.contains("public_key") == true)
        #expect(message { try jwt.validate(expectedPublicKey: key, expectedOrganizationId: TK.parentOrg, now: now) }?.contains("organization_id") == true)
        #expect(message { try jwt.validate(expectedPublicKey: key, expectedOrganizationId: nil, now: now.addingTimeInterval(60)) }?.contains("exp") == true)
        #expect(message { _ = try TurnkeySessionJWT(Secret(TK.jwt(TK.claims(publicKey: key, exp: now, user: nil)))) }?.contains("user_id") == true)
    }

    // MARK: §8.7

    @Test func pkcs8RawScalarOffset() throws {
        let key = P256.Signing.PrivateKey()
        let der = [UInt8](key.derRepresentation)
        #expect(der.prefix(3) == [0x30, 0x81, 0x87])
        #expect(try TurnkeyKeys.rawPrivateKey(fromPKCS8: der).revealed() == [UInt8](key.rawRepresentation))
        #expect(throws: AuthError(.invalidRequest)) { try TurnkeyKeys.rawPrivateKey(fromPKCS8: [0x30]) }
    }

    @Test func hexRoundTrip() {
        #expect(TurnkeyHex.encode([0x00, 0xAB, 0xFF]) == "00abff")
        #expect(TurnkeyHex.decode("00ABff") == [0x00, 0xAB, 0xFF])
        #expect(TurnkeyHex.decode("abc") == nil)
        #expect(TurnkeyHex.decode("zz") == nil)
    }
}
