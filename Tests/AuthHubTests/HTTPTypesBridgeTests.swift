import AuthHub
import AuthHubAuth0
import AuthHubFirebase
import AuthHubOpenfort
import AuthHubTesting
import Foundation
import Testing

/// The transport layer speaks swift-http-types: the seams AuthHub adds on top of it (the reply with
/// its body, the status clamp, the header-name constants, field merging, redirects) hold.
@Suite struct HTTPTypesBridgeTests {
    @Test func replyStatusFromOutsideIsClampedNotTrapped() {
        // swift-http-types traps on a code outside 0…999; a transport or a test giving one gets a clamp.
        #expect(HTTPReply(status: 1_000_000).status == 999)
        #expect(HTTPReply(status: -5).status == 0)
        #expect(HTTPReply(status: 204).isSuccess)
        #expect(!HTTPReply(status: 302).isSuccess)
        #expect(!HTTPReply(status: 999).isSuccess)
    }

    @Test func everyHeaderNameConstantIsAValidFieldName() {
        // Each of these traps when its literal is not a token, so a bad one fails the run here.
        #expect(HTTPField.Name.openfortProjectKey.canonicalName == "x-project-key")
        #expect(HTTPField.Name.openfortNativeAppIdentifier.canonicalName == "x-native-app-identifier")
        #expect(HTTPField.Name.openfortRequestID.canonicalName == "x-request-id")
        #expect(HTTPField.Name.openfortPlayerToken.canonicalName == "x-player-token")
        #expect(Auth0Telemetry.headerName.rawName == "Auth0-Client")
        #expect(FirebaseAPI.localeField.rawName == "X-Firebase-Locale")
    }

    @Test func fieldsByNameAndMerge() {
        var fields: HTTPFields = [.accept: "application/json", .contentType: "text/plain"]
        fields.append(HTTPField(name: .accept, value: "text/html"))
        // Several fields of one name read as one value, joined as swift-http-types joins them.
        #expect(fields["ACCEPT"] == "application/json, text/html")
        #expect(fields["not a name"] == nil)
        fields["not a name"] = "ignored"
        #expect(!fields.contains { $0.value == "ignored" })

        var caller: HTTPFields = [.accept: "application/jwt"]
        caller.append(HTTPField(name: .accept, value: "application/json"))
        fields.merge(caller)
        // The caller's values replace every field of that name, in the caller's order; others stay.
        #expect(fields[values: .accept] == ["application/jwt", "application/json"])
        #expect(fields[.contentType] == "text/plain")
    }

    @Test func apiClientBuildsTheHeadFromTheRequest() throws {
        let client = APIClient(provider: "p", baseURL: URL(string: "https://idp.example.com/base")!, transport: StubTransport(),
                               defaultHeaderFields: [.userAgent: "authhub", .accept: "text/plain"])
        var request = APIRequest(.post, "/token", query: [("a b", "c&d")], body: .form([("grant_type", "x")]))
        request.headerFields[.userAgent] = "mine"
        let prepared = try client.prepare(request)
        #expect(prepared.head.method == .post)
        #expect(prepared.head.scheme == "https")
        #expect(prepared.head.authority == "idp.example.com")
        #expect(prepared.head.path == "/base/token?a%20b=c%26d")
        #expect(prepared.head.headerFields[.userAgent] == "mine")
        #expect(prepared.head.headerFields[.accept] == "text/plain")
        #expect(prepared.head.headerFields[.contentType] == "application/x-www-form-urlencoded")
        #expect(prepared.body == Data("grant_type=x".utf8))
        #expect(prepared.url.absoluteString == "https://idp.example.com/base/token?a%20b=c%26d")
    }

    @Test func apiClientRefusesAPathWithoutAHost() {
        let client = APIClient(provider: "p", baseURL: URL(string: "file:///tmp")!, transport: StubTransport())
        #expect(throws: AuthError.self) { try client.prepare(APIRequest(.get, "x")) }
    }

    @Test func stubTransportSeesHeadBodyAndDeadline() async throws {
        let stub = StubTransport()
        stub.on(.put, "/v1/thing") { request in
            #expect(request.headerFields[.contentType] == "application/json")
            return .json(201, ["ok": true], headerFields: [.location: "/v1/thing/1"])
        }
        let client = APIClient(provider: "p", baseURL: URL(string: "http://127.0.0.1:9")!, transport: stub, timeout: .seconds(7))
        let reply = try await client.send(try APIRequest.json(.put, "/v1/thing", ["n": JSONValue.number(1)]))
        #expect(reply.status == 201)
        #expect(reply.headerFields[.location] == "/v1/thing/1")
        let sent = try #require(stub.requests.first)
        #expect(sent.jsonBody == ["n": 1])
        #expect(sent.timeout == .seconds(7))
        #expect(sent.url.absoluteString == "http://127.0.0.1:9/v1/thing")
    }
}
