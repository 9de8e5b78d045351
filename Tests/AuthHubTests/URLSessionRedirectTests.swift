import AuthHub
import AuthHubTesting
import Foundation
import Testing

/// The default transport follows redirects itself (its session's delegate declines them, so that the
/// body cap applies to every hop): 301/302/303 become a GET without a body, 307/308 keep the method
/// and body, credentials stay on their origin, and a loop ends after ten hops.
@Suite struct URLSessionRedirectTests {
    @Test func followsRedirectsWithBrowserMethodRules() async throws {
        let upstream = try ScriptedUpstream { request in
            switch request.path {
            case "/see-other": return .reply(status: 303, headers: [("Location", "/target")])
            case "/temporary": return .reply(status: 307, headers: [("Location", "/target")])
            case "/target":
                return .json(200, #"{"method":"\#(request.method)","body":\#(request.body.isEmpty ? "false" : "true")}"#)
            default: return .reply(status: 404)
            }
        }
        defer { upstream.stop() }
        let transport = URLSessionTransport(defaultTimeout: .seconds(60))
        func post(_ path: String) async throws -> JSONValue {
            let reply = try await transport.send(.post, upstream.baseURL.appendingPathComponent(path), headerFields: [.contentType: "application/json"], body: Data("{}".utf8))
            #expect(reply.status == 200)
            return try JSONValue.parse(reply.body)
        }
        #expect(try await post("see-other") == ["method": "GET", "body": false])
        #expect(try await post("temporary") == ["method": "POST", "body": true])
    }

    @Test func credentialsStayOnTheirOrigin() async throws {
        let other = try ScriptedUpstream { request in .json(200, #"{"auth":\#(request.headers["authorization"] == nil ? "false" : "true")}"#) }
        defer { other.stop() }
        let upstream = try ScriptedUpstream { _ in .reply(status: 302, headers: [("Location", other.baseURL.appendingPathComponent("x").absoluteString)]) }
        defer { upstream.stop() }
        let reply = try await URLSessionTransport().send(.get, upstream.baseURL.appendingPathComponent("start"), headerFields: [.authorization: "Bearer secret"])
        #expect(try JSONValue.parse(reply.body) == ["auth": false])
    }

    @Test func aRedirectLoopEnds() async throws {
        let upstream = try ScriptedUpstream { _ in .reply(status: 302, headers: [("Location", "/again")]) }
        defer { upstream.stop() }
        let error = try await #require(throws: TransportError.self) {
            try await URLSessionTransport().send(.get, upstream.baseURL.appendingPathComponent("again"))
        }
        #expect(error.message.contains("redirects"))
        #expect(upstream.requests.count == URLSessionTransport.maxRedirects + 1)
    }

    @Test func withoutFollowingTheRedirectIsReturned() async throws {
        let upstream = try ScriptedUpstream { _ in .reply(status: 302, headers: [("Location", "/elsewhere")]) }
        defer { upstream.stop() }
        let reply = try await URLSessionTransport(followRedirects: false).send(.get, upstream.baseURL)
        #expect(reply.status == 302)
        #expect(reply.headerFields["Location"] == "/elsewhere")
    }
}
