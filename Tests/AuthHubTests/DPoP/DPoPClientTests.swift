import AuthHub
import AuthHubTesting
import Crypto
import Foundation
import HTTPTypes
import Testing

/// The client side of DPoP (RFC 9449): the key, its RFC 7638 thumbprint, the proofs, the nonce
/// retry of the API client, and the headers an app sends to its own API.
@Suite struct DPoPClientTests {
    static let dpop = HTTPField.Name("DPoP")!
    static let dpopNonce = HTTPField.Name("DPoP-Nonce")!

    /// A base64url JSON object (a JWT part), or nil.
    static func object(_ part: String) -> [String: JSONValue]? {
        Base64URL.decode(part).flatMap { try? JSONValue.parse($0) }?.objectValue
    }

    /// RFC 7638, section 3.1: the example RSA key's thumbprint.
    @Test func theRFC7638ExampleThumbprintIsReproduced() throws {
        let n = "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn6"
            + "4tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n9"
            + "1CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"
        // Members that are not required (alg, kid) take no part.
        let jwk: [String: JSONValue] = ["kty": "RSA", "n": .string(n), "e": "AQAB", "alg": "RS256", "kid": "2011-04-29"]
        #expect(try JWKThumbprint.sha256(jwk) == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
        #expect(throws: AuthError.self) { try JWKThumbprint.sha256(["kty": "RSA", "e": "AQAB"]) }
        #expect(throws: AuthError.self) { try JWKThumbprint.sha256(["kty": "oct", "k": "c2VjcmV0"]) }
    }

    @Test func aKeyIsKeptAsASecretAndShowsOnlyItsThumbprint() throws {
        let key = DPoPKey()
        let restored = try DPoPKey(stored: key.stored)
        #expect(restored.thumbprint == key.thumbprint && restored == key)
        #expect(key.description == "DPoPKey(jkt: \(key.thumbprint))")
        #expect(!String(describing: key.stored).contains(key.stored.revealed()))
        #expect(key.publicJWK["d"] == nil && key.publicJWK["kty"] == "EC" && key.publicJWK["crv"] == "P-256")
        #expect(try JWKThumbprint.sha256(key.publicJWK) == key.thumbprint)
        #expect(throws: AuthError.self) { try DPoPKey(stored: Secret("not a key")) }
        #expect(throws: AuthError.self) { try DPoPKey(stored: Secret(Base64URL.encode([UInt8](repeating: 0, count: 32)))) }
    }

    @Test func aProofCarriesTheRFC9449ClaimsAndVerifiesWithItsOwnKey() throws {
        let key = DPoPKey()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let token = Secret("access-token-value")
        let url = try #require(URL(string: "HTTPS://API.Example.com:443/things/1?q=2#frag"))
        let proof = try key.proof(method: "POST", url: url, accessToken: token, nonce: "n-1", now: now).revealed()
        let parts = proof.split(separator: ".").map(String.init)
        try #require(parts.count == 3)
        let header = try #require(Self.object(parts[0]))
        let claims = try #require(Self.object(parts[1]))
        #expect(header["typ"] == "dpop+jwt" && header["alg"] == "ES256")
        #expect(header["jwk"]?.objectValue == key.publicJWK)
        #expect(claims["htm"] == "POST")
        #expect(claims["htu"] == "https://api.example.com/things/1", "query, fragment and the default port are left out")
        #expect(claims["iat"]?.doubleValue == 1_800_000_000)
        #expect(claims["nonce"] == "n-1")
        let expectedATH = Base64URL.encode(SHA256.hash(data: Data("access-token-value".utf8)))
        #expect(claims["ath"]?.stringValue == expectedATH)
        #expect((claims["jti"]?.stringValue?.count ?? 0) >= 22)
        // The signature: ES256 (raw r ‖ s) over header.payload, by the key in the header.
        let x = try #require(Base64URL.decode(key.publicJWK["x"]?.stringValue ?? ""))
        let y = try #require(Base64URL.decode(key.publicJWK["y"]?.stringValue ?? ""))
        let publicKey = try P256.Signing.PublicKey(rawRepresentation: x + y)
        let signatureBytes = try #require(Base64URL.decode(parts[2]))
        let signature = try P256.Signing.ECDSASignature(rawRepresentation: signatureBytes)
        #expect(publicKey.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8)))
        // Each proof has its own jti.
        let second = try key.proof(method: "POST", url: url, now: now).revealed()
        let secondClaims = try #require(Self.object(String(second.split(separator: ".")[1])))
        #expect(secondClaims["jti"] != claims["jti"] && secondClaims["ath"] == nil && secondClaims["nonce"] == nil)
    }

