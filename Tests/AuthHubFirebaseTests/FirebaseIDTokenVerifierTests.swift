import AuthHub
@_spi(Internals) @testable import AuthHubFirebase
import AuthHubTesting
import Foundation
import Testing

/// spec/firebase.md §7 (production) and §4 (emulator mode), and the DESIGN's security negatives.
@Suite struct FirebaseIDTokenVerifierTests {
    let transport = StubTransport()
    let clock = FakeClock()

    func cache(_ source: FirebasePublicKeyCache.Source = .googleJWKS) -> FirebasePublicKeyCache {
        let api = APIClient(provider: "firebase", baseURL: URL(string: "https://www.googleapis.com/")!, transport: transport, clock: clock,
                            retryPolicy: .none)
        return FirebasePublicKeyCache(source: source, api: api, clock: clock)
    }

    func production(_ source: FirebasePublicKeyCache.Source = .googleJWKS) -> (FirebaseIDTokenVerifier, FirebasePublicKeyCache) {
        let keys = cache(source)
        return (FirebaseIDTokenVerifier(projectId: FB.projectId, mode: .production(keys), clock: clock), keys)
    }

    var emulator: FirebaseIDTokenVerifier { FirebaseIDTokenVerifier(projectId: FB.projectId, mode: .emulator, clock: clock) }

    func claims(_ changes: [String: JSONValue?] = [:]) -> [String: JSONValue] { FB.claims(now: clock.now, changes) }

