import AuthHub
import AuthHubEmulator
import AuthHubFactors
import AuthHubTesting
import Crypto
import Foundation
import Testing

@Suite struct TurnkeyActivityTests {
    @Test func pendingActivitiesCompleteOnTheNthPoll() async throws {
        let wire = try await TurnkeyWire.start()
        let user = try await wire.register("pending@example.com")
        let config = try await wire.hook(.patch, "config", ["activityPendingPolls": 2])
        let (submit, key) = try await wire.passkeyLogin(user)
        let id = try #require(submit.activity?["id"]?.stringValue)
        let body = try TurnkeyWire.bytes(["organizationId": .string(user.organizationId), "activityId": .string(id)])
        // Not usable before the activity completes.
        let early = try await wire.whoami(user.organizationId, key: key)
        let poll1 = try await wire.post("query/get_activity", body: body, stamp: try await TurnkeyWire.passkeyStamp(body, passkey: user.passkey))
        let poll2 = try await wire.post("query/get_activity", body: body, stamp: try await TurnkeyWire.passkeyStamp(body, passkey: user.passkey))
        let poll3 = try await wire.post("query/get_activity", body: body, stamp: try TurnkeyWire.apiStamp(body, key: key))
        let late = try await wire.whoami(user.organizationId, key: key)
        let unknownBody = try TurnkeyWire.bytes(["organizationId": .string(user.organizationId), "activityId": "nope"])
        let unknown = try await wire.post("query/get_activity", body: unknownBody, stamp: try TurnkeyWire.apiStamp(unknownBody, key: key))
        await wire.emulator.stop()

        #expect(config["activityPendingPolls"] == 2)
        #expect(submit.status == 200 && submit.activity?["status"] == "ACTIVITY_STATUS_PENDING")
        #expect(submit.activity?["result"] == [:])
        #expect(early.status == 401 && early.code == 16)
        #expect(poll1.activity?["status"] == "ACTIVITY_STATUS_PENDING")
        #expect(poll2.activity?["status"] == "ACTIVITY_STATUS_COMPLETED")
        #expect(poll2.activity?["result"]?["stampLoginResult"]?["session"]?.stringValue != nil)
        #expect(poll3.activity == poll2.activity)
        #expect(late.status == 200)
        #expect(unknown.status == 404 && unknown.code == 5)
    }

    @Test func oneShotOutcomes() async throws {
        let wire = try await TurnkeyWire.start()
        let user = try await wire.register("outcome@example.com")
        let config = try await wire.hook(.patch, "config", ["nextActivityOutcome": "ACTIVITY_STATUS_FAILED"])
        let (failed, failedKey) = try await wire.passkeyLogin(user)
        let failedWhoami = try await wire.whoami(user.organizationId, key: failedKey)
        let (ok, _) = try await wire.passkeyLogin(user)
        _ = try await wire.hook(.patch, "config", ["nextActivityOutcome": "ACTIVITY_STATUS_REJECTED"])
        let (rejected, _) = try await wire.passkeyLogin(user)
        _ = try await wire.hook(.patch, "config", ["nextActivityOutcome": "ACTIVITY_STATUS_CONSENSUS_NEEDED"])
        let (consensus, _) = try await wire.passkeyLogin(user)
        let badOutcome = try await wire.hook(.patch, "config", ["nextActivityOutcome": "MAYBE"])
        let current = try await wire.hook(.get, "config")
        await wire.emulator.stop()

        #expect(config["nextActivityOutcome"] == "ACTIVITY_STATUS_FAILED")
        #expect(failed.status == 200 && failed.activity?["status"] == "ACTIVITY_STATUS_FAILED")
        #expect(failed.activity?["failure"]?["code"]?.intValue != nil && failed.activity?["failure"]?["message"]?.stringValue != nil)
        #expect(failed.activity?["result"] == [:])
        #expect(failedWhoami.status == 401)
        #expect(ok.activity?["status"] == "ACTIVITY_STATUS_COMPLETED")
        #expect(rejected.status == 200 && rejected.activity?["status"] == "ACTIVITY_STATUS_REJECTED" && rejected.activity?["result"] == [:])
        #expect(consensus.activity?["status"] == "ACTIVITY_STATUS_CONSENSUS_NEEDED")
        #expect(badOutcome.status == 400 && badOutcome.code == 3)
        #expect(current.json == ["rpId": "localhost", "activityPendingPolls": 0, "nextActivityOutcome": nil, "proxyLookup": true])
    }

