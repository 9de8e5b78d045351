import AuthHub
import AuthHubTesting
import Foundation
import Testing

/// The default transport caps reply bodies: a server that declares or sends more than the cap is
/// cut off with a typed error, and the bytes beyond the cap are never kept.
@Suite(.serialized) struct ResponseBodyCapTests {
    func client(_ upstream: ScriptedUpstream, cap: Int = 64 * 1024) -> APIClient {
        APIClient(provider: "p", baseURL: upstream.baseURL,
                  transport: URLSessionTransport(defaultTimeout: .seconds(60), maxResponseBytes: cap), retryPolicy: .none)
    }

    func expectTooLarge(_ script: ScriptedUpstream.Script) async throws {
        let upstream = try ScriptedUpstream { _ in script }
        defer { upstream.stop() }
        // Cut off by the cap, not by the 60 s deadline: the error says which (a timeout would be `.timeout`).
        let error = try await #require(throws: AuthError.self) { try await client(upstream).send(APIRequest(.get, "x")) }
        #expect(error.code == .invalidRequest)
        #expect(error.details["reason"] == "replyTooLarge")
        #expect(error.provider == "p")
    }

    @Test func anEndlessChunkedBodyIsCutOff() async throws {
        try await expectTooLarge(.endless(limit: 8 << 20))
    }

    @Test func aDeclaredHugeLengthIsRefusedBeforeTheBody() async throws {
        try await expectTooLarge(.endless(declaredLength: 10 << 30, limit: 8 << 20))
    }

    @Test func anErrorReplyOverTheCapIsCutOffToo() async throws {
        try await expectTooLarge(.endless(status: 500, limit: 8 << 20))
    }

    @Test func aBodyJustUnderTheCapArrivesWhole() async throws {
        let body = Data(repeating: 0x61, count: 64 * 1024)
        let upstream = try ScriptedUpstream { _ in .reply(status: 200, body: body) }
        defer { upstream.stop() }
        let reply = try await client(upstream).send(APIRequest(.get, "x"))
        #expect(reply.body == body)
        let over = try ScriptedUpstream { _ in .reply(status: 200, body: body + Data([0x61])) }
        defer { over.stop() }
        let error = try await #require(throws: AuthError.self) { try await client(over).send(APIRequest(.get, "x")) }
        #expect(error.details["reason"] == "replyTooLarge")
    }

    @Test func theDefaultCapIsAFewMegabytes() {
        #expect(URLSessionTransport.defaultMaxResponseBytes == 4 << 20)
    }
}
