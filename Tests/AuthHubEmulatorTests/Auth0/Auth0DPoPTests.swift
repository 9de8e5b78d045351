import AuthHub
import AuthHubEmulator
import AuthHubFactors
import AuthHubTesting
import Crypto
import Foundation
import Testing

/// DPoP (RFC 9449) at the emulated Auth0 tenant, over real HTTP on loopback, with proofs made by
/// ``DPoPTestKey``.
@Suite struct Auth0DPoPTests {
    static let token = "/auth0/oauth/token"
    static let userinfo = "/auth0/userinfo"

    @Test func aProofBindsTheIssuedTokensAndNoProofKeepsBearer() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        try await wire.seed("bound@example.com")
        let key = DPoPTestKey()

        let bound = try await wire.dpopLogin("bound@example.com", proof: try key.proof("POST", wire.htu(Self.token)))
        let access = try #require(bound.json?["access_token"]?.stringValue)
        let claims = try await wire.verifiedClaims(access)
        let plain = try await wire.dpopLogin("bound@example.com", proof: nil)
        let plainAccess = try #require(plain.json?["access_token"]?.stringValue)
        let plainUserinfo = try await wire.resource(Self.userinfo, scheme: "Bearer", token: plainAccess, proof: nil)
        let discovery = try await wire.get("/auth0/.well-known/openid-configuration")
        await emulator.stop()

