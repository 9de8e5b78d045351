import AuthHub
import AuthHubFactors
import AuthHubTurnkey
import Crypto
import Foundation

// Seed inputs for every target, built from the same fixtures the test suite uses (the Turnkey spec
// fixtures, the software passkey authenticator, the store's own files, the spec sheets' reply
// shapes). `AUTHHUB_FUZZ_WRITE_SEEDS=<dir>` writes them as `<dir>/<target>/<name>` (that is how
// Fuzz/Corpus was made); every run also executes them once in `LLVMFuzzerInitialize`, before leak
// tracking starts, so lazily made fixtures and caches are not reported as leaks.

/// Little builders for the binary scripts the readers take.
enum Script {
    static func u16(_ value: Int) -> [UInt8] { [UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)] }
    static func chunk(_ bytes: [UInt8]) -> [UInt8] { u16(min(bytes.count, 0xFFFF)) + bytes.prefix(0xFFFF) }
    static func chunk(_ text: String) -> [UInt8] { chunk(Array(text.utf8)) }

    /// A reply as `readReply` reads it (an exact status).
    static func reply(_ status: Int, _ body: String, headers: [(String, String)] = []) -> [UInt8] {
        var bytes: [UInt8] = [200] + u16(status - 100) + [UInt8(min(headers.count, 3))]
        for (name, value) in headers.prefix(3) {
            bytes.append(UInt8(fuzzHeaderNames.firstIndex(of: name) ?? 0))
            bytes += chunk(value)
        }
        return bytes + chunk(body)
    }
}

