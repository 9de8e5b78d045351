import AuthHub
import AuthHubEmulator
import AuthHubFactors
import AuthHubTesting
import Crypto
import Foundation
import Testing

@Suite struct TurnkeyRegistrationTests {
    @Test func registrationAndProxyLookup() async throws {
        let wire = try await TurnkeyWire.start()
        let user = try await wire.register("Alice+tk@Example.com")
        let passkey = try TurnkeyWire.authenticator()
        let duplicate = try await wire.hook(.post, "users", try await TurnkeyWire.registrationBody(email: "alice+tk@example.com", passkey: passkey))
        let badChallenge = try await wire.hook(
            .post, "users",
            try await TurnkeyWire.registrationBody(
                email: "bob@example.com", passkey: try TurnkeyWire.authenticator(), signedChallenge: Array(repeating: 9, count: 32)
            )
        )
        let missing = try await wire.hook(.post, "users", ["email": "carol@example.com"])
        let notJSON = try await wire.send(.post, "/turnkey/__emulator/users", body: Data("{nope".utf8))
        let found = try await wire.send(.get, "/turnkey-proxy/proxy/sub-org-ids?filterType=EMAIL&filterValue=alice%2Btk%40example.com")
        let upper = try await wire.send(.get, "/turnkey-proxy/proxy/sub-org-ids?filterType=EMAIL&filterValue=ALICE%2BTK@EXAMPLE.COM")
        let byName = try await wire.send(.get, "/turnkey-proxy/proxy/sub-org-ids?filterType=USERNAME&filterValue=alice%2Btk%40example.com")
        let empty = try await wire.send(.get, "/turnkey-proxy/proxy/sub-org-ids?filterType=EMAIL&filterValue=nobody%40example.com")
        let badFilter = try await wire.send(.get, "/turnkey-proxy/proxy/sub-org-ids?filterType=SHOE_SIZE&filterValue=42")
        let noValue = try await wire.send(.get, "/turnkey-proxy/proxy/sub-org-ids?filterType=EMAIL")
        let credBody = try await TurnkeyWire.registrationBody(email: "cred@example.com", passkey: try TurnkeyWire.authenticator())
        let credUser = try await wire.hook(.post, "users", credBody)
        let credentialId = try #require(credBody["authenticator"]?["attestation"]?["credentialId"]?.stringValue)
        let byCredential = try await wire.send(.get, "/turnkey-proxy/proxy/sub-org-ids?filterType=CREDENTIAL_ID&filterValue=\(credentialId)")
        let info = try await wire.send(.get, "/turnkey/__emulator")
        await wire.emulator.reset()
        let afterReset = try await wire.send(.get, "/turnkey-proxy/proxy/sub-org-ids?filterType=EMAIL&filterValue=alice%2Btk%40example.com")
        await wire.emulator.stop()

        #expect(duplicate.status == 409 && duplicate.code == 6)
        #expect(badChallenge.status == 400 && badChallenge.code == 3)
        #expect(missing.status == 400 && missing.code == 3)
        #expect(missing["details"]?.arrayValue?.first?["@type"] == "type.googleapis.com/google.rpc.BadRequest")
        #expect(missing["details"]?.arrayValue?.first?["fieldViolations"]?.arrayValue?.first?["field"] == "authenticator")
        #expect(notJSON.status == 400 && notJSON.code == 3)
        #expect(found.json == ["organizationIds": [.string(user.organizationId)]])
        #expect(upper.json == found.json)
        #expect(byName.json == found.json)
        #expect(empty.status == 200 && empty.json == ["organizationIds": []])
        #expect(badFilter.status == 400 && badFilter.code == 3)
        #expect(noValue.status == 400 && noValue.code == 3)
        #expect(credUser.status == 200)
        #expect(byCredential.json == ["organizationIds": [credUser["organizationId"] ?? .null]])
        #expect(info.status == 200 && info["module"] == "turnkey")
        #expect(afterReset.json == ["organizationIds": []])
    }

    /// `proxyLookup: false` plays Turnkey's example backend, which serves createSubOrg and no
    /// lookup: the lookup is a plain 404; switching it back serves it again. A non-boolean is refused.
    @Test func theProxyLookupCanBeSwitchedOff() async throws {
        let wire = try await TurnkeyWire.start()
        let user = try await wire.register("pat@example.com")
        let off = try await wire.hook(.patch, "config", ["proxyLookup": false])
        let missing = try await wire.send(.get, "/turnkey-proxy/proxy/sub-org-ids?filterType=EMAIL&filterValue=pat%40example.com")
        let bad = try await wire.hook(.patch, "config", ["proxyLookup": "no"])
        let on = try await wire.hook(.patch, "config", ["proxyLookup": true])
        let found = try await wire.send(.get, "/turnkey-proxy/proxy/sub-org-ids?filterType=EMAIL&filterValue=pat%40example.com")
        await wire.emulator.stop()

        #expect(off.status == 200 && off["proxyLookup"] == false)
        #expect(missing.status == 404 && missing.json == nil, "a framework's plain 404, not a Turnkey status")
        #expect(bad.status == 400 && bad.code == 3)
        #expect(on["proxyLookup"] == true)
        #expect(found.json == ["organizationIds": [.string(user.organizationId)]])
    }

    @Test func listSubOrgsWithTheParentKey() async throws {
        let wire = try await TurnkeyWire.start()
        let user = try await wire.register("list@example.com")
        _ = try await wire.register("other@example.com")
        let parentKey = P256.Signing.PrivateKey()
        let registered = try await wire.hook(
            .post, "api-keys",
            ["organizationId": .string(TurnkeyWire.parent), "publicKey": .string(TurnkeyWire.hex(parentKey.publicKey.compressedRepresentation))]
        )
        let body = try TurnkeyWire.bytes([
            "organizationId": .string(TurnkeyWire.parent), "filterType": "EMAIL", "filterValue": "LIST@example.com",
        ])
        let listed = try await wire.post("query/list_suborgs", body: body, stamp: try TurnkeyWire.apiStamp(body, key: parentKey))
        let unknownKey = try await wire.post("query/list_suborgs", body: body, stamp: try TurnkeyWire.apiStamp(body, key: P256.Signing.PrivateKey()))
        let noStamp = try await wire.post("query/list_suborgs", body: body, stamp: nil)
        let allBody = try TurnkeyWire.bytes(["organizationId": .string(TurnkeyWire.parent)])
        let all = try await wire.post("query/list_suborgs", body: allBody, stamp: try TurnkeyWire.apiStamp(allBody, key: parentKey))
        // A sub-organization's session key may not list its parent's sub-organizations.
        let (login, sessionKey) = try await wire.passkeyLogin(user)
        let bySession = try await wire.post("query/list_suborgs", body: body, stamp: try TurnkeyWire.apiStamp(body, key: sessionKey))
        let parentWhoami = try await wire.whoami(TurnkeyWire.parent, key: parentKey)
        await wire.emulator.stop()

        #expect(registered.status == 200)
        #expect(listed.status == 200 && listed.json == ["organizationIds": [.string(user.organizationId)]])
        #expect(unknownKey.status == 401 && unknownKey.code == 16)
        #expect(unknownKey.message == "could not find public key in organization or its parent organization")
        #expect(noStamp.status == 401 && noStamp.code == 16 && noStamp.message?.contains("not authenticated") == true)
        #expect(all.json?["organizationIds"]?.arrayValue?.count == 2)
        #expect(login.status == 200)
        #expect(bySession.status == 401 && bySession.code == 16)
        #expect(parentWhoami.status == 200 && parentWhoami["organizationId"] == .string(TurnkeyWire.parent))
    }
}
