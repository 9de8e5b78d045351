import AuthHub
import AuthHubTesting
import Foundation
import Testing

/// `APIClient` turns a transport's `.responseTooLarge` into a typed `AuthError`. The cap itself (by
/// `Content-Length`, while streaming, exactly at the cap) is checked for every transport by
/// `HTTPTransportConformance`.
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

    @Test func theDefaultCapIsAFewMegabytes() {
        #expect(URLSessionTransport.defaultMaxResponseBytes == 4 << 20)
    }
}
