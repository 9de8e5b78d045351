import AuthHub
import AuthHubTesting
import Foundation
import Testing

@Suite struct APIClientTests {
    let clock = FakeClock()
    let transport = StubTransport()

    func client(retry: RetryPolicy = RetryPolicy()) -> APIClient {
        APIClient(provider: "p", baseURL: URL(string: "https://api.example.com/base/")!, transport: transport, clock: clock,
                  retryPolicy: retry, defaultHeaderFields: [HTTPField.Name.constant("X-Client"): "authhub", .accept: "application/json"])
    }

    @Test func buildsFormBodiesWithStrictEscaping() async throws {
        transport.on(.post, "/base/oauth/token") { _ in .json(200, [:]) }
        _ = try await client().send(APIRequest(.post, "oauth/token", query: [("a b", "c&d")],
                                               body: .form([("username", "a+b@example.com"), ("password", "p&ss=wörd ~.")])))
        let r = try #require(transport.requests.first)
        #expect(r.headerFields["Content-Type"] == "application/x-www-form-urlencoded")
        #expect(String(decoding: r.body ?? Data(), as: UTF8.self) == "username=a%2Bb%40example.com&password=p%26ss%3Dw%C3%B6rd%20~.")
        #expect(r.formBody["password"] == "p&ss=wörd ~.")
        #expect(r.url.absoluteString == "https://api.example.com/base/oauth/token?a%20b=c%26d")
        #expect(r.headerFields["X-Client"] == "authhub")
    }

    @Test func buildsJSONBodiesAndCallerHeadersWin() async throws {
        transport.on(.put, "/base/v1/thing") { _ in .json(200, ["ok": true]) }
        struct Body: Encodable { var name: String; var count: Int }
        let request = try APIRequest.json(.put, "/v1/thing", Body(name: "x", count: 2), headerFields: [HTTPField.Name.constant("X-Client"): "mine"])
        let reply = try await client().send(request, as: [String: Bool].self)
        #expect(reply == ["ok": true])
        let r = try #require(transport.requests.first)
        #expect(r.headerFields["Content-Type"] == "application/json")
        #expect(r.headerFields["X-Client"] == "mine")
        #expect(r.jsonBody == ["count": 2, "name": "x"])
    }

    @Test func absoluteURLsBypassTheBase() async throws {
        transport.on(.get, "/other") { _ in .json(200, [:]) }
        _ = try await client().send(APIRequest(.get, "https://elsewhere.example.com/other"))
        #expect(transport.requests.first?.url.host == "elsewhere.example.com")
    }

    @Test func honoursRetryAfterSecondsOn429() async throws {
        transport.on(.post, "/base/x", times: 1) { _ in .json(429, ["error": "slow_down"], headerFields: [.retryAfter: "2"]) }
        transport.on(.post, "/base/x") { _ in .json(200, [:]) }
        _ = try await client().send(APIRequest(.post, "x"))
        #expect(transport.requests.count == 2)
        #expect(clock.sleeps == [.seconds(2)])
    }

