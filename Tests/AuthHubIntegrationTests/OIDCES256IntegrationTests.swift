import AuthHub
import AuthHubEmulator
import AuthHubOIDC
import AuthHubTesting
import Foundation
import Testing

/// The generic OpenID Connect provider against an emulated tenant that signs its ID tokens with
/// ES256 (a P-256 key in its JWKS), over real HTTP on loopback.
@Suite struct OIDCES256IntegrationTests {
    @Test func browserSignInWithES256SignedIDTokens() async throws {
        let emulator = try await Emulator(modules: [Auth0EmulatorModule(idTokenSigningAlgorithm: .es256)]).start()
        defer { Task { await emulator.stop() } }
        let wire = URLSessionTransport(defaultTimeout: .seconds(30), followRedirects: false)
        let seeded = try await wire.send(.post, emulator.url("/auth0/__emulator/users"), headerFields: [.contentType: "application/json"], body: try JSONEncoder().encode(["email": "erin@example.com", "password": "correct horse battery staple"] as JSONValue))
        #expect(seeded.status == 201)

        let provider = OIDCProvider(id: "idp", configuration: OIDCConfiguration(issuer: emulator.url("/auth0/"), clientId: "authhub-it"),
                                    context: ProviderContext(transport: URLSessionTransport(defaultTimeout: .seconds(30))))
        let metadata = try await provider.metadata()
        #expect(metadata.idTokenSigningAlgValuesSupported == ["ES256"])
        let jwks = try JSONValue.parse(try await wire.send(.get, metadata.jwksURI).body)
        let key = try #require(jwks["keys"]?.arrayValue?.first)
        #expect(key["kty"] == "EC" && key["crv"] == "P-256" && key["alg"] == "ES256")

        let session = try await provider.signInWithBrowser(timeout: .seconds(30), open: { url in
            // The test is the browser: the emulator's hook completes the login, then the 302 to the
            // loopback redirect URI is followed by hand.
            let authorize = try await wire.send(.get, url, headerFields: [HTTPField.Name.constant("X-AuthHub-Emulator-User"): "erin@example.com"])
            #expect(authorize.status == 302)
            let location = try #require(authorize.headerFields["Location"].flatMap(URL.init(string:)))
            Task.detached { _ = try await wire.send(.get, location) }
        })
        #expect(session.claims["email"] == "erin@example.com")
        let rawIDToken = try #require(session.idToken)
        let idToken = try #require(IDTokenValidator.decode(rawIDToken))
        #expect(idToken.header["alg"] == "ES256")
        #expect(idToken.header["kid"] == key["kid"])
        #expect(idToken.payload["nonce"] != nil, "the nonce was sent, and checked by the validator")
    }
}