    func expectRejected(_ verifier: FirebaseIDTokenVerifier, _ token: String, reason: String,
                        sourceLocation: SourceLocation = #_sourceLocation) async {
        let error = await #expect(throws: AuthError(.invalidToken), sourceLocation: sourceLocation) {
            try await verifier.verify(Secret(token))
        }
        #expect(error?.details["reason"] == reason, "got \(error?.details["reason"] ?? "nil")", sourceLocation: sourceLocation)
    }

    // MARK: - Production

    @Test func aSignedTokenVerifiesWithTheJWKS() async throws {
        FB.serveKeys(transport)
        let (verifier, keys) = production()
        let token = try await verifier.verify(Secret(try await FB.signed(claims())))
        #expect(token.uid == "uid-1" && token.email == "a@example.com" && token.signInProvider == "password" && !token.isUnsigned)
        #expect(token.expiresAt == clock.now.addingTimeInterval(3600) && token.authTime == clock.now)
        #expect(await keys.fetchCount == 1)
        #expect(transport.requests.first?.url.absoluteString
            == "https://www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com")
    }

    @Test func aSignedTokenVerifiesWithTheX509Map() async throws {
        FB.serveKeys(transport)
        let (verifier, _) = production(.googleX509)
        let token = try await verifier.verify(Secret(try await FB.signed(claims())))
        #expect(token.uid == "uid-1")
        #expect(transport.requests.first?.url.absoluteString
            == "https://www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com")
        await expectRejected(verifier, try await FB.signed(claims(), kid: "other"), reason: "kid")
    }

    @Test func productionRejectsAnUnsignedTokenEvenWhenEverythingElseIsRight() async throws {
        FB.serveKeys(transport)
        let (verifier, _) = production()
        await expectRejected(verifier, try FB.unsigned(claims()), reason: "alg")
        await expectRejected(verifier, try FB.compact(header: ["alg": "none", "kid": .string(FB.kid)], claims: claims()), reason: "alg")
        await expectRejected(verifier, try FB.compact(header: ["alg": "NONE", "kid": .string(FB.kid)], claims: claims()), reason: "alg")
        #expect(transport.requests.isEmpty, "no key is fetched for an unsigned token")
    }

    @Test func hs256AndMissingKidAreRejectedBeforeAnyKey() async throws {
        FB.serveKeys(transport)
        let (verifier, _) = production()
        await expectRejected(verifier, try FB.compact(header: ["alg": "HS256", "kid": .string(FB.kid)], claims: claims(), signature: "c2ln"),
                             reason: "alg")
        await expectRejected(verifier, try await FB.signed(claims(), kid: nil), reason: "kid")
        #expect(transport.requests.isEmpty)
    }

    @Test func tamperedSignatureAndPayload() async throws {
        FB.serveKeys(transport)
        let (verifier, _) = production()
        let token = try await FB.signed(claims())
        var parts = token.split(separator: ".").map(String.init)
        var signature = try #require(Base64URL.decode(parts[2]))
        signature[0] ^= 0x01
        parts[2] = Base64URL.encode(signature)
        await expectRejected(verifier, parts.joined(separator: "."), reason: "signature")
        // Another user's claims under the original signature.
        let forged = try FB.compact(header: ["alg": "RS256", "kid": .string(FB.kid), "typ": "JWT"], claims: FB.claims(uid: "admin", now: clock.now),
                                    signature: token.split(separator: ".").map(String.init)[2])
        await expectRejected(verifier, forged, reason: "signature")
        await expectRejected(verifier, token.split(separator: ".").dropLast().joined(separator: ".") + ".", reason: "signature")
        await expectRejected(verifier, "not-a-jwt", reason: "format")
    }

    @Test func claimNegatives() async throws {
        FB.serveKeys(transport)
        let (verifier, _) = production()
        let now = clock.now.timeIntervalSince1970
        let cases: [([String: JSONValue?], String)] = [
            (["aud": "other-project"], "aud"),
            (["aud": .string(FirebaseIDTokenVerifier.customTokenAudience)], "aud"),
            (["aud": nil], "aud"),
            (["iss": "https://securetoken.google.com/other-project"], "iss"),
            (["iss": "https://session.firebase.google.com/demo-proj"], "iss"),
            (["sub": ""], "sub"),
            (["sub": nil], "sub"),
            (["sub": .string(String(repeating: "u", count: 129))], "sub"),
            (["exp": .number(now - 3600)], "exp"),
            (["exp": nil], "exp"),
            (["iat": .number(now + 3600)], "iat"),
            (["iat": nil], "iat"),
            (["auth_time": .number(now + 3600)], "auth_time"),
        ]
        for (changes, reason) in cases {
            await expectRejected(verifier, try await FB.signed(claims(changes)), reason: reason)
        }
        let custom = await #expect(throws: AuthError.self) {
            try await verifier.verify(Secret(try await FB.signed(claims(["aud": .string(FirebaseIDTokenVerifier.customTokenAudience)]))))
        }
        #expect(custom?.details["hint"] == "customToken")
        // A 128-character uid, a token without auth_time, and skew within the leeway are fine.
        _ = try await verifier.verify(Secret(try await FB.signed(claims(["sub": .string(String(repeating: "u", count: 128))]))))
        _ = try await verifier.verify(Secret(try await FB.signed(claims(["auth_time": nil]))))
        _ = try await verifier.verify(Secret(try await FB.signed(claims(["iat": .number(now + 20), "exp": .number(now - 20)]))))
    }

    @Test func unknownKidIsRefetchedOnceThenRejected() async throws {
        FB.serveKeys(transport)
        let (verifier, keys) = production()
        _ = try await verifier.verify(Secret(try await FB.signed(claims())))
        clock.advance(by: 120)
        await expectRejected(verifier, try await FB.signed(claims(), kid: "rotated"), reason: "kid")
        #expect(await keys.fetchCount == 2, "one refetch for the unknown kid")
        await expectRejected(verifier, try await FB.signed(claims(), kid: "rotated"), reason: "kid")
        await expectRejected(verifier, try await FB.signed(claims(), kid: "made-up"), reason: "kid")
        #expect(await keys.fetchCount == 2, "refetches are rate-limited")
        clock.advance(by: 61)
        await expectRejected(verifier, try await FB.signed(claims(), kid: "made-up"), reason: "kid")
        #expect(await keys.fetchCount == 3)
    }

    @Test func aRotatedKeyIsFoundByTheRefetch() async throws {
        let served = Mutex("old-kid")
        transport.on(.get, FB.jwksPath) { _ in try .json(200, FB.jwks(kid: served.withLock { $0 }), headerFields: [.cacheControl: "max-age=3600"]) }
        let (verifier, keys) = production()
        _ = try await verifier.verify(Secret(try await FB.signed(claims(), kid: "old-kid")))
        served.withLock { $0 = FB.kid }
        clock.advance(by: 61)
        _ = try await verifier.verify(Secret(try await FB.signed(claims())))
        #expect(await keys.fetchCount == 2)
    }

    @Test func theCacheHonoursMaxAge() async throws {
        FB.serveKeys(transport, maxAge: 600)
        let (verifier, keys) = production()
        _ = try await verifier.verify(Secret(try await FB.signed(claims())))
        clock.advance(by: 599)
        _ = try await verifier.verify(Secret(try await FB.signed(claims())))
        #expect(await keys.fetchCount == 1, "no refetch before max-age runs out")
        clock.advance(by: 2)
        _ = try await verifier.verify(Secret(try await FB.signed(claims())))
        #expect(await keys.fetchCount == 2, "refetched after max-age")
        #expect(FirebasePublicKeyCache.maxAge("public, max-age=19302, must-revalidate, no-transform") == 19302)
        #expect(FirebasePublicKeyCache.maxAge("no-store") == 0 && FirebasePublicKeyCache.maxAge(nil) == nil)
        #expect(FirebasePublicKeyCache.maxAge("private") == nil)
    }

    @Test func concurrentVerificationsShareOneFetch() async throws {
        FB.serveKeys(transport)
        let (verifier, keys) = production()
        let token = try await FB.signed(claims())
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<50 { group.addTask { _ = try await verifier.verify(Secret(token)) } }
            try await group.waitForAll()
        }
        #expect(await keys.fetchCount == 1)
    }

    @Test func aKeyFetchFailureIsNotARejection() async throws {
        transport.on(.get, FB.jwksPath) { _ in .failure(TransportError(.connection, "refused")) }
        let (verifier, _) = production()
        await #expect(throws: AuthError(.network)) { try await verifier.verify(Secret(try await FB.signed(claims()))) }
    }

    // MARK: - Emulator mode

    @Test func emulatorModeAcceptsUnsignedTokensAndStillChecksClaims() async throws {
        let token = try await emulator.verify(Secret(try FB.unsigned(claims())))
        #expect(token.uid == "uid-1" && token.isUnsigned)
        await expectRejected(emulator, try FB.unsigned(claims(["aud": "other"])), reason: "aud")
        await expectRejected(emulator, try FB.unsigned(claims(["iss": "https://securetoken.google.com/other"])), reason: "iss")
        await expectRejected(emulator, try FB.unsigned(claims(["exp": .number(clock.now.timeIntervalSince1970 - 3600)])), reason: "exp")
        await expectRejected(emulator, try FB.unsigned(claims(["sub": ""])), reason: "sub")
        await expectRejected(emulator, try FB.compact(header: ["alg": "none"], claims: claims(), signature: "c2ln"), reason: "signature")
        await expectRejected(emulator, try await FB.signed(claims()), reason: "alg")
        #expect(transport.requests.isEmpty)
    }

    /// Fuzzing (issue 16): an `exp` or `iat` too large for an integer trapped while the rejection's
    /// details were written (`Int(-1e300)`); it is a typed rejection naming the claim.
    @Test func absurdTimeClaimsAreRejectedNotATrap() async throws {
        await expectRejected(emulator, try FB.unsigned(claims(["exp": .number(-1e300)])), reason: "exp")
        await expectRejected(emulator, try FB.unsigned(claims(["exp": .number(-9.3e18)])), reason: "exp")
        await expectRejected(emulator, try FB.unsigned(claims(["iat": .number(-1e300)])), reason: "iat")
        await expectRejected(emulator, try FB.unsigned(claims(["iat": .number(9.3e18)])), reason: "iat")
    }

    @Test func emulatorModeOnlyWithAnEmulatorHost() async throws {
        let context = ProviderContext(transport: transport, clock: clock)
        let emulated = FirebaseIDTokenVerifier(configuration: FB.emulator, context: context)
        _ = try await emulated.verify(Secret(try FB.unsigned(claims())))
        let production = FirebaseIDTokenVerifier(configuration: FB.production, context: context)
        await expectRejected(production, try FB.unsigned(claims()), reason: "alg")
        let tenant = FirebaseIDTokenVerifier(configuration: FB.tenant, context: context)
        await expectRejected(tenant, try FB.unsigned(claims()), reason: "alg")
    }
}
