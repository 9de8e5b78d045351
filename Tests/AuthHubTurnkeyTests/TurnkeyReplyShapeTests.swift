import AuthHub
import AuthHubTesting
@_spi(Internals) @testable import AuthHubTurnkey
import Crypto
import Foundation
import Testing

/// Replies that break the wire models: a missing or mistyped required field is an
/// ``AuthErrorCode/invalidRequest`` naming the provider, the operation and the field.
@Suite struct TurnkeyReplyShapeTests {
    func expectNamed(_ error: AuthError?, operation: String, field: String?, reason: String,
                     sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(error?.code == .invalidRequest, sourceLocation: sourceLocation)
        #expect(error?.provider == "tk", sourceLocation: sourceLocation)
        #expect(error?.details["operation"] == operation, sourceLocation: sourceLocation)
        #expect(error?.details["field"] == field, sourceLocation: sourceLocation)
        #expect(error?.details["reason"] == reason, sourceLocation: sourceLocation)
    }

    func whoami(_ reply: JSONValue) async throws -> AuthError? {
        let f = try TurnkeyAPITests.Fixture()
        f.transport.on(.post, "/public/v1/query/whoami") { _ in .json(200, reply) }
        return await #expect(throws: AuthError.self) { _ = try await f.api.whoami(organizationId: TK.subOrg, stamper: f.stamper) }
    }

    @Test func whoamiNamesTheField() async throws {
        expectNamed(try await whoami(["organizationId": .string(TK.subOrg), "organizationName": "Ada"]), operation: "user-info",
                    field: "userId", reason: "missingField")
        expectNamed(try await whoami(["organizationId": 7, "userId": .string(TK.userId)]), operation: "user-info",
                    field: "organizationId", reason: "wrongType")
        expectNamed(try await whoami(["organizationId": .string(TK.subOrg), "userId": nil]), operation: "user-info",
                    field: "userId", reason: "nullField")
    }

    func stampLogin(_ reply: JSONValue, refresh: Bool = false) async throws -> AuthError? {
        let f = try TurnkeyAPITests.Fixture()
        f.transport.on(.post, "/public/v1/submit/stamp_login") { _ in .json(200, reply) }
        return await #expect(throws: AuthError.self) {
            _ = try await f.api.stampLogin(organizationId: TK.subOrg, publicKey: TK.fixturePublic, expirationSeconds: 900, stamper: f.stamper,
                                           errorContext: refresh ? .refresh : .passkeyLogin)
        }
    }

    @Test func activityReplyNamesTheField() async throws {
        let completed = "ACTIVITY_STATUS_COMPLETED"
        expectNamed(try await stampLogin(["activity": ["status": .string(completed)]]), operation: "sign-in", field: "activity.id",
                    reason: "missingField")
        expectNamed(try await stampLogin(["activity": ["id": "act-1", "status": 3]]), operation: "sign-in", field: "activity.status",
                    reason: "wrongType")
        expectNamed(try await stampLogin(["nothing": true]), operation: "sign-in", field: "activity", reason: "missingField")
        expectNamed(try await stampLogin(TK.activity(completed, result: ["otherResult": [:]])), operation: "sign-in",
                    field: "activity.result.stampLoginResult", reason: "missingField")
        expectNamed(try await stampLogin(TK.activity(completed, result: ["stampLoginResult": ["session": 12]])), operation: "sign-in",
                    field: "activity.result.stampLoginResult.session", reason: "wrongType")
        expectNamed(try await stampLogin(TK.activity(completed, result: ["stampLoginResult": ["session": ""]]), refresh: true),
                    operation: "refresh", field: "activity.result.stampLoginResult.session", reason: "invalidValue")
    }

    @Test func readWriteSessionResultNamesTheField() async throws {
        let f = try TurnkeyAPITests.Fixture()
        f.transport.on(.post, "/public/v1/submit/create_read_write_session") { _ in
            .json(200, TK.activity("ACTIVITY_STATUS_COMPLETED", type: "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2",
                                   result: ["createReadWriteSessionResultV2": ["apiKeyId": "key-1"]]))
        }
        let error = await #expect(throws: AuthError.self) {
            _ = try await f.api.createReadWriteSession(organizationId: TK.subOrg, targetPrivateKey: P256.KeyAgreement.PrivateKey(),
                                                       stamper: f.stamper)
        }
        expectNamed(error, operation: "token-exchange", field: "activity.result.createReadWriteSessionResultV2.credentialBundle",
                    reason: "missingField")
    }

    /// The stamped bytes of a typed activity body are the bytes sent.
    @Test func typedActivityBodiesAreSentAsStamped() async throws {
        let f = try TurnkeyAPITests.Fixture()
        TK.stubStampLogin(f.transport, clock: f.clock)
        _ = try await f.api.stampLogin(organizationId: TK.subOrg, publicKey: TK.fixturePublic, expirationSeconds: 900, stamper: f.stamper)
        let request = try #require(f.transport.requests.first)
        try TurnkeyAPITests.verifyStamp(request)
        #expect(request.jsonBody == ["type": "ACTIVITY_TYPE_STAMP_LOGIN", "timestampMs": "1767225600000", "organizationId": .string(TK.subOrg),
                                     "parameters": ["publicKey": .string(TK.fixturePublic), "expirationSeconds": "900"]])
    }
}
