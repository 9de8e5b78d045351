import AuthHub
import AuthHubAuth0
import AuthHubEmulator
import AuthHubOIDC
import AuthHubTesting
import Crypto
import _CryptoExtras
import Foundation
import Testing

/// A confidential Auth0 application against the emulator's independent reading of Auth0's client
/// authentication and pushed authorization requests, over real HTTP on loopback: Web Auth pushed to
/// `/oauth/par` with a `private_key_jwt` assertion, the code exchange, renewal and revocation with
/// fresh assertions; a secret client's password sign-in; and the refusals a tenant answers.
@Suite struct Auth0ConfidentialIntegrationTests {
    static let callback = "http://127.0.0.1:9/callback"
    /// One RSA key for the suite (debug-build key generation is slow).
    static var rsa: _RSA.Signing.PrivateKey { SharedTestRSAKeys.first }
    static let secret = "a-client-secret-of-at-least-32-characters"

    struct Tenant {
        let emulator: RunningEmulator
        let wire = URLSessionTransport(defaultTimeout: .seconds(30), followRedirects: false)

        static func start() async throws -> Tenant {
            let tenant = Tenant(emulator: try await Emulator.start())
            let user = try await tenant.post("/auth0/__emulator/users", ["email": "cora@example.com", "password": .string(Auth0IntegrationTests.password)])
            #expect(user.status == 201)
            let pkjwt = try await tenant.post("/auth0/__emulator/clients", [
                "client_id": "authhub-pkjwt", "callbacks": [.string(callback)], "token_endpoint_auth_method": "private_key_jwt",
                "require_pushed_authorization_requests": true,
                "client_authentication_methods": ["private_key_jwt": ["credentials": [
                    ["credential_type": "public_key", "pem": .string(rsa.publicKey.pemRepresentation), "alg": "RS256", "kid": "cred-1"],
                ]]],
            ])
            #expect(pkjwt.status == 201, "\(String(decoding: pkjwt.body, as: UTF8.self))")
            let post = try await tenant.post("/auth0/__emulator/clients", [
                "client_id": "authhub-secret", "callbacks": [.string(callback)], "token_endpoint_auth_method": "client_secret_post",
                "client_secret": .string(secret),
            ])
            #expect(post.status == 201, "\(String(decoding: post.body, as: UTF8.self))")
            #expect(!String(decoding: post.body, as: UTF8.self).contains(secret), "the registration reply does not echo the secret")
            return tenant
        }

        func post(_ path: String, _ body: [String: JSONValue]) async throws -> HTTPReply {
            try await wire.send(.post, emulator.url(path), headerFields: [.contentType: "application/json"],
                                body: try JSONEncoder().encode(JSONValue.object(body)))
        }

        func provider(_ clientId: String, _ authentication: OIDCClientAuthentication?, par: Bool, dpop: Bool = false) throws -> Auth0Provider {
            Auth0Provider(id: "auth0",
                          configuration: try Auth0Configuration(domain: emulator.url("/auth0").absoluteString, clientId: clientId,
                                                                connection: "Username-Password-Authentication", dpop: dpop,
                                                                clientAuthentication: authentication, pushedAuthorizationRequests: par),
                          context: ProviderContext(transport: URLSessionTransport(defaultTimeout: .seconds(30))))
        }

        /// The browser at Universal Login (the emulator's sign-in hook), returning the redirect.
        func authorize(_ url: URL) async throws -> HTTPReply {
            try await wire.send(.get, url, headerFields: [HTTPField.Name.constant("X-AuthHub-Emulator-User"): "cora@example.com"])
        }
    }

    static var key: ClientAssertionKey { try! ClientAssertionKey(pem: Secret(rsa.pemRepresentation), keyID: "cred-1") }