        #expect(bound.status == 200)
        #expect(bound.json?["token_type"] == "DPoP")
        #expect(bound.json?["refresh_token"] != nil)
        #expect(bound.json?["id_token"] != nil)
        #expect(bound.dpopNonce == nil, "no nonce outside nonce mode")
        #expect(claims["cnf"] == ["jkt": .string(key.thumbprint)])
        #expect(claims["aud"] == [.string(wire.issuer + "userinfo")])
        #expect(claims["iss"]?.stringValue == wire.issuer)
        // Without a proof: today's Bearer reply, an opaque access token.
        #expect(plain.status == 200)
        #expect(plain.json?["token_type"] == "Bearer")
        #expect(plainAccess.split(separator: ".").count == 1)
        #expect(plainUserinfo.status == 200)
        #expect(plainUserinfo.json?["email"] == "bound@example.com")
        #expect(discovery.json?["dpop_signing_alg_values_supported"] == ["ES256"])
    }

    @Test func aBoundRefreshTokenNeedsAProofOfItsKey() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        try await wire.seed("refresh@example.com")
        let key = DPoPTestKey()
        let other = DPoPTestKey()
        let tokenURL = wire.htu(Self.token)

        let login = try await wire.dpopLogin("refresh@example.com", proof: try key.proof("POST", tokenURL))
        let refreshToken = try #require(login.json?["refresh_token"]?.stringValue)
        let noProof = try await wire.dpopRefresh(refreshToken, proof: nil)
        let otherKey = try await wire.dpopRefresh(refreshToken, proof: try other.proof("POST", tokenURL))
        let rightKey = try await wire.dpopRefresh(refreshToken, proof: try key.proof("POST", tokenURL))
        let rotated = try #require(rightKey.json?["refresh_token"]?.stringValue)
        let claims = try await wire.verifiedClaims(try #require(rightKey.json?["access_token"]?.stringValue))
        let next = try await wire.dpopRefresh(rotated, proof: try key.proof("POST", tokenURL))

        // An unbound family (a login without a proof) refreshed with a proof: the access token is
        // bound, the family is not.
        let plain = try #require(try await wire.dpopLogin("refresh@example.com", proof: nil).json?["refresh_token"]?.stringValue)
        let plainWithProof = try await wire.dpopRefresh(plain, proof: try other.proof("POST", tokenURL))
        let plainClaims = try await wire.verifiedClaims(try #require(plainWithProof.json?["access_token"]?.stringValue))
        let plainRotated = try #require(plainWithProof.json?["refresh_token"]?.stringValue)
        let plainAgain = try await wire.dpopRefresh(plainRotated, proof: nil)
        await emulator.stop()

        #expect(login.json?["token_type"] == "DPoP")
        #expect(noProof.status == 400)
        #expect(noProof.json?["error"] == "invalid_dpop_proof")
        #expect(otherKey.status == 400)
        #expect(otherKey.json == [
            "error": "invalid_grant",
            "error_description": "The DPoP proof's key does not match the key the refresh token is bound to.",
        ])
        #expect(rightKey.status == 200, "refused attempts neither rotate nor revoke the token")
        #expect(rightKey.json?["token_type"] == "DPoP")
        #expect(claims["cnf"] == ["jkt": .string(key.thumbprint)])
        #expect(next.status == 200)
        #expect(plainWithProof.status == 200)
        #expect(plainWithProof.json?["token_type"] == "DPoP")
        #expect(plainClaims["cnf"] == ["jkt": .string(other.thumbprint)])
        #expect(plainAgain.status == 200)
        #expect(plainAgain.json?["token_type"] == "Bearer")
    }

    func authorizePath(challenge: String, dpopJKT: String?) -> String {
        var items: [(String, String)] = [
            ("client_id", Auth0Wire.clientId), ("redirect_uri", Auth0Wire.redirectURI), ("response_type", "code"),
            ("scope", "openid offline_access"), ("state", "st"), ("code_challenge", challenge),
            ("code_challenge_method", "S256"), ("authhub_emulator_user", "code@example.com"),
        ]
        if let dpopJKT { items.append(("dpop_jkt", dpopJKT)) }
        return "/auth0/authorize?" + queryString(items)
    }

    func exchange(_ wire: Auth0Wire, code: String, verifier: String, proof: String?) async throws -> Auth0Wire.Reply {
        try await wire.post(Self.token, json: [
            "client_id": .string(Auth0Wire.clientId), "grant_type": "authorization_code", "code": .string(code),
            "code_verifier": .string(verifier), "redirect_uri": .string(Auth0Wire.redirectURI),
        ], headerFields: proof.map(Auth0Wire.dpop) ?? [:])
    }

    @Test func dpopJKTBindsTheAuthorizationCodeToItsKey() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        try await wire.seed("code@example.com")
        let key = DPoPTestKey()
        let other = DPoPTestKey()
        let tokenURL = wire.htu(Self.token)
        let pkce = pkcePair()

        func code() async throws -> String {
            try #require(try await wire.get(authorizePath(challenge: pkce.challenge, dpopJKT: key.thumbprint)).query("code"))
        }
        let wrongKey = try await exchange(wire, code: try await code(), verifier: pkce.verifier, proof: try other.proof("POST", tokenURL))
        let noProof = try await exchange(wire, code: try await code(), verifier: pkce.verifier, proof: nil)
        let rightKey = try await exchange(wire, code: try await code(), verifier: pkce.verifier, proof: try key.proof("POST", tokenURL))
        let claims = try await wire.verifiedClaims(try #require(rightKey.json?["access_token"]?.stringValue))
        // Without dpop_jkt, a proof at the exchange binds the tokens all the same.
        let unpinnedCode = try #require(try await wire.get(authorizePath(challenge: pkce.challenge, dpopJKT: nil)).query("code"))
        let unpinned = try await exchange(wire, code: unpinnedCode, verifier: pkce.verifier, proof: try other.proof("POST", tokenURL))
        let malformed = try await wire.get(authorizePath(challenge: pkce.challenge, dpopJKT: "not-a-thumbprint"))
        await emulator.stop()

        #expect(wrongKey.status == 400)
        #expect(wrongKey.json == [
            "error": "invalid_grant", "error_description": "The DPoP proof's key does not match the dpop_jkt of the authorization request.",
        ])
        #expect(noProof.status == 400)
        #expect(noProof.json?["error"] == "invalid_grant")
        #expect(rightKey.status == 200)
        #expect(rightKey.json?["token_type"] == "DPoP")
        #expect(claims["cnf"] == ["jkt": .string(key.thumbprint)])
        #expect(unpinned.status == 200)
        #expect(unpinned.json?["token_type"] == "DPoP")
        #expect(malformed.status == 302)
        #expect(malformed.query("error") == "invalid_request")
        #expect(malformed.query("code") == nil)
    }

    @Test func userinfoTakesABoundTokenOnlyWithTheDPoPSchemeAndAProofOfItsKey() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        try await wire.seed("userinfo@example.com")
        let key = DPoPTestKey()
        let other = DPoPTestKey()
        let url = wire.htu(Self.userinfo)
        let login = try await wire.dpopLogin("userinfo@example.com", proof: try key.proof("POST", wire.htu(Self.token)))
        let access = try #require(login.json?["access_token"]?.stringValue)

        let good = try await wire.resource(Self.userinfo, scheme: "DPoP", token: access, proof: try key.proof("GET", url, accessToken: access))
        let asBearer = try await wire.resource(Self.userinfo, scheme: "Bearer", token: access, proof: nil)
        let asBearerWithProof = try await wire.resource(Self.userinfo, scheme: "Bearer", token: access,
                                                        proof: try key.proof("GET", url, accessToken: access))
        let noProof = try await wire.resource(Self.userinfo, scheme: "DPoP", token: access, proof: nil)
        let noATH = try await wire.resource(Self.userinfo, scheme: "DPoP", token: access, proof: try key.proof("GET", url))
        let wrongATH = try await wire.resource(Self.userinfo, scheme: "DPoP", token: access,
                                               proof: try key.proof("GET", url, accessToken: access + "x"))
        let otherKey = try await wire.resource(Self.userinfo, scheme: "DPoP", token: access,
                                               proof: try other.proof("GET", url, accessToken: access))
        // An unbound token: Bearer as before; the DPoP scheme is refused.
        let plain = try #require(try await wire.dpopLogin("userinfo@example.com", proof: nil).json?["access_token"]?.stringValue)
        let plainBearer = try await wire.resource(Self.userinfo, scheme: "Bearer", token: plain, proof: nil)
        let plainAsDPoP = try await wire.resource(Self.userinfo, scheme: "DPoP", token: plain,
                                                  proof: try key.proof("GET", url, accessToken: plain))
        await emulator.stop()

        #expect(good.status == 200)
        #expect(good.json?["email"] == "userinfo@example.com")
        for refused in [asBearer, asBearerWithProof] {
            #expect(refused.status == 401)
            #expect(refused.challenge?.hasPrefix("DPoP error=\"invalid_token\"") == true)
            #expect(refused.json?["error"] == "invalid_token")
        }
        for refused in [noProof, noATH, wrongATH] {
            #expect(refused.status == 401)
            #expect(refused.challenge?.hasPrefix("DPoP error=\"invalid_dpop_proof\"") == true)
            #expect(refused.json?["error"] == "invalid_dpop_proof")
        }
        #expect(wrongATH.json?["error_description"] == "The DPoP proof's ath does not match the access token.")
        #expect(otherKey.status == 401)
        #expect(otherKey.challenge == "DPoP error=\"invalid_token\", error_description=\"Invalid DPoP key binding\", algs=\"ES256\"")
        #expect(plainBearer.status == 200)
        #expect(plainAsDPoP.status == 401)
        #expect(plainAsDPoP.json?["error"] == "invalid_token")
    }

    @Test func aReplayedProofIsRefused() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        try await wire.seed("replay@example.com")
        let key = DPoPTestKey()
        let proof = try key.proof("POST", wire.htu(Self.token))
        let first = try await wire.dpopLogin("replay@example.com", proof: proof)
        let replayed = try await wire.dpopLogin("replay@example.com", proof: proof)
        let access = try #require(first.json?["access_token"]?.stringValue)
        let resourceProof = try key.proof("GET", wire.htu(Self.userinfo), accessToken: access)
        let resource = try await wire.resource(Self.userinfo, scheme: "DPoP", token: access, proof: resourceProof)
        let resourceReplayed = try await wire.resource(Self.userinfo, scheme: "DPoP", token: access, proof: resourceProof)
        // The same jti with another key is another proof.
        let otherKeySameJTI = try await wire.dpopLogin("replay@example.com",
                                                       proof: try DPoPTestKey().proof("POST", wire.htu(Self.token), jti: "fixed"))
        let sameKeySameJTI = try await wire.dpopLogin("replay@example.com", proof: try key.proof("POST", wire.htu(Self.token), jti: "fixed"))
        let sameJTIAgain = try await wire.dpopLogin("replay@example.com", proof: try key.proof("POST", wire.htu(Self.token), jti: "fixed"))
        await emulator.stop()

        #expect(first.status == 200)
        #expect(replayed.status == 400)
        #expect(replayed.json == ["error": "invalid_dpop_proof", "error_description": "The DPoP proof has already been used."])
        #expect(resource.status == 200)
        #expect(resourceReplayed.status == 401)
        #expect(resourceReplayed.json?["error"] == "invalid_dpop_proof")
        #expect(otherKeySameJTI.status == 200)
        #expect(sameKeySameJTI.status == 200)
        #expect(sameJTIAgain.status == 400)
    }

    @Test func nonceModeRoundTrip() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        try await wire.seed("code@example.com")
        let key = DPoPTestKey()
        let tokenURL = wire.htu(Self.token)
        let userinfoURL = wire.htu(Self.userinfo)

        let on = try await wire.dpopNonceMode(true)
        let nonce = try #require(on.json?["nonce"]?.stringValue)
        // A code exchange challenged for the nonce keeps its code: the retry with the nonce succeeds.
        let pkce = pkcePair()
        let code = try #require(try await wire.get(authorizePath(challenge: pkce.challenge, dpopJKT: key.thumbprint)).query("code"))
        let challenged = try await exchange(wire, code: code, verifier: pkce.verifier, proof: try key.proof("POST", tokenURL))
        let retried = try await exchange(wire, code: code, verifier: pkce.verifier,
                                         proof: try key.proof("POST", tokenURL, nonce: challenged.dpopNonce))
        let access = try #require(retried.json?["access_token"]?.stringValue)
        let refreshToken = try #require(retried.json?["refresh_token"]?.stringValue)

        let resourceChallenged = try await wire.resource(Self.userinfo, scheme: "DPoP", token: access,
                                                         proof: try key.proof("GET", userinfoURL, accessToken: access))
        let resourceRetried = try await wire.resource(Self.userinfo, scheme: "DPoP", token: access,
                                                      proof: try key.proof("GET", userinfoURL, nonce: nonce, accessToken: access))
        // Bearer requests are not concerned.
        let bearer = try await wire.dpopLogin("code@example.com", proof: nil)

        let rotated = try await wire.dpopNonceMode(true, rotate: true)
        let fresh = try #require(rotated.json?["nonce"]?.stringValue)
        let stale = try await wire.dpopRefresh(refreshToken, proof: try key.proof("POST", tokenURL, nonce: nonce))
        let refreshed = try await wire.dpopRefresh(refreshToken, proof: try key.proof("POST", tokenURL, nonce: fresh))

        let off = try await wire.dpopNonceMode(false)
        let withoutNonce = try await wire.dpopLogin("code@example.com", proof: try key.proof("POST", tokenURL))
        let read = try await wire.get("/auth0/__emulator/dpop")
        let inProcess = await emulator.setAuth0DPoPNonceRequired(true)
        let inProcessRead = await emulator.auth0DPoPNonce()
        let challengedAgain = try await wire.dpopLogin("code@example.com", proof: try key.proof("POST", tokenURL))
        await emulator.stop()

        #expect(on.status == 200)
        #expect(on.json?["nonce_required"] == true)
        #expect(challenged.status == 400)
        #expect(challenged.json == ["error": "use_dpop_nonce", "error_description": "Authorization server requires nonce in DPoP proof"])
        #expect(challenged.dpopNonce == nonce)
        #expect(retried.status == 200)
        #expect(retried.json?["token_type"] == "DPoP")
        #expect(retried.dpopNonce == nonce, "a successful DPoP reply carries the nonce")
        #expect(resourceChallenged.status == 401)
        #expect(resourceChallenged.challenge
            == "DPoP error=\"use_dpop_nonce\", error_description=\"Resource server requires nonce in DPoP proof\", algs=\"ES256\"")
        #expect(resourceChallenged.dpopNonce == nonce)
        #expect(resourceRetried.status == 200)
        #expect(resourceRetried.dpopNonce == nonce)
        #expect(bearer.status == 200)
        #expect(bearer.dpopNonce == nil)
        #expect(fresh != nonce)
        #expect(stale.status == 400)
        #expect(stale.json?["error"] == "use_dpop_nonce")
        #expect(stale.dpopNonce == fresh)
        #expect(refreshed.status == 200, "the nonce challenge left the refresh token alone")
        #expect(refreshed.dpopNonce == fresh)
        #expect(off.json == ["nonce_required": false, "nonce": nil])
        #expect(withoutNonce.status == 200)
        #expect(withoutNonce.dpopNonce == nil)
        #expect(read.json == ["nonce_required": false, "nonce": nil])
        #expect(inProcess != nil)
        #expect(inProcessRead == inProcess)
        #expect(challengedAgain.status == 400)
        #expect(challengedAgain.dpopNonce == inProcess)
    }

    @Test func proofsThatDoNotFitTheRequestAreRefused() async throws {
        let clock = FakeClock()
        let emulator = try await Emulator.start(EmulatorConfiguration(clock: clock))
        let wire = Auth0Wire(emulator: emulator)
        try await wire.seed("refused@example.com")
        let key = DPoPTestKey()
        let other = DPoPTestKey()
        let tokenURL = wire.htu(Self.token)
        let now = clock.now
        let port = try #require(emulator.baseURL.port)
        let privateJWK = JSONValue.object(key.jwk.merging(["d": .string(Base64URL.encode(key.key.rawRepresentation))]) { _, new in new })

        let cases: [(String, String)] = [
            ("htm", try key.proof("GET", tokenURL, iat: now)),
            ("htu path", try key.proof("POST", wire.htu("/auth0/userinfo"), iat: now)),
            ("htu port", try key.proof("POST", "http://127.0.0.1:\(port == 1 ? 2 : port - 1)/auth0/oauth/token", iat: now)),
            ("htu host", try key.proof("POST", "http://localhost:\(port)/auth0/oauth/token", iat: now)),
            ("htu scheme", try key.proof("POST", "https://127.0.0.1:\(port)/auth0/oauth/token", iat: now)),
            ("old iat", try key.proof("POST", tokenURL, iat: now.addingTimeInterval(-301))),
            ("future iat", try key.proof("POST", tokenURL, iat: now.addingTimeInterval(301))),
            ("iat a string", try key.proof("POST", tokenURL, iat: now, claims: ["iat": "1767225600"])),
            ("huge iat", try key.proof("POST", tokenURL, iat: now, claims: ["iat": .number(1e300)])),
            ("no jti", try key.proof("POST", tokenURL, iat: now, claims: ["jti": .null])),
            ("private key", try key.proof("POST", tokenURL, iat: now, header: ["jwk": privateJWK])),
            ("alg HS256", try key.proof("POST", tokenURL, iat: now, header: ["alg": "HS256"])),
            ("alg none", try key.proof("POST", tokenURL, iat: now, header: ["alg": "none"])),
            ("typ", try key.proof("POST", tokenURL, iat: now, header: ["typ": "JWT"])),
            ("no jwk", try key.proof("POST", tokenURL, iat: now, header: ["jwk": .null])),
            ("RSA jwk", try key.proof("POST", tokenURL, iat: now, header: ["jwk": ["kty": "RSA", "n": "AQAB", "e": "AQAB"]])),
            ("signature of another key", try key.proof("POST", tokenURL, iat: now, signer: other.key)),
            ("not a JWS", "abc.def"),
        ]
        var replies: [(String, Auth0Wire.Reply)] = []
        for (name, proof) in cases {
            replies.append((name, try await wire.dpopLogin("refused@example.com", proof: proof)))
        }
        // Two DPoP fields (however the transport puts them on the wire: two lines or one joined line).
        var twoFields = Auth0Wire.dpop(try key.proof("POST", tokenURL, iat: now))
        twoFields.append(HTTPField(name: HTTPField.Name.constant("DPoP"), value: try key.proof("POST", tokenURL, iat: now)))
        replies.append(("two DPoP headers", try await wire.post(Self.token, json: [
            "client_id": .string(Auth0Wire.clientId), "grant_type": "http://auth0.com/oauth/grant-type/password-realm",
            "username": "refused@example.com", "password": "correct horse battery", "realm": "Username-Password-Authentication",
        ], headerFields: twoFields)))
        // Within the window, a query in htu ignored: accepted.
        let edge = try await wire.dpopLogin("refused@example.com", proof: try key.proof("POST", tokenURL + "?x=1", iat: now.addingTimeInterval(-299)))
        clock.advance(by: 600)
        let laterProofOfThen = try await wire.dpopLogin("refused@example.com", proof: try key.proof("POST", tokenURL, iat: now))
        let laterProofOfNow = try await wire.dpopLogin("refused@example.com", proof: try key.proof("POST", tokenURL, iat: clock.now))
        await emulator.stop()

        for (name, reply) in replies {
            #expect(reply.status == 400, "\(name)")
            #expect(reply.json?["error"] == "invalid_dpop_proof", "\(name)")
            #expect(reply.json?["access_token"] == nil, "\(name)")
        }
        #expect(replies.first { $0.0 == "private key" }?.1.json?["error_description"] == "The DPoP proof's jwk holds a private key.")
        #expect(edge.status == 200)
        #expect(laterProofOfThen.status == 400)
        #expect(laterProofOfNow.status == 200)
    }

    @Test func myAccountAndManagementTakeABoundTokenOnlyWithItsProof() async throws {
        let emulator = try await Emulator.start()
        let wire = Auth0Wire(emulator: emulator)
        let user = try await wire.seed("me@example.com")
        let userId = try #require(user["user_id"]?.stringValue)
        let key = DPoPTestKey()
        let tokenURL = wire.htu(Self.token)
        let factorsPath = "/auth0/me/v1/factors"
        let login = try await wire.dpopLogin("me@example.com", proof: try key.proof("POST", tokenURL))
        let refreshToken = try #require(login.json?["refresh_token"]?.stringValue)
        let granted = try await wire.dpopRefresh(refreshToken, proof: try key.proof("POST", tokenURL),
                                                 audience: wire.issuer + "me/", scope: "openid read:me:factors")
        let meToken = try #require(granted.json?["access_token"]?.stringValue)
        let claims = try await wire.verifiedClaims(meToken)

        let good = try await wire.resource(factorsPath, scheme: "DPoP", token: meToken,
                                           proof: try key.proof("GET", wire.htu(factorsPath), accessToken: meToken))
        let asBearer = try await wire.resource(factorsPath, scheme: "Bearer", token: meToken, proof: nil)

        let rotated = try #require(granted.json?["refresh_token"]?.stringValue)
        let management = try await wire.dpopRefresh(rotated, proof: try key.proof("POST", tokenURL),
                                                    audience: wire.issuer + "api/v2/", scope: "openid read:current_user")
        let managementToken = try #require(management.json?["access_token"]?.stringValue)
        let userPath = "/auth0/api/v2/users/" + (userId.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? userId)
        let managementGood = try await wire.resource(userPath, scheme: "DPoP", token: managementToken,
                                                     proof: try key.proof("GET", wire.htu(userPath), accessToken: managementToken))
        let managementNoProof = try await wire.resource(userPath, scheme: "DPoP", token: managementToken, proof: nil)
        await emulator.stop()

        #expect(granted.status == 200)
        #expect(granted.json?["token_type"] == "DPoP")
        #expect(claims["cnf"] == ["jkt": .string(key.thumbprint)])
        #expect(claims["aud"]?.arrayValue?.first?.stringValue == wire.issuer + "me/")
        #expect(good.status == 200)
        #expect(asBearer.status == 401)
        #expect(asBearer.headerFields[.contentType] == "application/problem+json")
        #expect(asBearer.challenge?.hasPrefix("DPoP error=\"invalid_token\"") == true)
        #expect(managementGood.status == 200)
        #expect(managementGood.json?["user_id"]?.stringValue == userId)
        #expect(managementNoProof.status == 401)
        #expect(managementNoProof.json?["errorCode"] == "invalid_dpop_proof")
        #expect(managementNoProof.json?["message"] == "Missing DPoP proof.")
        #expect(managementNoProof.challenge?.hasPrefix("DPoP error=\"invalid_dpop_proof\"") == true)
    }

    @Test func theMFAGrantBindsToo() async throws {
        let clock = FakeClock()
        let emulator = try await Emulator.start(EmulatorConfiguration(clock: clock))
        let wire = Auth0Wire(emulator: emulator)
        try await wire.seed("mfa-dpop@example.com", extra: ["totp_secret": "JBSWY3DPEHPK3PXP"])
        let key = DPoPTestKey()
        let tokenURL = wire.htu(Self.token)

        let required = try await wire.dpopLogin("mfa-dpop@example.com", proof: try key.proof("POST", tokenURL, iat: clock.now))
        let mfaToken = try #require(required.json?["mfa_token"]?.stringValue)
        let totp = try TOTP(secret: Secret(try Base32.decode("JBSWY3DPEHPK3PXP")))
        let otp = try totp.code(at: clock.now).revealed()
        let verified = try await wire.post(Self.token, json: [
            "client_id": .string(Auth0Wire.clientId), "grant_type": "http://auth0.com/oauth/grant-type/mfa-otp",
            "mfa_token": .string(mfaToken), "otp": .string(otp),
        ], headerFields: Auth0Wire.dpop(try key.proof("POST", tokenURL, iat: clock.now)))
        let claims = try await wire.verifiedClaims(try #require(verified.json?["access_token"]?.stringValue))
        await emulator.stop()

        #expect(required.status == 403)
        #expect(verified.status == 200)
        #expect(verified.json?["token_type"] == "DPoP")
        #expect(claims["cnf"] == ["jkt": .string(key.thumbprint)])
    }
}