    @Test func honoursRetryAfterHTTPDate() async throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let date = formatter.string(from: clock.now.addingTimeInterval(5))
        transport.on(.get, "/base/x", times: 1) { _ in .json(503, [:], headerFields: [.retryAfter: date]) }
        transport.on(.get, "/base/x") { _ in .json(200, [:]) }
        _ = try await client().send(APIRequest(.get, "x"))
        #expect(clock.sleeps == [.seconds(5)])
    }

    @Test func tooLongRetryAfterIsReturnedNotWaited() async throws {
        transport.on(.get, "/base/x") { _ in .json(429, ["error": "rate"], headerFields: [.retryAfter: "120"]) }
        do {
            _ = try await client().send(APIRequest(.get, "x"))
            Issue.record("expected rateLimited")
        } catch let e as AuthError {
            #expect(e.code == .rateLimited)
            #expect(e.retryAfter == .seconds(120))
            #expect(e.isRetryable)
            #expect(e.statusCode == 429)
        }
        #expect(transport.requests.count == 1)
        #expect(clock.sleeps.isEmpty)
    }

    @Test func serverErrorsRetryIdempotentRequestsOnly() async throws {
        transport.on(.get, "/base/g", times: 2) { _ in .json(500, [:]) }
        transport.on(.get, "/base/g") { _ in .json(200, [:]) }
        _ = try await client().send(APIRequest(.get, "g"))
        #expect(transport.requests(to: "/base/g").count == 3)
        #expect(clock.sleeps.count == 2)
        #expect(clock.sleeps[1] > clock.sleeps[0] / 2)  // exponential back-off with jitter

        transport.on(.post, "/base/p") { _ in .json(500, ["error": "server_error"]) }
        await #expect(throws: AuthError(.providerUnavailable)) { try await client().send(APIRequest(.post, "p")) }
        #expect(transport.requests(to: "/base/p").count == 1)

        transport.on(.post, "/base/q") { _ in .json(502, [:]) }
        _ = try? await client().send(APIRequest(.post, "q", retry: .idempotent))
        #expect(transport.requests(to: "/base/q").count == 3)
    }

    @Test func refusalsRetryEvenForPOSTUnlessNever() async throws {
        transport.on(.post, "/base/p", times: 1) { _ in .json(503, [:]) }
        transport.on(.post, "/base/p") { _ in .json(200, [:]) }
        _ = try await client().send(APIRequest(.post, "p"))
        #expect(transport.requests(to: "/base/p").count == 2)

        transport.on(.post, "/base/n") { _ in .json(429, [:]) }
        await #expect(throws: AuthError(.rateLimited)) { try await client().send(APIRequest(.post, "n", retry: .never)) }
        #expect(transport.requests(to: "/base/n").count == 1)
    }

    @Test func retriesStopAtMaxAttempts() async throws {
        transport.on(.get, "/base/x") { _ in .json(503, [:]) }
        await #expect(throws: AuthError(.providerUnavailable)) { try await client(retry: RetryPolicy(maxAttempts: 4)).send(APIRequest(.get, "x")) }
        #expect(transport.requests.count == 4)
    }

    @Test func transportFailuresMapToNetworkAndTimeout() async throws {
        transport.on(.get, "/base/down") { _ in .failure(TransportError(.connection, "refused")) }
        transport.on(.post, "/base/slow") { _ in .failure(TransportError(.timeout, "slow")) }
        do {
            _ = try await client().send(APIRequest(.get, "down"))
            Issue.record("expected network")
        } catch let e as AuthError {
            #expect(e.code == .network)
            #expect(e.isRetryable)
            #expect(e.provider == "p")
        }
        #expect(transport.requests(to: "/base/down").count == 3)  // GET is retried
        await #expect(throws: AuthError(.timeout)) { try await client().send(APIRequest(.post, "slow")) }
        #expect(transport.requests(to: "/base/slow").count == 1)  // POST is not
    }

    @Test func unreadableRepliesAreInvalidRequestWithoutTheBody() async throws {
        transport.on(.get, "/base/x") { _ in .raw(200, "{\"access_token\":\"tok-secret-123\",") }
        struct Reply: Decodable { var access_token: String }
        do {
            _ = try await client().send(APIRequest(.get, "x"), as: Reply.self)
            Issue.record("expected invalidRequest")
        } catch let e as AuthError {
            #expect(e.code == .invalidRequest)
            #expect(!e.message.contains("tok-secret-123"))
            #expect(!e.description.contains("tok-secret-123"))
        }
    }

    @Test func errorRepliesGoThroughTheMapper() async throws {
        struct Mapper: ErrorMapper {
            func map(_ response: HTTPReply, provider: String, operation: AuthOperation) -> AuthError {
                AuthError(.invalidCredentials, provider: provider, providerCode: "mapped", statusCode: response.status)
            }
        }
        transport.on(.post, "/base/x") { _ in .json(401, ["error": "x"]) }
        var c = client()
        c.errorMapper = Mapper()
        do {
            _ = try await c.send(APIRequest(.post, "x"))
            Issue.record("expected error")
        } catch let e as AuthError {
            #expect(e.code == .invalidCredentials)
            #expect(e.providerCode == "mapped")
            #expect(e.statusCode == 401)
        }
    }

    @Test func unmatchedStubRequestsFailLoudly() async throws {
        await #expect(throws: AuthError.self) { try await client(retry: .none).send(APIRequest(.get, "nothing")) }
        #expect(transport.unmatchedRequests.count == 1)
    }

    @Test func statusMapperFallback() {
        let cases: [(Int, AuthErrorCode)] = [(400, .invalidRequest), (401, .invalidCredentials), (403, .accessDenied),
                                             (429, .rateLimited), (500, .providerUnavailable), (503, .providerUnavailable),
                                             (418, .unknown)]
        for (status, code) in cases {
            let e = StatusErrorMapper().map(HTTPReply(status: status, body: Data("<html>".utf8)), provider: "p")
            #expect(e.code == code, "status \(status)")
            #expect(e.statusCode == status)
        }
        let e = StatusErrorMapper().map(HTTPReply(status: 400, body: Data(#"{"error":"invalid_grant","error_description":"Wrong."}"#.utf8)), provider: "p")
        #expect(e.providerCode == "invalid_grant")
        #expect(e.message == "Wrong.")
    }
}
