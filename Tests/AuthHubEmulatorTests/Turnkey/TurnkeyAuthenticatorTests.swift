import AuthHub
import AuthHubEmulator
import AuthHubFactors
import AuthHubTesting
import Crypto
import Foundation
import Testing

/// The emulator's authenticator routes (`query/get_authenticators`, `submit/create_authenticators`,
/// `submit/delete_authenticators`) over real HTTP, every request and stamp built by hand.
@Suite struct TurnkeyAuthenticatorTests {
    /// A signed-in user: the session key `stamp_login` registered.
    static func signedIn(_ wire: TurnkeyWire, _ email: String) async throws -> (TurnkeyWire.User, P256.Signing.PrivateKey) {
        let user = try await wire.register(email)
        let (reply, key) = try await wire.passkeyLogin(user)
        #expect(reply.activity?["status"] == "ACTIVITY_STATUS_COMPLETED")
        return (user, key)
    }

    static func list(_ wire: TurnkeyWire, _ user: TurnkeyWire.User, organizationId: String? = nil, userId: String? = nil,
                     key: P256.Signing.PrivateKey) async throws -> TurnkeyWire.Reply {
        let body = try TurnkeyWire.bytes(["organizationId": .string(organizationId ?? user.organizationId), "userId": .string(userId ?? user.userId)])
        return try await wire.post("query/get_authenticators", body: body, stamp: try TurnkeyWire.apiStamp(body, key: key))
    }

    static func activity(_ wire: TurnkeyWire, _ name: String, type: String, organizationId: String, parameters: JSONValue,
                         key: P256.Signing.PrivateKey) async throws -> TurnkeyWire.Reply {
        let body = try TurnkeyWire.bytes(["type": .string(type), "timestampMs": .string(wire.timestampMs),
                                          "organizationId": .string(organizationId), "parameters": parameters])
        return try await wire.post("submit/" + name, body: body, stamp: try TurnkeyWire.apiStamp(body, key: key))
    }

    /// `create_authenticators` parameters for a new passkey made by `passkey` over `challenge`
    /// (`signed`: the challenge the passkey actually signs).
    static func creation(_ user: TurnkeyWire.User, passkey: SoftwarePasskeyAuthenticator, name: String = "Backup",
                         challenge: [UInt8] = Array(repeating: 3, count: 32), signed: [UInt8]? = nil,
                         transports: JSONValue = ["AUTHENTICATOR_TRANSPORT_USB"]) async throws -> JSONValue {
        let registration = try await passkey.makeCredential(PasskeyRegistrationOptions(
            relyingParty: PasskeyRelyingParty(id: TurnkeyWire.rpId, name: "AuthHub"),
            user: PasskeyUser(id: [9, 9], name: user.email, displayName: user.email), challenge: signed ?? challenge))
        return [
            "userId": .string(user.userId),
            "authenticators": [[
                "authenticatorName": .string(name), "challenge": .string(Base64URL.encode(challenge)),
                "attestation": [
                    "credentialId": .string(Base64URL.encode(registration.credentialID)),
                    "clientDataJson": .string(Base64URL.encode(registration.clientDataJSON)),
                    "attestationObject": .string(Base64URL.encode(registration.attestationObject)),
                    "transports": transports,
                ],
            ]],
        ]
    }

