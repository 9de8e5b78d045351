import AuthHub
import AuthHubTesting
import Crypto
import _CryptoExtras
import Foundation
import Testing
import HTTPTypes
@testable import AuthHubOIDC

/// What enterprise OAuth servers ask of a confidential client: client authentication
/// (`client_secret_basic`, `client_secret_post`, `private_key_jwt`) at every endpoint that
/// authenticates it, pushed authorization requests (RFC 9126), the authorization response's `iss`
/// (RFC 9207), and revocation (RFC 7009).
@Suite struct EnterpriseClientTests {
    let server = KeyServer()
    let clock = FakeClock(mode: .manual)
    /// The nonce the next ID token carries (the transaction's).
    let nonce = Mutex<String?>(nil)
    static let issuer = "https://idp.example.com/"

    func discovery(_ extra: [String: JSONValue] = [:]) {
        var document: [String: JSONValue] = [
            "issuer": .string(Self.issuer), "authorization_endpoint": "https://idp.example.com/authorize",
            "token_endpoint": "https://idp.example.com/oauth/token", "jwks_uri": "https://idp.example.com/.well-known/jwks.json",
            "revocation_endpoint": "https://idp.example.com/oauth/revoke",
            "pushed_authorization_request_endpoint": "https://idp.example.com/oauth/par",
        ]
        document.merge(extra) { _, new in new }
        let served = JSONValue.object(document)
        server.transport.on(.get, "/.well-known/openid-configuration") { _ in .json(200, served) }
    }

    func provider(_ authentication: OIDCClientAuthentication?, secret: Secret<String>? = nil, par: Bool = false,
                  audience: ClientAssertionAudience = .issuer) -> OIDCProvider {
        OIDCProvider(id: "corp",
                     configuration: OIDCConfiguration(issuer: URL(string: Self.issuer)!, clientId: "client-1", clientSecret: secret,
                                                      redirectURI: URL(string: "https://app.example.com/callback"),
                                                      clientAuthentication: authentication, pushedAuthorizationRequests: par,
                                                      clientAssertionAudience: audience),
                     context: ProviderContext(transport: server.transport, clock: clock))
    }

    func stubTokens() {
        server.transport.on(.post, "/oauth/token") { [clock, nonce] _ in
            let now = clock.now.timeIntervalSince1970
            var claims: [String: JSONValue] = ["iss": .string(Self.issuer), "sub": "user-1", "aud": "client-1", "exp": .number(now + 3600), "iat": .number(now)]
            if let nonce = nonce.withLock({ $0 }) { claims["nonce"] = .string(nonce) }
            let idToken = try await sign(claims)
            return .json(200, ["access_token": "AT", "token_type": "Bearer", "id_token": .string(idToken), "refresh_token": "RT", "expires_in": 3600])
        }
    }

    /// Signs in with a code through `makeTransaction` and `completeSignIn`, the callback carrying `iss` when given.
    func signIn(_ provider: OIDCProvider, iss: String? = nil) async throws -> Session {
        let transaction = try await provider.makeTransaction()
        nonce.withLock { $0 = transaction.nonce?.revealed() }
        var callback = "https://app.example.com/callback?code=CODE&state=\(transaction.state.revealed())"
        if let iss { callback += "&iss=" + FormEncoding.escape(iss) }
        return try await provider.completeSignIn(callbackURL: URL(string: callback)!, transaction: transaction)
    }

    /// The claims of a JWT, not verified.
    static func claims(_ jwt: String) -> [String: JSONValue]? {
        let parts = jwt.split(separator: ".")
        guard parts.count == 3 else { return nil }
        return Base64URL.decode(String(parts[1])).flatMap { try? JSONValue.parse($0) }?.objectValue
    }