    @Test func malformedRequestsAreRefusedWithoutCrashing() async throws {
        let wire = try await TurnkeyWire.start()
        let user = try await wire.register("malformed@example.com")
        let (_, key) = try await wire.passkeyLogin(user)
        let keyHex = TurnkeyWire.hex(P256.Signing.PrivateKey().publicKey.compressedRepresentation)
        func login(_ json: JSONValue) async throws -> TurnkeyWire.Reply {
            let body = try TurnkeyWire.bytes(json)
            return try await wire.post("submit/stamp_login", body: body, stamp: try TurnkeyWire.apiStamp(body, key: key))
        }
        func envelope(_ changes: [String: JSONValue]) -> JSONValue {
            var object: [String: JSONValue] = [
                "type": "ACTIVITY_TYPE_STAMP_LOGIN", "timestampMs": .string(wire.timestampMs),
                "organizationId": .string(user.organizationId), "parameters": ["publicKey": .string(keyHex)],
            ]
            for (name, value) in changes { object[name] = value }
            return .object(object)
        }
        let now = wire.clock.now.timeIntervalSince1970
        var replies: [(String, TurnkeyWire.Reply)] = []
        replies.append(("wrong type", try await login(envelope(["type": "ACTIVITY_TYPE_OAUTH_LOGIN"]))))
        replies.append(("numeric timestamp", try await login(envelope(["timestampMs": .number(now * 1_000)]))))
        replies.append(("old timestamp", try await login(envelope(["timestampMs": .string(String(Int64((now - 90_000) * 1_000)))]))))
        replies.append(("future timestamp", try await login(envelope(["timestampMs": .string(String(Int64((now + 7_200) * 1_000)))]))))
        replies.append(("no parameters", try await login(envelope(["parameters": .null]))))
        replies.append(("bad key", try await login(envelope(["parameters": ["publicKey": "02abcd"]]))))
        replies.append(("off-curve key", try await login(envelope(["parameters": .object(["publicKey": .string("02" + String(repeating: "f", count: 64))])]))))
        replies.append(("bad expiry", try await login(envelope(["parameters": .object(["publicKey": .string(keyHex), "expirationSeconds": "soon"])]))))
        replies.append(("bad flag", try await login(envelope(["parameters": .object(["publicKey": .string(keyHex), "invalidateExisting": "yes"])]))))
        replies.append(("array body", try await login(["not", "an", "object"])))
        let garbage = Data("{\"organizationId\":".utf8)
        replies.append(("truncated JSON", try await wire.post("query/whoami", body: garbage, stamp: try TurnkeyWire.apiStamp(garbage, key: key))))
        let body = try TurnkeyWire.bytes(["organizationId": .string(user.organizationId)])
        replies.append(("stamp not base64", try await wire.post("query/whoami", body: body, stamp: ("X-Stamp", "%%%"))))
        replies.append(("stamp wrong scheme", try await wire.post("query/whoami", body: body, stamp: ("X-Stamp", Base64URL.encode(try TurnkeyWire.bytes([
            "publicKey": .string(keyHex), "scheme": "SIGNATURE_SCHEME_TK_API_ED25519", "signature": "3045",
        ]))))))
        replies.append(("stamp bad hex", try await wire.post("query/whoami", body: body, stamp: ("X-Stamp", Base64URL.encode(try TurnkeyWire.bytes([
            "publicKey": .string(keyHex), "scheme": "SIGNATURE_SCHEME_TK_API_P256", "signature": "zz",
        ]))))))
        replies.append(("webauthn not JSON", try await wire.post("query/whoami", body: body, stamp: ("X-Stamp-WebAuthn", "e30K garbage"))))
        replies.append(("webauthn missing member", try await wire.post("query/whoami", body: body, stamp: ("X-Stamp-WebAuthn", #"{"credentialId":"AAAA"}"#))))
        let both = try await wire.send(.post, "/turnkey/public/v1/query/whoami", body: body, headerFields: [HTTPField.Name.constant("X-Stamp"): try TurnkeyWire.apiStamp(body, key: key).value, HTTPField.Name.constant("X-Stamp-WebAuthn"): "{}"])
        replies.append(("both stamps", both))
        replies.append(("bad config", try await wire.hook(.patch, "config", ["activityPendingPolls": "two"])))
        replies.append(("bad api key hook", try await wire.hook(.post, "api-keys", ["organizationId": "x", "publicKey": "nope"])))
        let noFilterType = try TurnkeyWire.bytes(["organizationId": .string(TurnkeyWire.parent), "filterValue": "a@b.c"])
        replies.append(("filter value alone", try await wire.post("query/list_suborgs", body: noFilterType, stamp: try TurnkeyWire.apiStamp(noFilterType, key: key))))
        let rwBody = try TurnkeyWire.bytes([
            "type": "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2", "timestampMs": .string(wire.timestampMs),
            "organizationId": .string(user.organizationId), "parameters": ["targetPublicKey": "04nothex"],
        ])
        replies.append(("bad target key", try await wire.post("submit/create_read_write_session", body: rwBody, stamp: try TurnkeyWire.apiStamp(rwBody, key: key))))
        let stillWorks = try await wire.whoami(user.organizationId, key: key)
        await wire.emulator.stop()

        for (name, reply) in replies {
            #expect(reply.status == 400, "\(name): \(reply.status)")
            #expect(reply.code == 3, "\(name)")
            #expect(reply["details"]?.arrayValue?.first?["fieldViolations"] != nil, "\(name)")
        }
        #expect(stillWorks.status == 200)
    }
}