    @Test(arguments: [
        ("HTTPS://API.Example.com:443/a/b?c=1#frag", "https://api.example.com/a/b"),
        ("http://h:80", "http://h/"),
        ("http://H:8080/x?", "http://h:8080/x"),
        ("https://[::1]:443/p", "https://[::1]/p"),
        ("https://h:80/p", "https://h:80/p"),
        ("ftp://h/x", nil), ("http://user@h/x", nil), ("http://", nil), ("h/x", nil), ("http://h:/x", nil), ("http://h x/", nil),
        ("HtTpS://h", "https://h/"), ("https://h:443", "https://h/"), ("http://h:443/x", "http://h:443/x"), ("httpx://h/", nil),
        ("https://h#f", "https://h/"), ("https://h\\x/", nil), ("http://é/", nil), ("https://h?q=/p", "https://h/"),
        ("https://Host/Path/%C3%89", "https://host/Path/%C3%89"), ("htt://h/", nil), ("https:/h/", nil),
    ] as [(String, String?)])
    func targetURIsAreNormalizedWithoutFoundation(uri: String, expected: String?) {
        #expect(DPoPKey.normalizedTarget(uri) == expected)
        if let expected, let url = URL(string: uri) { #expect(DPoPKey.targetURI(url) == expected) }
    }

    @Test func aDPoPTokenTypeIsKeptOnlyWhenAProofWasSent() throws {
        let key = DPoPKey()
        #expect(try DPoPKey.binding(tokenType: "DPoP", sent: key, provider: "p") == key)
        #expect(try DPoPKey.binding(tokenType: "dpop", sent: key, provider: "p") == key)
        #expect(try DPoPKey.binding(tokenType: "Bearer", sent: key, provider: "p") == nil, "a server that did not bind")
        #expect(try DPoPKey.binding(tokenType: "Bearer", sent: nil, provider: "p") == nil)
        let error = #expect(throws: AuthError.self) { try DPoPKey.binding(tokenType: "DPoP", sent: nil, provider: "p") }
        #expect(error?.details["reason"] == "unexpectedDPoPTokenType")
    }

    func client(_ transport: StubTransport, nonces: DPoPNonceCache? = DPoPNonceCache()) -> APIClient {
        var client = APIClient(provider: "idp", baseURL: URL(string: "https://idp.example.com/")!, transport: transport,
                               retryPolicy: .none)
        client.dpopNonces = nonces
        return client
    }

    func claims(of request: StubTransport.Request) -> [String: JSONValue]? {
        guard let proof = request.headerFields[Self.dpop], let payload = proof.split(separator: ".").dropFirst().first,
              let data = Base64URL.decode(String(payload)) else { return nil }
        return (try? JSONValue.parse(data))?.objectValue
    }

    /// RFC 9449, section 8: the token endpoint's `use_dpop_nonce` is answered by sending the
    /// request once more with the nonce (a new proof); the nonce is kept for the next request.
    @Test func aTokenEndpointNonceChallengeIsAnsweredOnceAndRemembered() async throws {
        let transport = StubTransport()
        let calls = Mutex(0)
        transport.on(.post, "/oauth/token") { request in
            let call = calls.withLock { $0 += 1; return $0 }
            let sentNonce = claims(of: request)?["nonce"]?.stringValue
            if sentNonce != "server-nonce-1" {
                return .json(400, ["error": "use_dpop_nonce", "error_description": "Authorization server requires nonce in DPoP proof"],
                             headerFields: [Self.dpopNonce: "server-nonce-1"])
            }
            return .json(200, ["access_token": .string("at-\(call)"), "token_type": "DPoP", "expires_in": 60],
                         headerFields: [Self.dpopNonce: "server-nonce-1"])
        }
        let nonces = DPoPNonceCache()
        let api = client(transport, nonces: nonces)
        var request = APIRequest(.post, "oauth/token", body: .form([("grant_type", "refresh_token")]), retry: .never, operation: .refresh)
        let key = DPoPKey()
        request.dpop = DPoPProofing(key: key)
        let reply = try await api.send(request)
        #expect(reply.status == 200)
        let sent = transport.requests
        #expect(sent.count == 2)
        let first = try #require(claims(of: sent[0])), second = try #require(claims(of: sent[1]))
        #expect(first["nonce"] == nil && second["nonce"] == "server-nonce-1")
        #expect(first["jti"] != second["jti"], "a new proof for the retry")
        #expect(first["htu"] == "https://idp.example.com/oauth/token" && first["htm"] == "POST")
        #expect(nonces.nonce(for: URL(string: "https://idp.example.com/other")!) == "server-nonce-1")
        // The next request carries the nonce from the start: one round trip.
        _ = try await api.send(request)
        #expect(transport.requests.count == 3)
        #expect(claims(of: transport.requests[2])?["nonce"] == "server-nonce-1")
    }

    @Test func aSecondNonceChallengeIsAnErrorNotALoop() async throws {
        let transport = StubTransport()
        let counter = Mutex(0)
        transport.on(.post, "/oauth/token") { _ in
            let n = counter.withLock { $0 += 1; return $0 }
            return .json(400, ["error": "use_dpop_nonce"], headerFields: [Self.dpopNonce: .init("nonce-\(n)")])
        }
        var request = APIRequest(.post, "oauth/token", retry: .never, operation: .refresh)
        request.dpop = DPoPProofing(key: DPoPKey())
        await #expect(throws: AuthError.self) { try await client(transport).send(request) }
        #expect(transport.requests.count == 2, "one retry with the nonce, then the error")
        // A challenge without a usable nonce is not retried at all.
        let bare = StubTransport()
        bare.on(.post, "/oauth/token") { _ in .json(400, ["error": "use_dpop_nonce"], headerFields: [Self.dpopNonce: "bad\"nonce"]) }
        await #expect(throws: AuthError.self) { try await client(bare).send(request) }
        #expect(bare.requests.count == 1)
    }

    /// RFC 9449, section 9: a resource server's 401 `WWW-Authenticate: DPoP error="use_dpop_nonce"`.
    @Test func aResourceServerNonceChallengeIsAnsweredWithATH() async throws {
        let transport = StubTransport()
        transport.on(.get, "/userinfo") { request in
            guard claims(of: request)?["nonce"] == "rs-nonce" else {
                return .raw(401, "", headerFields: [.wwwAuthenticate: #"DPoP error="use_dpop_nonce", error_description="Resource server requires nonce in DPoP proof""#,
                                                    Self.dpopNonce: "rs-nonce"])
            }
            return .json(200, ["sub": "u1"])
        }
        let token = Secret("the-access-token")
        var request = APIRequest(.get, "userinfo", headerFields: [.authorization: "DPoP the-access-token"], operation: .userInfo)
        request.dpop = DPoPProofing(key: DPoPKey(), accessToken: token)
        _ = try await client(transport, nonces: nil).send(request)
        #expect(transport.requests.count == 2)
        #expect(claims(of: transport.requests[1])?["ath"]?.stringValue == DPoPKey.accessTokenHash(token))
    }

    @Test func aBearerRequestSendsNoProof() async throws {
        let transport = StubTransport()
        transport.on(.get, "/userinfo") { _ in .json(200, ["sub": "u1"], headerFields: [Self.dpopNonce: "ignored"]) }
        let nonces = DPoPNonceCache()
        _ = try await client(transport, nonces: nonces).send(APIRequest(.get, "userinfo"))
        #expect(transport.requests.first?.headerFields[Self.dpop] == nil)
        #expect(nonces.nonce(for: URL(string: "https://idp.example.com/")!) == nil)
    }

    @Test func theNonceCacheIsBoundedAndRefusesMalformedNonces() {
        let cache = DPoPNonceCache(capacity: 2)
        cache.remember("a", for: URL(string: "https://one.example")!)
        cache.remember("b", for: URL(string: "https://two.example")!)
        cache.remember("c", for: URL(string: "https://three.example")!)
        #expect(cache.nonce(for: URL(string: "https://one.example/x")!) == nil, "the oldest origin was forgotten")
        #expect(cache.nonce(for: URL(string: "https://three.example")!) == "c")
        cache.remember("with space", for: URL(string: "https://two.example")!)
        cache.remember(String(repeating: "x", count: 600), for: URL(string: "https://two.example")!)
        #expect(cache.nonce(for: URL(string: "https://two.example")!) == "b")
        // The origin includes the port and scheme.
        #expect(cache.nonce(for: URL(string: "http://three.example")!) == nil)
    }

    @Test func aSessionGivesTheHeadersOfItsTokenType() throws {
        let url = URL(string: "https://api.example.com/v1/things?page=2")!
        let bearer = Session(providerID: "p", accessToken: Secret("at"))
        let fields = try bearer.authorizationHeaders(method: .get, url: url)
        #expect(fields[.authorization] == "Bearer at" && fields[Self.dpop] == nil)

        let key = DPoPKey()
        let bound = Session(providerID: "p", accessToken: Secret("at"), tokenType: "DPoP", secretExtras: [Session.dpopKeyExtra: key.stored])
        #expect(try bound.isDPoPBound && bound.dpopKey() == key)
        let dpopFields = try bound.authorizationHeaders(method: .delete, url: url, nonce: "n")
        #expect(dpopFields[.authorization] == "DPoP at")
        let proof = try #require(dpopFields[Self.dpop])
        let claims = try #require(Self.object(String(proof.split(separator: ".")[1])))
        #expect(claims["htm"] == "DELETE" && claims["htu"] == "https://api.example.com/v1/things" && claims["nonce"] == "n")
        #expect(claims["ath"]?.stringValue == DPoPKey.accessTokenHash(Secret("at")))
        // A DPoP session that lost its key cannot send its token.
        let keyless = Session(providerID: "p", accessToken: Secret("at"), tokenType: "DPoP")
        let error = #expect(throws: AuthError.self) { try keyless.authorizationHeaders(method: .get, url: url) }
        #expect(error?.details["reason"] == "missingDPoPKey")
    }
}