    @Test func pushedWebAuthWithPrivateKeyJWTThenRenewalAndRevocation() async throws {
        let tenant = try await Tenant.start()
        defer { Task { await tenant.emulator.stop() } }
        let provider = try tenant.provider("authhub-pkjwt", .privateKeyJWT(Self.key), par: true)
        let transaction = try await provider.webAuth.begin(redirectURI: Self.callback)
        let items = URLComponents(url: transaction.url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        #expect(items.map(\.name) == ["client_id", "request_uri"])
        #expect(items.last?.value?.hasPrefix("urn:ietf:params:oauth:request_uri:") == true)
        let reply = try await tenant.authorize(transaction.url)
        #expect(reply.status == 302)
        let location = try #require(reply.headerFields["Location"].flatMap(URL.init(string:)))
        let session = try await provider.webAuth.finish(callback: location, transaction: transaction)
        #expect(session.claims["email"] == "cora@example.com" && session.refreshToken != nil)
        // The request_uri is spent.
        let again = try await tenant.authorize(transaction.url)
        #expect(again.headerFields["Location"]?.contains("code=") != true)

        let renewed = try await provider.refresh(session, scope: nil)
        #expect(renewed.accessToken != session.accessToken)
        try await provider.signOut(renewed)
        await #expect(throws: AuthError.self) { _ = try await provider.refresh(renewed, scope: nil) }
    }

    /// The tenant spends an assertion's `jti` before it looks at the DPoP proof, so a request it
    /// refuses for a DPoP nonce (`use_dpop_nonce`) has used its assertion up: the retry with the
    /// nonce carries a new assertion (it was refused as a replay, `invalid_client`, when the same
    /// bytes went again). Pushed request, code exchange and renewal, each through a nonce round trip.
    @Test func aDPoPNonceRetryCarriesAFreshAssertion() async throws {
        let tenant = try await Tenant.start()
        defer { Task { await tenant.emulator.stop() } }
        let nonceMode = try await tenant.post("/auth0/__emulator/dpop", ["nonce_required": true])
        #expect(nonceMode.status == 200 || nonceMode.status == 204)
        let provider = try tenant.provider("authhub-pkjwt", .privateKeyJWT(Self.key), par: true, dpop: true)
        let transaction = try await provider.webAuth.begin(redirectURI: Self.callback)
        let reply = try await tenant.authorize(transaction.url)
        let location = try #require(reply.headerFields["Location"].flatMap(URL.init(string:)))
        let session = try await provider.webAuth.finish(callback: location, transaction: transaction)
        #expect(session.isDPoPBound)
        // A new nonce: the renewal's first attempt is refused for it, the second carries it.
        _ = try await tenant.post("/auth0/__emulator/dpop", ["nonce_required": true, "rotate_nonce": true])
        let renewed = try await provider.refresh(session, scope: nil)
        #expect(renewed.isDPoPBound && renewed.accessToken != session.accessToken)
    }

    @Test func theTenantRefusesWhatItShould() async throws {
        let tenant = try await Tenant.start()
        defer { Task { await tenant.emulator.stop() } }
        // An assertion from a key that is not the application's credential.
        let stranger = try ClientAssertionKey(pem: Secret(SharedTestRSAKeys.second.pemRepresentation), keyID: "cred-1")
        let forged = try tenant.provider("authhub-pkjwt", .privateKeyJWT(stranger), par: true)
        let refused = await #expect(throws: AuthError.self) { _ = try await forged.webAuth.begin(redirectURI: Self.callback) }
        #expect(refused?.statusCode == 401, "\(String(describing: refused))")
        // A secret where the application has a key.
        let wrongMethod = try tenant.provider("authhub-pkjwt", .clientSecretPost(Secret(Self.secret)), par: true)
        let mismatch = await #expect(throws: AuthError.self) { _ = try await wrongMethod.webAuth.begin(redirectURI: Self.callback) }
        #expect(mismatch?.statusCode == 401)
        // The application must push its requests: a plain /authorize is refused.
        let unpushed = try tenant.provider("authhub-pkjwt", .privateKeyJWT(Self.key), par: false)
        let plain = try await tenant.authorize(try unpushed.webAuth.start(redirectURI: Self.callback).url)
        #expect(plain.headerFields["Location"]?.contains("code=") != true, "\(plain.status)")
    }

    @Test func aSecretClientSignsInWithItsSecretAndNotWithoutIt() async throws {
        let tenant = try await Tenant.start()
        defer { Task { await tenant.emulator.stop() } }
        let good = try tenant.provider("authhub-secret", .clientSecretPost(Secret(Self.secret)), par: false)
        let session = try await good.signIn(.password(identifier: "cora@example.com", password: Secret(Auth0IntegrationTests.password)))
        #expect(session.claims["email"] == "cora@example.com")
        _ = try await good.refresh(session, scope: nil)
        let wrong = try tenant.provider("authhub-secret", .clientSecretPost(Secret(Self.secret + "x")), par: false)
        let refused = await #expect(throws: AuthError.self) {
            _ = try await wrong.signIn(.password(identifier: "cora@example.com", password: Secret(Auth0IntegrationTests.password)))
        }
        #expect(refused?.statusCode == 401)
        let none = try tenant.provider("authhub-secret", nil, par: false)
        await #expect(throws: AuthError.self) {
            _ = try await none.signIn(.password(identifier: "cora@example.com", password: Secret(Auth0IntegrationTests.password)))
        }
        // Basic with the right secret, where the application is registered for post: refused too.
        let basic = try tenant.provider("authhub-secret", .clientSecretBasic(Secret(Self.secret)), par: false)
        await #expect(throws: AuthError.self) {
            _ = try await basic.signIn(.password(identifier: "cora@example.com", password: Secret(Auth0IntegrationTests.password)))
        }
    }
}
