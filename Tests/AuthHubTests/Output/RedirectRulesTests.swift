@testable import AuthHub
import Foundation
import Testing

/// `RedirectPolicy`'s rules on requests alone (the conformance suite checks them over HTTP, where an
/// https target cannot be served): https never redirects to http, and the origin compares ports with
/// their defaults filled in.
@Suite struct RedirectRulesTests {
    func reply(_ status: Int, _ location: String) -> HTTPResponse {
        HTTPResponse(status: .init(code: status), headerFields: [.location: location])
    }

    @Test func httpsNeverRedirectsToHTTP() throws {
        let request = HTTPRequest(method: .get, url: try #require(URL(string: "https://idp.example/.well-known/jwks.json")))
        #expect(throws: TransportError.self) { try RedirectPolicy.next(from: request, body: nil, reply: reply(302, "http://idp.example/jwks.json")) }
        let refused = try? RedirectPolicy.next(from: request, body: nil, reply: reply(302, "http://idp.example/jwks.json?code=x"))
        #expect(refused == nil)
        do {
            _ = try RedirectPolicy.next(from: request, body: nil, reply: reply(302, "http://idp.example/jwks.json?code=secret"))
        } catch let error as TransportError {
            #expect(error.kind == .redirectRefused)
            #expect(error.message.contains("302") && error.message.contains("http://idp.example/jwks.json"))
            #expect(!error.message.contains("secret"), "the target's query is not named")
        }
        let followed = try RedirectPolicy.next(from: request, body: nil, reply: reply(302, "https://cdn.example/jwks.json"))
        #expect(followed?.head.url?.absoluteString == "https://cdn.example/jwks.json")
    }

    @Test func defaultPortsAreTheSameOrigin() throws {
        let request = HTTPRequest(method: .get, url: try #require(URL(string: "https://idp.example/userinfo")), headerFields: [.authorization: "Bearer t"])
        let next = try RedirectPolicy.next(from: request, body: nil, reply: reply(307, "https://idp.example:443/v2/userinfo"))
        #expect(next?.head.headerFields[.authorization] == "Bearer t")
        #expect(throws: TransportError.self) { try RedirectPolicy.next(from: request, body: nil, reply: reply(307, "https://idp.example:8443/userinfo")) }
        #expect(throws: TransportError.self) { try RedirectPolicy.next(from: request, body: nil, reply: reply(307, "https://other.example/userinfo")) }
    }

    @Test func credentialHeadersAreRecognised() throws {
        let url = try #require(URL(string: "https://api.turnkey.example/public/v1/query/whoami"))
        for name in ["Authorization", "Cookie", "DPoP", "X-Stamp", "X-Stamp-WebAuthn", "Proxy-Authorization", "X-API-Key"] {
            let field = try #require(HTTPField.Name(name))
            #expect(RedirectPolicy.carriesCredentials(HTTPRequest(method: .get, url: url, headerFields: [field: "v"])), "\(name)")
        }
        #expect(!RedirectPolicy.carriesCredentials(HTTPRequest(method: .get, url: url, headerFields: [.accept: "application/json"])))
    }

    @Test func compressedRepliesAreRefusedByTheirHead() {
        #expect(RedirectPolicy.encodingRefusal([.contentEncoding: "gzip"])?.kind == .unsupportedEncoding)
        #expect(RedirectPolicy.encodingRefusal([.contentEncoding: " Deflate "])?.kind == .unsupportedEncoding)
        #expect(RedirectPolicy.encodingRefusal([.contentEncoding: "identity"]) == nil)
        #expect(RedirectPolicy.encodingRefusal([:]) == nil)
        let sneaky = RedirectPolicy.encodingRefusal([.contentEncoding: "br\u{1B}[2J"])
        #expect(sneaky.map { TerminalText.isSafe($0.message) } == true)
    }
}
