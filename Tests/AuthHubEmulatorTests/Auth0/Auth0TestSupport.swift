import AuthHub
import AuthHubEmulator
import Foundation
import JWTKit
import Testing

/// Talks to the emulator's Auth0 routes over real HTTP, building every request from
/// spec/auth0.md by hand (no client module). Redirects are not followed, so `/authorize`'s 302
/// can be inspected.
struct Auth0Wire {
    let emulator: RunningEmulator
    let transport = URLSessionTransport(defaultTimeout: .seconds(30), followRedirects: false)
    static let clientId = "authhub-test"
    static let redirectURI = "http://127.0.0.1:9/callback"

    /// `http://127.0.0.1:PORT/auth0/`, the issuer the spec expects (trailing slash).
    var issuer: String { emulator.url("/auth0").absoluteString + "/" }

    struct Reply {
        let status: Int
        let headerFields: HTTPFields
        let body: Data
        var json: JSONValue? { try? JSONValue.parse(body) }
        var text: String { String(decoding: body, as: UTF8.self) }
        var location: URLComponents? { headerFields[.location].flatMap { URLComponents(string: $0) } }
        func query(_ name: String) -> String? { location?.queryItems?.first { $0.name == name }?.value }
    }

    func post(_ path: String, json: JSONValue, headerFields headers: HTTPFields = [:]) async throws -> Reply {
        var all = headers
        all["Content-Type"] = "application/json"
        return try await send(.post, path, headerFields: all, body: try JSONEncoder().encode(json))
    }

    func postForm(_ path: String, _ fields: [(String, String)]) async throws -> Reply {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let body = fields.map { name, value in
            "\(name)=\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")"
        }.joined(separator: "&")
        return try await send(.post, path, headerFields: [.contentType: "application/x-www-form-urlencoded"], body: Data(body.utf8))
    }

    func get(_ path: String, headerFields headers: HTTPFields = [:]) async throws -> Reply {
        try await send(.get, path, headerFields: headers, body: nil)
    }

    func send(_ method: HTTPRequest.Method, _ path: String, headerFields headers: HTTPFields, body: Data?) async throws -> Reply {
        let response = try await transport.send(method, emulator.url(path), headerFields: headers, body: body)
        return Reply(status: response.status, headerFields: response.headerFields, body: response.body)
    }

    /// Seeds a user through the emulator-only hook.
    @discardableResult
    func seed(_ email: String, password: String = "correct horse battery", extra: [String: JSONValue] = [:]) async throws -> JSONValue {
        var body: [String: JSONValue] = ["email": .string(email), "password": .string(password)]
        body.merge(extra) { _, new in new }
        let reply = try await post("/auth0/__emulator/users", json: .object(body))
        #expect(reply.status == 201)
        return try #require(reply.json)
    }

    /// ROPG with the password-realm grant (spec §3).
    func login(_ email: String, password: String = "correct horse battery", scope: String = "openid profile email offline_access") async throws -> Reply {
        try await post("/auth0/oauth/token", json: [
            "client_id": .string(Self.clientId), "grant_type": "http://auth0.com/oauth/grant-type/password-realm",
            "username": .string(email), "password": .string(password), "realm": "Username-Password-Authentication",
            "scope": .string(scope),
        ])
    }

    func refresh(_ token: String) async throws -> Reply {
        try await post("/auth0/oauth/token", json: [
            "client_id": .string(Self.clientId), "grant_type": "refresh_token", "refresh_token": .string(token),
        ])
    }

    /// Verifies an ID token's RS256 signature against the emulator's JWKS with jwt-kit and returns its claims.
    func verifiedClaims(_ idToken: String) async throws -> [String: JSONValue] {
        let jwks = try await get("/auth0/.well-known/jwks.json")
        let keys = JWTKeyCollection()
        _ = try await keys.add(jwksJSON: jwks.text)
        return try await keys.verify(idToken, as: OpenClaims.self).claims
    }
}

/// Any claims; checks are made by the tests against the emulator's clock.
struct OpenClaims: JWTPayload {
    var claims: [String: JSONValue]
    init(from decoder: any Decoder) throws { claims = try [String: JSONValue](from: decoder) }
    func encode(to encoder: any Encoder) throws { try claims.encode(to: encoder) }
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// The PKCE pair of spec §1.1: a 43-character verifier and its S256 challenge.
func pkcePair() -> (verifier: String, challenge: String) {
    let pkce = PKCE()
    return (pkce.verifier.revealed(), pkce.challenge)
}

/// A query string from pairs, percent-encoded.
func queryString(_ items: [(String, String)]) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    return items.map { "\($0)=\($1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&")
}