    @Test func listsTheUsersPasskeys() async throws {
        let wire = try await TurnkeyWire.start()
        defer { Task { await wire.emulator.stop() } }
        let (user, key) = try await Self.signedIn(wire, "list@example.com")
        let reply = try await Self.list(wire, user, key: key)
        #expect(reply.status == 200, "\(reply.json as Any)")
        let list = try #require(reply["authenticators"]?.arrayValue)
        #expect(list.count == 1)
        let passkey = list[0]
        #expect(passkey["authenticatorName"] == "Software passkey")
        #expect(passkey["authenticatorId"]?.stringValue?.isEmpty == false)
        let stored = try await user.passkey.getAssertion(PasskeyAssertionOptions(relyingPartyID: TurnkeyWire.rpId, challenge: [1]))
        #expect(passkey["credentialId"] == .string(Base64URL.encode(stored.credentialID)))
        #expect(passkey["transports"] == ["AUTHENTICATOR_TRANSPORT_INTERNAL"], "WebAuthn names come back as Turnkey's")
        #expect(passkey["credential"]?["type"] == "CREDENTIAL_TYPE_WEBAUTHN_AUTHENTICATOR")
        #expect(passkey["credential"]?["publicKey"]?.stringValue?.count == 66)
        #expect(passkey["aaguid"]?.stringValue?.count == 36)
        let seconds = try #require(passkey["createdAt"]?["seconds"]?.stringValue.flatMap { Int64($0) })
        #expect(seconds == Int64(wire.clock.now.timeIntervalSince1970))

        // The passkey itself may stamp the query too; a stranger's key may not; nor an unknown user.
        let body = try TurnkeyWire.bytes(["organizationId": .string(user.organizationId), "userId": .string(user.userId)])
        let viaPasskey = try await wire.post("query/get_authenticators", body: body, stamp: try await TurnkeyWire.passkeyStamp(body, passkey: user.passkey))
        #expect(viaPasskey.status == 200 && viaPasskey["authenticators"] == reply["authenticators"])
        let (_, strangerKey) = try await Self.signedIn(wire, "stranger@example.com")
        let stranger = try await Self.list(wire, user, key: strangerKey)
        #expect(stranger.status == 401 && stranger.code == 16)
        let unknown = try await Self.list(wire, user, userId: "no-such-user", key: key)
        #expect(unknown.status == 404 && unknown.code == 5)
        let unstamped = try await wire.post("query/get_authenticators", body: body, stamp: nil)
        #expect(unstamped.status == 401 && unstamped.code == 16)
        let missing = try TurnkeyWire.bytes(["organizationId": .string(user.organizationId)])
        let noUser = try await wire.post("query/get_authenticators", body: missing, stamp: try TurnkeyWire.apiStamp(missing, key: key))
        #expect(noUser.status == 400 && noUser.code == 3)
    }

