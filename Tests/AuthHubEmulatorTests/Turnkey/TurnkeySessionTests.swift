import AuthHub
import AuthHubEmulator
import AuthHubFactors
import AuthHubTesting
import Crypto
import Foundation
import Testing

@Suite struct TurnkeySessionTests {
    @Test func passkeyStampLoginIssuesANotarizedSessionJWT() async throws {
        let wire = try await TurnkeyWire.start()
        let user = try await wire.register("login@example.com")
        let (reply, key) = try await wire.passkeyLogin(user)
        // With the parent organization id, the passkey's sub-organization is resolved.
        let (viaParent, parentKey) = try await wire.passkeyLogin(user, organizationId: TurnkeyWire.parent)
        let notarizer = try await wire.hook(.get, "notarizer")
        let whoami = try await wire.whoami(user.organizationId, key: key)
        let whoamiParent = try await wire.whoami(TurnkeyWire.parent, key: parentKey)
        let activityId = try #require(reply.activity?["id"]?.stringValue)
        let getBody = try TurnkeyWire.bytes(["organizationId": .string(user.organizationId), "activityId": .string(activityId)])
        let fetched = try await wire.post("query/get_activity", body: getBody, stamp: try TurnkeyWire.apiStamp(getBody, key: key))
        await wire.emulator.stop()

        #expect(reply.status == 200)
        let activity = try #require(reply.activity)
        #expect(activity["status"] == "ACTIVITY_STATUS_COMPLETED")
        #expect(activity["type"] == "ACTIVITY_TYPE_STAMP_LOGIN")
        #expect(activity["organizationId"] == .string(user.organizationId))
        #expect(activity["intent"]?["stampLoginIntent"]?["publicKey"] == .string(TurnkeyWire.hex(key.publicKey.compressedRepresentation)))
        #expect(activity["votes"] == [] && activity["canApprove"] == false && activity["canReject"] == false)
        #expect(activity["createdAt"]?["seconds"]?.stringValue != nil && activity["createdAt"]?["nanos"]?.stringValue != nil)
        #expect(activity["fingerprint"]?.stringValue?.isEmpty == false)
        let jwt = try #require(activity["result"]?["stampLoginResult"]?["session"]?.stringValue)
        let parts = jwt.split(separator: ".").map(String.init)
        #expect(try JSONValue.parse(try #require(Base64URL.decode(parts[0]))) == ["alg": "ES256", "typ": "JWT"])
        let claims = try TurnkeyWire.claims(jwt)
        #expect(claims["public_key"] == .string(TurnkeyWire.hex(key.publicKey.compressedRepresentation)))
        #expect(claims["session_type"] == "SESSION_TYPE_READ_WRITE")
        #expect(claims["user_id"] == .string(user.userId))
        #expect(claims["organization_id"] == .string(user.organizationId))
        let exp = try #require(claims["exp"]?.doubleValue)
        #expect(exp == (wire.clock.now.timeIntervalSince1970 + 900).rounded(.down))
        // Signature: raw r||s over SHA256(SHA256(header.payload)), prehashed, with the notarizer key.
        let notarizerKey = try P256.Signing.PublicKey(
            x963Representation: TurnkeyWire.fromHex(try #require(notarizer["publicKey"]?.stringValue))
        )
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: try #require(Base64URL.decode(parts[2])))
        let digest = SHA256.hash(data: Array(SHA256.hash(data: Array((parts[0] + "." + parts[1]).utf8))))
        #expect(notarizerKey.isValidSignature(signature, for: digest))
        #expect(!notarizerKey.isValidSignature(signature, for: SHA256.hash(data: Array((parts[0] + "." + parts[1]).utf8))))

        #expect(viaParent.status == 200)
        #expect(try TurnkeyWire.claims(try #require(viaParent.activity?["result"]?["stampLoginResult"]?["session"]?.stringValue))["organization_id"]
            == .string(user.organizationId))
        #expect(whoami.status == 200)
        #expect(whoami.json == [
            "organizationId": .string(user.organizationId), "organizationName": "Sub-organization of login@example.com",
            "userId": .string(user.userId), "username": "login@example.com",
        ])
        #expect(whoamiParent["organizationId"] == .string(user.organizationId))
        #expect(fetched.status == 200 && fetched.activity == activity)
    }

    @Test func passkeyStampsAreCheckedForReal() async throws {
        let wire = try await TurnkeyWire.start()
        let user = try await wire.register("strict@example.com")
        let key = P256.Signing.PrivateKey()
        let body = try wire.stampLoginBody(organizationId: user.organizationId, publicKey: TurnkeyWire.hex(key.publicKey.compressedRepresentation))
        let stamp = try await TurnkeyWire.passkeyStamp(body, passkey: user.passkey)
        var modified = body
        modified.append(contentsOf: Array(" ".utf8))
        let tampered = try await wire.post("submit/stamp_login", body: modified, stamp: stamp)
        // An authenticator whose credential was never registered with the emulator.
        let stranger = try TurnkeyWire.authenticator()
        _ = try await TurnkeyWire.registrationBody(email: "stranger@example.com", passkey: stranger)
        let unknown = try await wire.post("submit/stamp_login", body: body, stamp: try await TurnkeyWire.passkeyStamp(body, passkey: stranger))
        // Another user's passkey is not registered in this sub-organization.
        let other = try await wire.register("other@example.com")
        let foreign = try await wire.post("submit/stamp_login", body: body, stamp: try await TurnkeyWire.passkeyStamp(body, passkey: other.passkey))
        let good = try await wire.post("submit/stamp_login", body: body, stamp: stamp)
        // The same assertion again: the signature counter did not move.
        let replay = try await wire.post("submit/stamp_login", body: body, stamp: stamp)
        // The passkey signs for another RP ID than the configured one.
        _ = try await wire.hook(.patch, "config", ["rpId": "example.com"])
        let wrongRp = try await wire.post("submit/stamp_login", body: body, stamp: try await TurnkeyWire.passkeyStamp(body, passkey: user.passkey))
        await wire.emulator.stop()

        #expect(tampered.status == 401 && tampered.code == 16)
        #expect(tampered.message?.contains("invalid stamp") == true)
        #expect(unknown.status == 401 && unknown.code == 16)
        #expect(unknown.message == "could not find public key in organization or its parent organization")
        #expect(foreign.status == 401 && foreign.message == "could not find public key in organization or its parent organization")
        #expect(good.status == 200 && good.activity?["status"] == "ACTIVITY_STATUS_COMPLETED")
        #expect(replay.status == 401 && replay.code == 16 && replay.message?.contains("invalid stamp") == true)
        #expect(wrongRp.status == 401 && wrongRp.message?.contains("invalid stamp") == true)
    }

    @Test func sessionKeysExpireAndRenew() async throws {
        let wire = try await TurnkeyWire.start()
        let user = try await wire.register("renew@example.com")
        let (login, key) = try await wire.passkeyLogin(user, expirationSeconds: "600")
        let fresh = try await wire.whoami(user.organizationId, key: key)
        // Renewal before expiry: stamp_login X-Stamped by the current session key.
        wire.clock.advance(by: 500)
        let next = P256.Signing.PrivateKey()
        let renewBody = try wire.stampLoginBody(organizationId: user.organizationId, publicKey: TurnkeyWire.hex(next.publicKey.compressedRepresentation))
        let renewed = try await wire.post("submit/stamp_login", body: renewBody, stamp: try TurnkeyWire.apiStamp(renewBody, key: key))
        wire.clock.advance(by: 101)
        let expired = try await wire.whoami(user.organizationId, key: key)
        let stillFresh = try await wire.whoami(user.organizationId, key: next)
        let lateBody = try wire.stampLoginBody(organizationId: user.organizationId, publicKey: TurnkeyWire.hex(P256.Signing.PrivateKey().publicKey.compressedRepresentation))
        let lateRenew = try await wire.post("submit/stamp_login", body: lateBody, stamp: try TurnkeyWire.apiStamp(lateBody, key: key))
        // A bad signature with a registered key is an invalid stamp, not an unknown key.
        let whoamiBody = try TurnkeyWire.bytes(["organizationId": .string(user.organizationId)])
        let otherBody = try TurnkeyWire.bytes(["organizationId": .string(user.organizationId), "x": 1])
        let badSignature = try await wire.post("query/whoami", body: whoamiBody, stamp: try TurnkeyWire.apiStamp(otherBody, key: next))
        await wire.emulator.stop()

        #expect(login.status == 200 && fresh.status == 200)
        #expect(renewed.status == 200)
        #expect(expired.status == 401 && expired.code == 17 && expired.message?.contains("expired api key") == true)
        #expect(stillFresh.status == 200)
        #expect(lateRenew.status == 401 && lateRenew.code == 17)
        #expect(badSignature.status == 401 && badSignature.code == 16)
        let message = badSignature.message ?? ""
        #expect(message.contains("invalid stamp signature"))
        #expect(!message.contains("could not find public key") && !message.contains("expired api key"))
    }

    @Test func invalidateExistingDropsTheOtherSessions() async throws {
        let wire = try await TurnkeyWire.start()
        let user = try await wire.register("inval@example.com")
        let (_, first) = try await wire.passkeyLogin(user)
        let (_, second) = try await wire.passkeyLogin(user)
        let third = P256.Signing.PrivateKey()
        let body = try wire.stampLoginBody(
            organizationId: user.organizationId, publicKey: TurnkeyWire.hex(third.publicKey.compressedRepresentation), invalidateExisting: true
        )
        let login = try await wire.post("submit/stamp_login", body: body, stamp: try await TurnkeyWire.passkeyStamp(body, passkey: user.passkey))
        let firstAfter = try await wire.whoami(user.organizationId, key: first)
        let secondAfter = try await wire.whoami(user.organizationId, key: second)
        let thirdAfter = try await wire.whoami(user.organizationId, key: third)
        await wire.emulator.stop()

        #expect(login.status == 200)
        #expect(firstAfter.status == 401 && firstAfter.message == "could not find public key in organization or its parent organization")
        #expect(secondAfter.status == 401 && secondAfter.code == 16)
        #expect(thirdAfter.status == 200)
    }

    @Test func readWriteSessionBundleDecryptsToAWorkingKey() async throws {
        let wire = try await TurnkeyWire.start()
        let user = try await wire.register("bundle@example.com")
        let (_, session) = try await wire.passkeyLogin(user)
        let target = P256.KeyAgreement.PrivateKey()
        let body = try TurnkeyWire.bytes([
            "type": "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2", "timestampMs": .string(wire.timestampMs),
            "organizationId": .string(user.organizationId),
            "parameters": ["targetPublicKey": .string(TurnkeyWire.hex(target.publicKey.x963Representation)), "expirationSeconds": "3600"],
        ])
        let reply = try await wire.post("submit/create_read_write_session", body: body, stamp: try TurnkeyWire.apiStamp(body, key: session))
        let result = try #require(reply.activity?["result"]?["createReadWriteSessionResultV2"])
        let bundle = try #require(result["credentialBundle"]?.stringValue)
        let payload = try #require(Base58Check.decode(bundle))
        #expect(payload.count == 33 + 48)
        let enc = try P256.KeyAgreement.PublicKey(compressedRepresentation: payload.prefix(33)).x963Representation
        let recipient = try HPKE.Recipient(
            privateKey: target, ciphersuite: HPKE.Ciphersuite(kem: .P256_HKDF_SHA256, kdf: .HKDF_SHA256, aead: .AES_GCM_256),
            info: Data("turnkey_hpke".utf8), encapsulatedKey: enc
        )
        var opener = recipient
        let plaintext = try opener.open(Data(payload.dropFirst(33)), authenticating: enc + target.publicKey.x963Representation)
        let apiKey = try P256.Signing.PrivateKey(rawRepresentation: plaintext)
        let whoami = try await wire.whoami(user.organizationId, key: apiKey)
        // Passkey-stamped, to a compressed target key, with the parent organization id.
        let target2 = P256.KeyAgreement.PrivateKey()
        let body2 = try TurnkeyWire.bytes([
            "type": "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2", "timestampMs": .string(wire.timestampMs),
            "organizationId": .string(TurnkeyWire.parent),
            "parameters": ["targetPublicKey": .string(TurnkeyWire.hex(target2.publicKey.compressedRepresentation))],
        ])
        let reply2 = try await wire.post(
            "submit/create_read_write_session", body: body2, stamp: try await TurnkeyWire.passkeyStamp(body2, passkey: user.passkey)
        )
        let result2 = try #require(reply2.activity?["result"]?["createReadWriteSessionResultV2"])
        let bundle2 = try #require(result2["credentialBundle"]?.stringValue)
        let payload2 = try #require(Base58Check.decode(bundle2))
        let enc2 = try P256.KeyAgreement.PublicKey(compressedRepresentation: payload2.prefix(33)).x963Representation
        var recipient2 = try HPKE.Recipient(
            privateKey: target2, ciphersuite: HPKE.Ciphersuite(kem: .P256_HKDF_SHA256, kdf: .HKDF_SHA256, aead: .AES_GCM_256),
            info: Data("turnkey_hpke".utf8), encapsulatedKey: enc2
        )
        let apiKey2 = try P256.Signing.PrivateKey(rawRepresentation: try recipient2.open(
            Data(payload2.dropFirst(33)), authenticating: enc2 + target2.publicKey.x963Representation
        ))
        let whoami2 = try await wire.whoami(user.organizationId, key: apiKey2)
        wire.clock.advance(by: 3_601)
        let expired = try await wire.whoami(user.organizationId, key: apiKey)
        await wire.emulator.stop()

        #expect(reply.status == 200 && reply.activity?["type"] == "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2")
        #expect(result["organizationId"] == .string(user.organizationId) && result["userId"] == .string(user.userId))
        #expect(result["username"] == "bundle@example.com" && result["apiKeyId"]?.stringValue?.isEmpty == false)
        #expect(whoami.status == 200 && whoami["userId"] == .string(user.userId))
        #expect(expired.status == 401 && expired.code == 17)
        #expect(reply2.status == 200 && result2["organizationId"] == .string(user.organizationId))
        #expect(whoami2.status == 200 && whoami2["userId"] == .string(user.userId))
    }
}

/// Base58check decoding for the tests (Bitcoin alphabet, 4-byte double-SHA-256 checksum).
enum Base58Check {
    static let alphabet = Array("123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz")

    static func decode(_ text: String) -> [UInt8]? {
        var bytes: [UInt8] = []  // big-endian
        for character in text {
            guard let digit = alphabet.firstIndex(of: character) else { return nil }
            var carry = digit
            for index in bytes.indices.reversed() {
                carry += Int(bytes[index]) * 58
                bytes[index] = UInt8(carry & 0xFF)
                carry >>= 8
            }
            while carry > 0 {
                bytes.insert(UInt8(carry & 0xFF), at: 0)
                carry >>= 8
            }
        }
        let zeros = text.prefix { $0 == "1" }.count
        let full = Array(repeating: 0, count: zeros) + bytes
        guard full.count > 4 else { return nil }
        let payload = Array(full.dropLast(4))
        let checksum = Array(SHA256.hash(data: Array(SHA256.hash(data: payload)))).prefix(4)
        return Array(full.suffix(4)) == Array(checksum) ? payload : nil
    }
}