func fuzzSeeds(for target: String) -> [(name: String, bytes: [UInt8])] {
    func text(_ name: String, _ value: String) -> (name: String, bytes: [UInt8]) { (name, Array(value.utf8)) }
    switch target {
    case "dpop":
        return dpopSeeds()
    case "logout-token":
        return logoutTokenSeeds()
    case "config":
        return [
            text("design-example.json", #"""
            {"defaultEnvironment":"development","environments":{"development":{"defaultProvider":"auth0","sessionStore":{"type":"file","path":".authhub/sessions"},"providers":[{"id":"auth0","type":"auth0","domain":"http://127.0.0.1:8750/auth0","clientId":"authhub-dev"},{"id":"firebase","type":"firebase","apiKey":"dev-key","projectId":"authhub-dev","emulatorHost":"127.0.0.1:8750"}]},"production":{"defaultProvider":"auth0","sessionStore":{"type":"file","path":"${AUTHHUB_STATE_DIR:-/var/lib/authhub}/sessions","encryptionKey":"${AUTHHUB_STORE_KEY}"},"providers":[{"id":"auth0","type":"auth0","domain":"example.eu.auth0.com","clientId":"${AUTH0_CLIENT_ID}"}]}}}
            """#),
            text("every-provider.json", #"""
            {"defaultEnvironment":"dev","environments":{"dev":{"defaultProvider":"oidc","sessionStore":{"type":"memory"},"providers":[{"id":"oidc","type":"oidc","issuer":"https://issuer.example.com/","clientId":"c","scopes":["openid","email"]},{"id":"openfort","type":"openfort","publishableKey":"pk_test_1","baseURL":"https://api.openfort.example"},{"id":"turnkey","type":"turnkey","organizationId":"org-1","rpId":"example.com"}]}}}
            """#),
            text("problems.json", #"{"environments":{"a":{"defaultProvider":"x","providers":[{"id":"a","type":"auth0"},{"id":"a","type":"nope","extra":1}]}}}"#),
        ]
    case "session-file":
        return sessionFileSeeds()
    case "held-factor-file":
        return heldFactorFileSeeds()
    case "json":
        return [
            text("object.json", #"{"a":[1,-2.5e-3,true,false,null,"\u00e9\ud83d\ude00\n"],"b":{"c":{}}}"#),
            text("token-reply.json", #"{"access_token":"at","id_token":"a.b.c","refresh_token":"rt","token_type":"Bearer","expires_in":86400,"scope":"openid"}"#),
            text("session.json", #"{"session":{"providerID":"auth0","accountKey":"default","accessToken":"at","tokenType":"Bearer","claims":{},"extras":{},"secretExtras":{},"version":1,"expiresAt":1767229200}}"#),
            text("userinfo.json", #"{"id":"u1","email":"ada@example.com","emailVerified":true,"name":"Ada","claims":{"sub":"u1"}}"#),
        ]
    case "callback":
        return [
            text("oidc-code.txt", "http://127.0.0.1:8080/callback?code=abc123&state=fuzz-state"),
            text("oidc-error.txt", "http://127.0.0.1:8080/callback?error=access_denied&error_description=User%20cancelled&state=fuzz-state"),
            text("oidc-fragment.txt", "myapp://callback#code=abc&state=fuzz-state&iss=https%3A%2F%2Fissuer.example.com%2F"),
            text("openfort.txt", "https://app.example.com/cb?access_token=tok&refresh_token=rt&user_id=pla_1"),
            text("openfort-fragment.txt", "https://app.example.com/cb#access_token=tok&player_id=pla_1"),
        ]
    case "jwt":
        return jwtSeeds()
    case "providers":
        return providerSeeds()
    case "error-mappers":
        return [
            ("auth0-invalid-grant", Script.reply(403, #"{"error":"invalid_grant","error_description":"Wrong email or password."}"#)),
            ("auth0-mfa", Script.reply(403, #"{"error":"mfa_required","error_description":"Multifactor authentication required","mfa_token":"m","mfa_requirements":{"challenge":[{"type":"otp"}]}}"#)),
            ("auth0-signup", Script.reply(400, #"{"name":"BadRequestError","code":"invalid_signup","description":"Invalid sign up","statusCode":400}"#)),
            ("auth0-management", Script.reply(404, #"{"statusCode":404,"error":"Not Found","message":"The user does not exist.","errorCode":"inexistent_user"}"#)),
            ("myaccount", Script.reply(409, #"{"type":"https://auth0.com/api-errors/A0E-409-0001","status":409,"title":"Conflict","detail":"exists","validation_errors":[{"detail":"x","field":"y"}]}"#, headers: [("Content-Type", "application/problem+json")])),
            ("firebase", Script.reply(400, #"{"error":{"code":400,"message":"WEAK_PASSWORD : Password should be at least 6 characters","errors":[{"message":"WEAK_PASSWORD","domain":"global","reason":"invalid"}]}}"#)),
            ("openfort", Script.reply(422, #"{"code":"INVALID_EMAIL_OR_PASSWORD","message":"Invalid email or password"}"#)),
            ("turnkey", Script.reply(404, #"{"code":5,"message":"could not find public key in organization","details":[]}"#)),
            ("rate-limited", Script.reply(429, #"{"error":"too_many_attempts"}"#, headers: [("Retry-After", "30")])),
            ("html-503", Script.reply(503, "<html><body>Service Unavailable</body></html>", headers: [("Retry-After", "Wed, 21 Oct 2026 07:28:00 GMT")])),
        ]
    case "headers":
        func headers(_ pairs: [(String, String)]) -> [UInt8] {
            pairs.flatMap { [UInt8(fuzzHeaderNames.firstIndex(of: $0.0) ?? 0)] + Script.chunk($0.1) }
        }
        return [
            ("retry-seconds", headers([("Retry-After", "120")])),
            ("retry-date", headers([("Retry-After", "Wed, 21 Oct 2026 07:28:00 GMT")])),
            ("location", headers([("Location", "https://tenant.example.com/me/v1/authentication-methods/totp%7Cdev_1"), ("Retry-After", "0.5")])),
        ]
    case "webauthn":
        return webAuthnSeeds()
    case "web":
        return webSeeds()
    case "otpauth":
        return [
            text("totp.txt", "otpauth://totp/Example:ada@example.com?secret=JBSWY3DPEHPK3PXP&issuer=Example&algorithm=SHA1&digits=6&period=30"),
            text("hotp.txt", "otpauth://hotp/ada?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&counter=42&digits=8&algorithm=SHA256"),
            text("totp-sha512.txt", "otpauth://totp/Acme%20Co:bob%40example.com?secret=KRSXG5CTMVRXEZLUKN2XAZLSKNSWG4TFOQ&algorithm=SHA512&period=60"),
        ]
    case "turnkey-bundles":
        let exportBundle = #"{"version":"v1.0.0","data":"7b22656e6361707065645075626c6963223a2230343434313065633837653566653266666461313561313866613337376132316133633431633334373666383631333362343238306164373631303266343064356462326463353362343730303763636139336166666330613535316464353134333937643039373931636664393233306663613330343862313731663364363738222c2263697068657274657874223a22656662303538626633666634626534653232323330326266326636303738363062343237346232623031616339343536643362613638646135613235363236303030613839383262313465306261663061306465323966353434353461333739613362653664633364386339343938376131353638633764393566396663346239316265663232316165356562383432333361323833323131346431373962646664636631643066376164656231353766343131613439383430222c226f7267616e697a6174696f6e4964223a2266396133316336342d643630342d343265342d396265662d613737333039366166616437227d","dataSignature":"304502203a7dc258590a637e76f6be6ed1a2080eed5614175060b9073f5e36592bdaf610022100ab9955b603df6cf45408067f652da48551652451b91967bf37dd094d13a7bdd4","enclaveQuorumPublic":"\#(TurnkeyExportBundle.productionSignerPublicKeyHex)"}"#
        return [
            ("credential-bundle", [0] + Array("w99a5xV6A75TfoAUkZn869fVyDYvgVsKrawMALZXmrauZd8hEv66EkPU1Z42CUaHESQjcA5bqd8dynTGBMLWB9ewtXWPEVbZvocB4Tw2K1vQVp7uwjf".utf8)),
            ("export-bundle", [1] + Array(exportBundle.utf8)),
            ("hex-key", [2] + Array("0264fb511728122da3b7b8a449c79d7a9e3fb847f4cbf0efbc6c82f68ada0ae5eb".utf8)),
            ("session-jwt", [3] + Array("eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCJ9.eyJleHAiOjE3NDg4NzY4MzcsInB1YmxpY19rZXkiOiIwMzk5ZmUyYWNlNjIwOGFmMGFkZjg0OGY0NGJjNDgyMTBiNTk0YjdlNjllY2Q5MWVjOTY4ZmQ3NWIzYmI0NDgzMzYiLCJzZXNzaW9uX3R5cGUiOiJTRVNTSU9OX1RZUEVfUkVBRF9XUklURSIsInVzZXJfaWQiOiI2OTEyYjgxOS1mNGRmLTQwZjQtYTE5Mi0yMGVlNDMwOTA5NzQiLCJvcmdhbml6YXRpb25faWQiOiJjNzVlY2IwNy1jODRhLTRkZDUtOTMyYy01MzlkZmFmYzY4NjQifQ.y6LPW1jlTwc9jFcvCwKJoKfleL_vHnGUr5tRVdMFUCnHvDspSPZ3DWK85tf1znCCBFQ6MYaFOl-1FLb0KcFxqQ".utf8)),
            ("api-stamp", [4] + Array(apiStampSeed().utf8)),
        ]
    default:
        return []
    }
}

/// A real `X-Stamp` header value made by `TurnkeyAPIKeyStamper` (base64url JSON).
func apiStampSeed() -> String {
    let stamper = TurnkeyAPIKeyStamper(privateKey: fuzzP256Key(seed: 4))
    guard let stamp = try? stamper.stamp(Array(#"{"organizationId":"org-1"}"#.utf8)),
          let json = try? JSONEncoder().encode(stamp) else { return "" }
    return base64url(json)
}

func sessionFileSeeds() -> [(name: String, bytes: [UInt8])] {
    guard let plainStore, let sealedStore else { return [] }
    let key = SessionKey(provider: "auth0", account: "default")
    let session = fuzzSession(provider: "auth0", extras: ["organizationId": "org-1"], secretExtras: ["k": Secret("v")])
    return runBlocking { () async -> [(name: String, bytes: [UInt8])] in
        var seeds: [(name: String, bytes: [UInt8])] = []
        if let saved = try? await plainStore.save(session, for: key, expectedVersion: nil),
           let file = try? Data(contentsOf: plainStore.fileURL(for: key)) {
            seeds.append(("plain-file", [0] + Array(file)))
            if case .object(var tree)? = try? JSONValue.parse(file), let inner = tree["session"], let json = try? inner.serialized() {
                seeds.append(("sealed-session-json", [1] + Array(json)))
                tree["session"] = nil
            }
            _ = saved
        }
        if (try? await sealedStore.save(session, for: key, expectedVersion: nil)) != nil,
           let file = try? Data(contentsOf: sealedStore.fileURL(for: key)) {
            seeds.append(("sealed-file", [2] + Array(file)))
        }
        try? await plainStore.remove(key)
        try? await sealedStore.remove(key)
        return seeds
    }
}

/// A held-factor record with every kind of factor (TOTP, recovery codes, a passkey), as the stores
/// write it: the plain file, the record JSON for sealing, and the sealed file.
func heldFactorFileSeeds() -> [(name: String, bytes: [UInt8])] {
    guard let plainHeldStore, let sealedHeldStore else { return [] }
    return runBlocking { () async -> [(name: String, bytes: [UInt8])] in
        var seeds: [(name: String, bytes: [UInt8])] = []
        guard let service = try? HeldFactors(store: plainHeldStore, providers: ["oidc"], issuer: "Fuzz",
                                             relyingParty: WebAuthnRelyingParty(id: "example.com"), clock: FuzzClock(), random: FuzzRandom())
        else { return [] }
        try? await plainHeldStore.remove(heldFactorOwner)
        if let totp = try? await service.startEnrollment(.totp, options: MethodEnrollmentOptions(), owner: heldFactorOwner),
           case .totp(let uri, _) = totp.prompt, let code = try? OTPAuthURI(parsing: uri).totp(skew: 0).code(at: FuzzClock().now) {
            _ = try? await service.confirmEnrollment(totp, response: .code(code), owner: heldFactorOwner)
        }
        if let codes = try? await service.startEnrollment(.recoveryCodes, options: MethodEnrollmentOptions(), owner: heldFactorOwner) {
            _ = try? await service.confirmEnrollment(codes, response: .acknowledged, owner: heldFactorOwner)
        }
        if let passkey = try? await service.startEnrollment(.passkey, options: MethodEnrollmentOptions(), owner: heldFactorOwner),
           case .passkey(let options) = passkey.prompt,
           let authenticator = try? SoftwarePasskeyAuthenticator(store: InMemoryPasskeyCredentialStore()),
           let registration = try? await authenticator.makeCredential(options) {
            _ = try? await service.confirmEnrollment(passkey, response: .passkey(registration), owner: heldFactorOwner)
        }
        let name = heldFactorOwner.reference + ".json"
        if let file = try? Data(contentsOf: plainHeldStore.directory.appendingPathComponent(name)) {
            seeds.append(("plain-file", [0] + Array(file)))
            if case .object(let tree)? = try? JSONValue.parse(file), let record = tree["record"]?.stringValue {
                seeds.append(("sealed-record-json", [1] + Array(record.utf8)))
            }
        }
        if let record = try? await plainHeldStore.load(heldFactorOwner),
           (try? await sealedHeldStore.save(record, expectedVersion: try? await sealedHeldStore.load(heldFactorOwner)?.version)) != nil,
           let file = try? Data(contentsOf: sealedHeldStore.directory.appendingPathComponent(name)) {
            seeds.append(("sealed-file", [2] + Array(file)))
        }
        try? await plainHeldStore.remove(heldFactorOwner)
        try? await sealedHeldStore.remove(heldFactorOwner)
        return seeds
    }
}

func jwtSeeds() -> [(name: String, bytes: [UInt8])] {
    let now = 1_767_225_600
    let claims = #"{"iss":"https://issuer.example.com/","sub":"user-1","aud":"fuzz-client","exp":\#(now + 3600),"iat":\#(now - 10),"auth_time":\#(now - 20),"nonce":"fuzz-nonce","azp":"fuzz-client"}"#
    let firebaseClaims = #"{"iss":"https://securetoken.google.com/fuzz-project","aud":"fuzz-project","sub":"uid-1","exp":\#(now + 3600),"iat":\#(now - 10),"auth_time":\#(now - 20),"user_id":"uid-1","firebase":{"sign_in_provider":"password"}}"#
    let es256Header = #"{"alg":"ES256","typ":"JWT","kid":"ec-1"}"#
    let rs256Header = #"{"alg":"RS256","typ":"JWT","kid":"rsa-1"}"#
    let es256Token = signedToken(header: Array(es256Header.utf8), payload: Array(claims.utf8), rsa: false)
    let unsigned = base64url(Data(#"{"alg":"none","typ":"JWT"}"#.utf8)) + "." + base64url(Data(firebaseClaims.utf8)) + "."
    return [
        ("raw-es256", [0] + Array(es256Token.utf8)),
        ("signed-es256", [1, 0] + Script.chunk(es256Header) + Array(claims.utf8)),
        ("signed-rs256", [1, 1] + Script.chunk(rs256Header) + Array(claims.utf8)),
        ("fuzzed-jwks", [2, 0] + Script.chunk(es256Header) + Script.chunk(claims) + Script.reply(200, String(decoding: fuzzJWKS, as: UTF8.self))),
        ("firebase-signed", [3] + Script.chunk(rs256Header) + Array(firebaseClaims.utf8)),
        ("firebase-keys-reply", [4] + Script.chunk(unsigned) + [1] + Script.reply(200, String(decoding: fuzzJWKS, as: UTF8.self),
                                                                                   headers: [("Cache-Control", "public, max-age=19302, must-revalidate, no-transform")])),
        ("firebase-emulator", [5] + Array(unsigned.utf8)),
        ("turnkey-session", [6] + Array("eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCJ9.eyJleHAiOjE3NDg4NzY4MzcsInB1YmxpY19rZXkiOiIwMzk5ZmUyYWNlNjIwOGFmMGFkZjg0OGY0NGJjNDgyMTBiNTk0YjdlNjllY2Q5MWVjOTY4ZmQ3NWIzYmI0NDgzMzYiLCJzZXNzaW9uX3R5cGUiOiJTRVNTSU9OX1RZUEVfUkVBRF9XUklURSIsInVzZXJfaWQiOiI2OTEyYjgxOS1mNGRmLTQwZjQtYTE5Mi0yMGVlNDMwOTA5NzQiLCJvcmdhbml6YXRpb25faWQiOiJjNzVlY2IwNy1jODRhLTRkZDUtOTMyYy01MzlkZmFmYzY4NjQifQ.y6LPW1jlTwc9jFcvCwKJoKfleL_vHnGUr5tRVdMFUCnHvDspSPZ3DWK85tf1znCCBFQ6MYaFOl-1FLb0KcFxqQ".utf8)),
    ]
}

func providerSeeds() -> [(name: String, bytes: [UInt8])] {
    let now = 1_767_225_600
    let idClaims = #"{"iss":"https://tenant.example.com/","sub":"auth0|1","aud":"fuzz-client","exp":\#(now + 3600),"iat":\#(now - 10),"email":"ada@example.com"}"#
    let idToken = signedToken(header: Array(#"{"alg":"ES256","typ":"JWT","kid":"ec-1"}"#.utf8), payload: Array(idClaims.utf8), rsa: false)
    let auth0Tokens = #"{"access_token":"at","id_token":"\#(idToken)","refresh_token":"rt","token_type":"Bearer","expires_in":86400,"scope":"openid profile email offline_access"}"#
    let jwks = String(decoding: fuzzJWKS, as: UTF8.self)
    let firebaseTokens = #"{"kind":"identitytoolkit#VerifyPasswordResponse","localId":"uid-1","email":"ada@example.com","displayName":"Ada","idToken":"a.b.c","registered":true,"refreshToken":"rt","expiresIn":"3600"}"#
    let openfortAuth = #"{"token":"tok","user":{"id":"usr_1","email":"ada@example.com","emailVerified":true,"name":"Ada","createdAt":"2026-01-01T00:00:00.000Z","updatedAt":"2026-01-01T00:00:00.000Z","isAnonymous":false}}"#
    let activity = #"{"activity":{"id":"act-1","organizationId":"org-1","status":"ACTIVITY_STATUS_COMPLETED","type":"ACTIVITY_TYPE_STAMP_LOGIN","result":{"stampLoginResult":{"session":"a.b.c"}}}}"#
    let discovery = #"{"issuer":"https://issuer.example.com/","authorization_endpoint":"https://issuer.example.com/authorize","token_endpoint":"https://issuer.example.com/token","jwks_uri":"https://issuer.example.com/jwks.json","userinfo_endpoint":"https://issuer.example.com/userinfo","response_types_supported":["code"],"subject_types_supported":["public"],"id_token_signing_alg_values_supported":["RS256","ES256"]}"#
    let deviceDiscovery = #"{"issuer":"https://issuer.example.com/","authorization_endpoint":"https://issuer.example.com/authorize","token_endpoint":"https://issuer.example.com/token","jwks_uri":"https://issuer.example.com/jwks.json","userinfo_endpoint":"https://issuer.example.com/userinfo","device_authorization_endpoint":"https://issuer.example.com/device","response_types_supported":["code"],"subject_types_supported":["public"],"id_token_signing_alg_values_supported":["RS256","ES256"]}"#
    let deviceCode = #"{"device_code":"GmRhmhcxhwAzkoEqiMEg_DnyEysNkuNhszIySk9eS","user_code":"WDJB-MJHT","verification_uri":"https://issuer.example.com/activate","verification_uri_complete":"https://issuer.example.com/activate?user_code=WDJB-MJHT","expires_in":900,"interval":5}"#
    func op(_ name: String) -> UInt8 { UInt8(providerOperations.firstIndex { $0.name == name } ?? 0) }
    return [
        ("auth0-password", [op("auth0.password")] + Script.reply(200, auth0Tokens) + Script.reply(200, jwks)),
        ("auth0-mfa-required", [op("auth0.password")] + Script.reply(403, #"{"error":"mfa_required","error_description":"MFA","mfa_token":"m","mfa_requirements":{"challenge":[{"type":"otp"}]}}"#)),
        ("auth0-refresh", [op("auth0.refresh")] + Script.reply(200, auth0Tokens) + Script.reply(200, jwks)),
        ("auth0-userinfo", [op("auth0.userInfo")] + Script.reply(200, #"{"sub":"auth0|1","email":"ada@example.com","email_verified":true,"name":"Ada","updated_at":"2026-01-01T00:00:00.000Z"}"#)),
        ("auth0-myaccount", [op("auth0.myAccount.methods")] + Script.reply(200, #"{"authentication_methods":[{"id":"totp|dev_1","type":"totp","confirmed":true,"created_at":"2026-01-01T00:00:00.000Z","usage":["secondary"]}]}"#)),
        ("auth0-enroll", [op("auth0.myAccount.enroll")] + Script.reply(201, #"{"auth_session":"s","barcode_uri":"otpauth://totp/Ex:ada?secret=JBSWY3DPEHPK3PXP","manual_input_code":"JBSWY3DPEHPK3PXP"}"#, headers: [("Location", "https://tenant.example.com/me/v1/authentication-methods/totp%7Cdev_1")])),
        ("auth0-management", [op("auth0.management")] + Script.reply(200, #"{"user_id":"auth0|1","email":"ada@example.com","identities":[{"provider":"auth0","user_id":"1","connection":"db","isSocial":false}],"user_metadata":{"theme":"dark"},"created_at":"2026-01-01T00:00:00.000Z"}"#)),
        ("firebase-password", [op("firebase.password")] + Script.reply(200, firebaseTokens)),
        ("firebase-refresh", [op("firebase.refresh")] + Script.reply(200, #"{"access_token":"a.b.c","expires_in":"3600","token_type":"Bearer","refresh_token":"rt","id_token":"a.b.c","user_id":"uid-1","project_id":"1"}"#)),
        ("firebase-lookup", [op("firebase.userInfo")] + Script.reply(200, #"{"kind":"identitytoolkit#GetAccountInfoResponse","users":[{"localId":"uid-1","email":"ada@example.com","emailVerified":true,"providerUserInfo":[{"providerId":"password","email":"ada@example.com"}],"lastLoginAt":"1767225600000","createdAt":"1767225600000"}]}"#)),
        ("openfort-password", [op("openfort.password")] + Script.reply(200, openfortAuth) + Script.reply(200, #"{"session":{"id":"s1","token":"tok","userId":"usr_1","expiresAt":"2026-01-02T00:00:00.000Z"},"user":{"id":"usr_1"}}"#)),
        ("openfort-legacy", [op("openfort.legacy")] + Script.reply(200, #"{"token":"at","refreshToken":"rt","player":{"id":"pla_1","object":"player","createdAt":1767225600,"linkedAccounts":[]}}"#)),
        ("turnkey-passkey", [op("turnkey.passkey")] + Script.reply(200, #"{"organizationIds":["org-1"]}"#) + Script.reply(200, activity)),
        ("turnkey-whoami", [op("turnkey.userInfo")] + Script.reply(200, #"{"organizationId":"org-1","organizationName":"Ada","userId":"u-1","username":"ada"}"#)),
        ("oidc-code", [op("oidc.authorizationCode")] + Script.reply(200, discovery) + Script.reply(200, auth0Tokens) + Script.reply(200, jwks)),
        ("auth0-device", [op("auth0.device")] + Script.reply(200, deviceCode) + Script.reply(403, #"{"error":"authorization_pending","error_description":"User has yet to authorize device code."}"#)
            + Script.reply(200, auth0Tokens) + Script.reply(200, jwks)),
        ("oidc-device", [op("oidc.device")] + Script.reply(200, deviceDiscovery) + Script.reply(200, deviceCode)
            + Script.reply(400, #"{"error":"authorization_pending"}"#) + Script.reply(400, #"{"error":"slow_down"}"#)
            + Script.reply(200, #"{"access_token":"at","token_type":"Bearer","expires_in":3600,"refresh_token":"rt","scope":"openid email"}"#)
            + Script.reply(200, #"{"sub":"user-1","email":"ada@example.com","name":"Ada"}"#)),
    ]
}

func webAuthnSeeds() -> [(name: String, bytes: [UInt8])] {
    let options = PasskeyRegistrationOptions(relyingParty: PasskeyRelyingParty(id: "example.com", name: "Example"),
                                             user: PasskeyUser(id: Array("user-2".utf8), name: "bob", displayName: "Bob"),
                                             challenge: fuzzChallenge, origin: "https://example.com")
    var seeds = runBlocking { () async -> [(name: String, bytes: [UInt8])] in
        var seeds: [(name: String, bytes: [UInt8])] = []
        let store = InMemoryPasskeyCredentialStore()
        guard let authenticator = try? SoftwarePasskeyAuthenticator(store: store, random: FuzzRandom(), clock: FuzzClock()),
              let registration = try? await authenticator.makeCredential(options) else { return seeds }
        seeds.append(("registration", [0] + Script.chunk(registration.credentialID) + Script.chunk(registration.clientDataJSON)
                        + Script.chunk(registration.attestationObject)))
        if let json = try? registration.json.serialized() { seeds.append(("registration-json", [3] + Array(json))) }
        if let record = try? fuzzRelyingParty.verifyRegistration(registration, challenge: fuzzChallenge) {
            if let attested = try? AuthenticatorData(bytes: registration.authenticatorData ?? []).attestedCredential {
                seeds.append(("cose-key", [2] + attested.publicKeyBytes))
            }
            if let json = try? JSONEncoder().encode(record) { seeds.append(("credential-record", [4] + Array(json))) }
        }
        return seeds
    }
    // An assertion by the fixed credential of `fuzzCredentialRecord`, made here.
    let clientData = CollectedClientData(type: CollectedClientData.getType, challenge: fuzzChallenge, origin: "https://example.com").jsonBytes
    let authData = AuthenticatorData(rpIDHash: Array(SHA256.hash(data: Array("example.com".utf8))), flags: [.userPresent, .userVerified],
                                     signCount: 6).bytes
    if let signature = try? fuzzP256Key(seed: 1).signature(for: authData + Array(SHA256.hash(data: clientData))) {
        seeds.append(("assertion", [1] + Script.chunk(clientData) + Script.chunk(authData) + Script.chunk(Array(signature.derRepresentation)) + [0]))
    }
    return seeds
}

/// Writes every target's seeds under `directory/<target>/`.
func writeSeeds(to directory: String) {
    for target in allTargets {
        let folder = URL(fileURLWithPath: directory).appendingPathComponent(target.name)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for seed in fuzzSeeds(for: target.name) {
            try? Data(seed.bytes).write(to: folder.appendingPathComponent(seed.name))
        }
    }
}