    @Test func addsAndRemovesPasskeysButNeverTheLast() async throws {
        let wire = try await TurnkeyWire.start()
        defer { Task { await wire.emulator.stop() } }
        let (user, key) = try await Self.signedIn(wire, "add@example.com")
        let create = "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2", delete = "ACTIVITY_TYPE_DELETE_AUTHENTICATORS"

        // Refused: a passkey made over another challenge, a transport outside Turnkey's enum, the wrong type.
        let forged = try await Self.creation(user, passkey: try TurnkeyWire.authenticator(), signed: Array(repeating: 4, count: 32))
        let notVerified = try await Self.activity(wire, "create_authenticators", type: create, organizationId: user.organizationId,
                                                  parameters: forged, key: key)
        #expect(notVerified.status == 400 && notVerified.code == 3 && notVerified.message?.contains("does not verify") == true)
        let badTransport = try await Self.creation(user, passkey: try TurnkeyWire.authenticator(), transports: ["usb"])
        let transportReply = try await Self.activity(wire, "create_authenticators", type: create, organizationId: user.organizationId,
                                                     parameters: badTransport, key: key)
        #expect(transportReply.status == 400 && transportReply.message?.contains("transports[0]") == true)
        let wrongType = try await Self.activity(wire, "create_authenticators", type: delete, organizationId: user.organizationId,
                                                parameters: badTransport, key: key)
        #expect(wrongType.status == 400 && wrongType.code == 3)

        // Added: the result names it, the list shows it, the new passkey signs in.
        let backup = try TurnkeyWire.authenticator()
        let parameters = try await Self.creation(user, passkey: backup)
        let added = try await Self.activity(wire, "create_authenticators", type: create, organizationId: user.organizationId,
                                            parameters: parameters, key: key)
        #expect(added.status == 200 && added.activity?["status"] == "ACTIVITY_STATUS_COMPLETED", "\(added.json as Any)")
        #expect(added.activity?["type"] == .string(create))
        let newID = try #require(added.activity?["result"]?["createAuthenticatorsResult"]?["authenticatorIds"]?.arrayValue?.first?.stringValue)
        let twice = try await Self.activity(wire, "create_authenticators", type: create, organizationId: user.organizationId,
                                            parameters: parameters, key: key)
        #expect(twice.status == 409 && twice.code == 6)
        let two = try #require(try await Self.list(wire, user, key: key)["authenticators"]?.arrayValue)
        #expect(two.count == 2 && two.contains { $0["authenticatorId"] == .string(newID) && $0["authenticatorName"] == "Backup" })
        let backupUser = TurnkeyWire.User(email: user.email, passkey: backup, organizationId: user.organizationId, userId: user.userId)
        #expect(try await wire.passkeyLogin(backupUser).reply.activity?["status"] == "ACTIVITY_STATUS_COMPLETED")

        // Removed: not an unknown id, never all of them; one, then the last refused.
        let firstID = try #require(two.first { $0["authenticatorId"] != .string(newID) }?["authenticatorId"]?.stringValue)
        let unknown = try await Self.activity(wire, "delete_authenticators", type: delete, organizationId: user.organizationId,
                                              parameters: ["userId": .string(user.userId), "authenticatorIds": ["nope"]], key: key)
        #expect(unknown.status == 404 && unknown.code == 5)
        let all = try await Self.activity(wire, "delete_authenticators", type: delete, organizationId: user.organizationId,
                                          parameters: ["userId": .string(user.userId), "authenticatorIds": [.string(firstID), .string(newID)]], key: key)
        #expect(all.status == 400 && all.code == 9)
        let removed = try await Self.activity(wire, "delete_authenticators", type: delete, organizationId: user.organizationId,
                                              parameters: ["userId": .string(user.userId), "authenticatorIds": [.string(firstID)]], key: key)
        #expect(removed.status == 200 && removed.activity?["result"]?["deleteAuthenticatorsResult"]?["authenticatorIds"] == [.string(firstID)])
        #expect(try await Self.list(wire, user, key: key)["authenticators"]?.arrayValue?.map { $0["authenticatorId"] } == [.string(newID)])
        let last = try await Self.activity(wire, "delete_authenticators", type: delete, organizationId: user.organizationId,
                                           parameters: ["userId": .string(user.userId), "authenticatorIds": [.string(newID)]], key: key)
        #expect(last.status == 400 && last.code == 9 && last.message?.contains("last authenticator") == true)
        // The removed passkey no longer stamps.
        let (stale, _) = try await wire.passkeyLogin(user)
        #expect(stale.status == 401 && stale.code == 16)
    }

    /// A parent organization's key may read a sub-organization's passkeys but not change them.
    @Test func aParentKeyReadsButDoesNotWrite() async throws {
        let wire = try await TurnkeyWire.start()
        defer { Task { await wire.emulator.stop() } }
        let (user, _) = try await Self.signedIn(wire, "child@example.com")
        let parentKey = P256.Signing.PrivateKey()
        let registered = try await wire.hook(.post, "api-keys", ["organizationId": .string(TurnkeyWire.parent),
                                                                 "publicKey": .string(TurnkeyWire.hex(parentKey.publicKey.compressedRepresentation))])
        #expect(registered.status == 200)
        #expect(try await Self.list(wire, user, key: parentKey).status == 200)
        let ids = try #require(try await Self.list(wire, user, key: parentKey)["authenticators"]?.arrayValue?.compactMap { $0["authenticatorId"] })
        let write = try await Self.activity(wire, "delete_authenticators", type: "ACTIVITY_TYPE_DELETE_AUTHENTICATORS",
                                            organizationId: user.organizationId,
                                            parameters: ["userId": .string(user.userId), "authenticatorIds": .array(ids)], key: parentKey)
        #expect(write.status == 403 && write.code == 7)
    }
}