    @Test func clientSecretBasicAndPostSendTheSecretTheirWay() async throws {
        discovery()
        stubTokens()
        _ = try await signIn(provider(nil, secret: Secret("s3cret:+")))
        let basic = try #require(server.transport.requests(to: "/oauth/token").last)
        let expected = "Basic " + Data("client-1:s3cret%3A%2B".utf8).base64EncodedString()
        #expect(basic.headerFields[.authorization] == expected && basic.formBody["client_secret"] == nil)

        _ = try await signIn(provider(.clientSecretPost(Secret("s3cret:+")), secret: Secret("s3cret:+")))
        let post = try #require(server.transport.requests(to: "/oauth/token").last)
        #expect(post.headerFields[.authorization] == nil)
        #expect(post.formBody["client_secret"] == "s3cret:+" && post.formBody["client_id"] == "client-1")

        _ = try await signIn(provider(OIDCClientAuthentication.none))
        let none = try #require(server.transport.requests(to: "/oauth/token").last)
        #expect(none.headerFields[.authorization] == nil && none.formBody["client_secret"] == nil && none.formBody["client_id"] == "client-1")
    }

    @Test(arguments: ["ES256", "RS256"])
    func privateKeyJWTAssertionsAreSignedShortLivedAndUnique(algorithm: String) async throws {
        discovery()
        stubTokens()
        let pem: String, verify: (String) throws -> Bool
        if algorithm == "ES256" {
            let key = P256.Signing.PrivateKey()
            pem = key.pemRepresentation
            verify = { jwt in
                let parts = jwt.split(separator: ".")
                let signature = try P256.Signing.ECDSASignature(rawRepresentation: Base64URL.decode(String(parts[2])) ?? Data())
                return key.publicKey.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8))
            }
        } else {
            let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            pem = key.pemRepresentation
            verify = { jwt in
                let parts = jwt.split(separator: ".")
                let signature = _RSA.Signing.RSASignature(rawRepresentation: Base64URL.decode(String(parts[2])) ?? Data())
                return key.publicKey.isValidSignature(signature, for: SHA256.hash(data: Data((parts[0] + "." + parts[1]).utf8)), padding: .insecurePKCS1v1_5)
            }
        }
        let key = try ClientAssertionKey(pem: Secret(pem), keyID: "client-key-1")
        #expect(key.algorithm == algorithm && !key.description.contains("PRIVATE"))
        let corp = provider(.privateKeyJWT(key))
        _ = try await signIn(corp)
        _ = try await corp.refresh(Session(providerID: "corp", accessToken: Secret("AT"), refreshToken: Secret("RT")), scope: nil)
        let sent = server.transport.requests(to: "/oauth/token")
        #expect(sent.count == 2)
        var jtis = Set<String>()
        for request in sent {
            #expect(request.headerFields[.authorization] == nil)
            #expect(request.formBody["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
            let assertion = try #require(request.formBody["client_assertion"])
            #expect(try verify(assertion))
            let header = try #require(Base64URL.decode(String(assertion.split(separator: ".")[0])).flatMap { try? JSONValue.parse($0) })
            #expect(header["alg"]?.stringValue == algorithm && header["kid"] == "client-key-1")
            let claims = try #require(Self.claims(assertion))
            #expect(claims["iss"] == "client-1" && claims["sub"] == "client-1" && claims["aud"]?.stringValue == Self.issuer)
            let iat = try #require(claims["iat"]?.doubleValue), exp = try #require(claims["exp"]?.doubleValue)
            #expect(iat == clock.now.timeIntervalSince1970.rounded(.down) && exp == iat + 60)
            jtis.insert(claims["jti"]?.stringValue ?? "")
        }
        #expect(jtis.count == 2 && !jtis.contains(""), "a unique jti per assertion")
    }

    /// `clientAssertionAudience: endpoint`: each assertion names the endpoint it is sent to (PAR, token, revocation).
    @Test func assertionsCanNameTheEndpointTheyAreSentTo() async throws {
        discovery()
        stubTokens()
        server.transport.on(.post, "/oauth/par") { _ in .json(201, ["request_uri": "urn:ietf:params:oauth:request_uri:abc", "expires_in": 60]) }
        server.transport.on(.post, "/oauth/revoke") { _ in .json(200, [:]) }
        let corp = provider(.privateKeyJWT(try ClientAssertionKey(pem: Secret(P256.Signing.PrivateKey().pemRepresentation))), par: true, audience: .endpoint)
        let session = try await signIn(corp)
        try await corp.signOut(session)
        for (path, url) in [("/oauth/par", "https://idp.example.com/oauth/par"), ("/oauth/token", "https://idp.example.com/oauth/token"),
                            ("/oauth/revoke", "https://idp.example.com/oauth/revoke")] {
            let assertion = try #require(server.transport.requests(to: path).first?.formBody["client_assertion"], "\(path)")
            #expect(Self.claims(assertion)?["aud"]?.stringValue == url, "\(path)")
        }
    }

    @Test func aKeyThatIsNotAPrivateKeyIsAConfigurationError() throws {
        let error = #expect(throws: AuthError.self) { try ClientAssertionKey(pem: Secret("-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----")) }
        #expect(error?.code == .invalidConfiguration && error?.message.contains("nope") == false)
        let small = try _RSA.Signing.PrivateKey(unsafeKeySize: .init(bitCount: 1024))
        #expect(throws: AuthError.self) { try ClientAssertionKey(pem: Secret(small.pemRepresentation)) }
    }

    /// RFC 9126: the authorization parameters go to the PAR endpoint; the browser gets client_id and request_uri only.
    @Test func pushedAuthorizationRequestsLeaveOnlyTheRequestURIInTheBrowser() async throws {
        discovery()
        server.transport.on(.post, "/oauth/par") { _ in .json(201, ["request_uri": "urn:ietf:params:oauth:request_uri:abc", "expires_in": 60]) }
        let corp = provider(.clientSecretPost(Secret("s")), secret: Secret("s"), par: true)
        let transaction = try await corp.makeTransaction()
        let query = queryDict(transaction.url)
        #expect(transaction.url.path == "/authorize")
        #expect(Set(query.keys) == ["client_id", "request_uri"] && query["request_uri"] == "urn:ietf:params:oauth:request_uri:abc")
        let pushed = try #require(server.transport.requests(to: "/oauth/par").first)
        let form = pushed.formBody
        #expect(form["client_id"] == "client-1" && form["client_secret"] == "s")
        #expect(form["response_type"] == "code" && form["code_challenge_method"] == "S256" && form["redirect_uri"] == "https://app.example.com/callback")
        #expect(form["state"] == transaction.state.revealed() && form["nonce"] == transaction.nonce?.revealed())
        // The code exchange still proves the same PKCE verifier.
        stubTokens()
        nonce.withLock { $0 = transaction.nonce?.revealed() }
        _ = try await corp.completeSignIn(callbackURL: URL(string: "https://app.example.com/callback?code=C&state=\(transaction.state.revealed())")!,
                                          transaction: transaction)
        #expect(server.transport.requests(to: "/oauth/token").first?.formBody["code_verifier"] == transaction.codeVerifier.revealed())
    }

    @Test func discoveryThatRequiresPARIsObeyedAndABadReplyIsAnError() async throws {
        discovery(["require_pushed_authorization_requests": true])
        let replies = Mutex<[StubTransport.Reply]>([
            .json(201, ["request_uri": "urn:x", "expires_in": 90]),
            .json(201, ["expires_in": 90]),
            .json(201, ["request_uri": "urn:x", "expires_in": 100_000]),
            .json(400, ["error": "invalid_request", "error_description": "bad redirect_uri"]),
        ])
        server.transport.on(.post, "/oauth/par") { _ in replies.withLock { $0.removeFirst() } }
        let corp = provider(nil)
        #expect(Set(queryDict(try await corp.makeTransaction().url).keys) == ["client_id", "request_uri"], "required by discovery, not configured")
        for expected in ["request_uri", "expires_in"] {
            let error = await #expect(throws: AuthError.self) { try await corp.makeTransaction() }
            #expect(error?.code == .invalidRequest && error?.details["field"] == expected)
        }
        let refused = await #expect(throws: AuthError.self) { try await corp.makeTransaction() }
        #expect(refused?.code == .invalidRequest && refused?.statusCode == 400)
    }

    @Test func parWithoutAnEndpointIsAConfigurationError() async throws {
        server.transport.on(.get, "/.well-known/openid-configuration") { _ in
            .json(200, ["issuer": .string(Self.issuer), "authorization_endpoint": "https://idp.example.com/authorize",
                        "token_endpoint": "https://idp.example.com/oauth/token", "jwks_uri": "https://idp.example.com/.well-known/jwks.json"])
        }
        let error = await #expect(throws: AuthError.self) { try await provider(nil, par: true).makeTransaction() }
        #expect(error?.code == .invalidConfiguration)
    }

    /// RFC 9207: the authorization response's iss.
    @Test func theAuthorizationResponseIssuerIsChecked() async throws {
        discovery(["authorization_response_iss_parameter_supported": true])
        stubTokens()
        let corp = provider(nil)
        #expect(try await signIn(corp, iss: Self.issuer).userID == "user-1")
        let missing = await #expect(throws: AuthError.self) { try await signIn(corp) }
        #expect(missing?.details["reason"] == "missingAuthorizationResponseIssuer")
        let other = await #expect(throws: AuthError.self) { try await signIn(corp, iss: "https://evil.example.com/") }
        #expect(other?.details["reason"] == "mismatchedAuthorizationResponseIssuer")
        #expect(server.transport.requests(to: "/oauth/token").count == 1, "no code is exchanged after a mix-up")
    }

    @Test func anIssuerParameterIsCheckedEvenWhenNotAnnounced() async throws {
        discovery()
        stubTokens()
        let corp = provider(nil)
        _ = try await signIn(corp)
        let other = await #expect(throws: AuthError.self) { try await signIn(corp, iss: "https://evil.example.com/") }
        #expect(other?.details["reason"] == "mismatchedAuthorizationResponseIssuer")
    }

    @Test func signOutRevokesTheRefreshTokenWithTheClientsAuthentication() async throws {
        discovery()
        server.transport.on(.post, "/oauth/revoke") { _ in .raw(200, "") }
        try await provider(.clientSecretPost(Secret("s")), secret: Secret("s"))
            .signOut(Session(providerID: "corp", accessToken: Secret("AT"), refreshToken: Secret("RT")))
        let revoke = try #require(server.transport.requests(to: "/oauth/revoke").first)
        #expect(revoke.formBody["token"] == "RT" && revoke.formBody["token_type_hint"] == "refresh_token")
        #expect(revoke.formBody["client_id"] == "client-1" && revoke.formBody["client_secret"] == "s")
    }

    /// DPoP with the generic provider: `dpop_jkt` at the authorization request, a proof of the same
    /// key at the code exchange and at every renewal, and the key kept with the bound session.
    @Test func aDPoPProviderBindsTheCodeAndRenewsWithTheSessionsKey() async throws {
        discovery()
        let tokenType = Mutex("DPoP")
        server.transport.on(.post, "/oauth/token") { [clock, nonce] _ in
            let now = clock.now.timeIntervalSince1970
            var claims: [String: JSONValue] = ["iss": .string(Self.issuer), "sub": "user-1", "aud": "client-1", "exp": .number(now + 3600), "iat": .number(now)]
            if let nonce = nonce.withLock({ $0 }) { claims["nonce"] = .string(nonce) }
            return .json(200, ["access_token": "AT", "token_type": .string(tokenType.withLock { $0 }), "id_token": .string(try await sign(claims)),
                               "refresh_token": "RT", "expires_in": 3600])
        }
        let corp = OIDCProvider(id: "corp", configuration: OIDCConfiguration(issuer: URL(string: Self.issuer)!, clientId: "client-1",
                                                                            redirectURI: URL(string: "https://app.example.com/callback"), dpop: true),
                                context: ProviderContext(transport: server.transport, clock: clock))
        let transaction = try await corp.makeTransaction()
        let key = try #require(transaction.dpopKey)
        #expect(queryDict(transaction.url)["dpop_jkt"] == key.thumbprint)
        nonce.withLock { $0 = transaction.nonce?.revealed() }
        let session = try await corp.completeSignIn(
            callbackURL: URL(string: "https://app.example.com/callback?code=C&state=\(transaction.state.revealed())")!, transaction: transaction)
        #expect(try session.isDPoPBound && session.dpopKey() == key)
        func proofKey(_ request: StubTransport.Request) -> [String: JSONValue]? {
            guard let proof = request.headerFields[HTTPField.Name("DPoP")!],
                  let header = Base64URL.decode(String(proof.split(separator: ".")[0])).flatMap({ try? JSONValue.parse($0) }) else { return nil }
            return header["jwk"]?.objectValue
        }
        #expect(proofKey(try #require(server.transport.requests(to: "/oauth/token").last)) == key.publicJWK)
        let renewed = try await corp.refresh(session, scope: nil)
        #expect(proofKey(try #require(server.transport.requests(to: "/oauth/token").last)) == key.publicJWK, "the session's own key")
        #expect(try renewed.dpopKey() == key)
        // A DPoP reply to a request that sent no proof is refused.
        let bearerOnly = OIDCProvider(id: "corp", configuration: OIDCConfiguration(issuer: URL(string: Self.issuer)!, clientId: "client-1"),
                                      context: ProviderContext(transport: server.transport, clock: clock))
        let error = await #expect(throws: AuthError.self) {
            try await bearerOnly.refresh(Session(providerID: "corp", accessToken: Secret("AT"), refreshToken: Secret("RT")), scope: nil)
        }
        #expect(error?.details["reason"] == "unexpectedDPoPTokenType")
    }

    @Test func providersJSONChecksTheAuthenticationMethod() throws {
        let registry = ProviderRegistry([OIDCPlugin()])
        func problems(_ entry: String) -> String {
            let config = #"{"environments":{"dev":{"providers":[{"id":"corp","type":"oidc","issuer":"https://idp.example.com/","clientId":"c",\#(entry)}]}}}"#
            do {
                _ = try ConfigLoader(registry: registry, environmentVariables: [:]).load(data: Data(config.utf8))
                return ""
            } catch {
                return "\(error)"
            }
        }
        #expect(problems(#""tokenEndpointAuthMethod":"client_secret_post""#).contains("clientSecret"))
        #expect(problems(#""tokenEndpointAuthMethod":"private_key_jwt""#).contains("clientAssertionKey"))
        #expect(problems(#""tokenEndpointAuthMethod":"tls_client_auth""#).contains("tokenEndpointAuthMethod"))
        #expect(problems(#""tokenEndpointAuthMethod":"client_secret_basic","clientSecret":"x""#) == "")
        #expect(problems(#""clientAssertionAudience":"tokenEndpoint""#).contains("clientAssertionAudience"))
        let pem = P256.Signing.PrivateKey().pemRepresentation.replacingOccurrences(of: "\n", with: "\\n")
        let config = #"{"environments":{"dev":{"providers":[{"id":"corp","type":"oidc","issuer":"https://idp.example.com/","clientId":"c","tokenEndpointAuthMethod":"private_key_jwt","clientAssertionKey":"\#(pem)","clientAssertionKeyID":"k","pushedAuthorizationRequests":true,"clientAssertionAudience":"endpoint"}]}}}"#
        let environment = try ConfigLoader(registry: registry, environmentVariables: [:]).load(data: Data(config.utf8))
        let parsed = try OIDCConfiguration(try #require(environment.providers.first))
        #expect(parsed.clientAuthentication?.methodName == "private_key_jwt" && parsed.pushedAuthorizationRequests)
        #expect(parsed.clientAssertionAudience == .endpoint)
    }
}
