import AuthHub
import AuthHubEmulator
import AuthHubTesting
import Foundation
import Logging
import Testing

@Suite struct EmulatorRoutingTests {
    let client = EmulatorClient()

    static let auth0NotFound: JSONValue = ["statusCode": 404, "error": "Not Found", "message": "Not Found"]
    static let firebaseNotFound: JSONValue = [
        "error": [
            "code": 404, "message": "Not Found", "status": "NOT_FOUND",
            "errors": [["message": "Not Found", "domain": "global", "reason": "notFound"]],
        ]
    ]
    static let openfortNotFound: JSONValue = ["code": "NOT_FOUND", "message": "Not Found"]
    static let turnkeyNotFound: JSONValue = ["code": 5, "message": "Not Found", "details": []]
    static let genericNotFound: JSONValue = ["error": "not_found"]

    @Test func unknownPathsGetTheOwningProvidersJSON404() async throws {
        let emulator = try await Emulator.start()
        let cases: [(HTTPRequest.Method, String, JSONValue)] = [
            (.get, "/auth0/no/such/route", Self.auth0NotFound),
            (.post, "/auth0/oauth/unknown", Self.auth0NotFound),
            (.post, "/auth0/__emulator", Self.auth0NotFound),  // known path, wrong method
            (.post, "/identitytoolkit.googleapis.com/v1/accounts:noSuchOp?key=k", Self.firebaseNotFound),
            (.post, "/securetoken.googleapis.com/v2/token", Self.firebaseNotFound),
            (.post, "/www.googleapis.com/identitytoolkit/v3/relyingparty/nope", Self.firebaseNotFound),
            (.get, "/emulator/v1/projects/p/nothing", Self.firebaseNotFound),
            (.get, "/openfort/iam/v2/auth/nope", Self.openfortNotFound),
            (.post, "/turnkey/public/v1/query/nope", Self.turnkeyNotFound),
            (.post, "/turnkey-proxy/v1/nope", Self.turnkeyNotFound),
            (.get, "/nowhere", Self.genericNotFound),
            (.get, "/auth0x/segment-aware", Self.genericNotFound),
            (.get, "/__authhub/nope", Self.genericNotFound),
            (.get, "/www.googleapis.com/other", Self.genericNotFound),
        ]
        var results: [(String, Int, JSONValue?)] = []
        for (method, path, _) in cases {
            let (response, json) = try await client.send(method, emulator.url(path))
            results.append(("\(method) \(path)", response.status, json))
        }
        await emulator.stop()

        for (index, (label, status, json)) in results.enumerated() {
            #expect(status == 404, "\(label)")
            #expect(json == cases[index].2, "\(label)")
        }
    }

    @Test func everyModuleAnswersItsInfoRoute() async throws {
        let emulator = try await Emulator.start()
        let expected: [(path: String, body: JSONValue)] = [
            (
                "/auth0/__emulator",
                [
                    "module": "auth0", "prefixes": ["/auth0"],
                    "routes": [
                        "DELETE /auth0/api/v2/users/:id/identities/:provider/:secondary",
                        "DELETE /auth0/me/v1/authentication-methods/:id",
                        "GET /auth0/.well-known/jwks.json", "GET /auth0/.well-known/openid-configuration",
                        "GET /auth0/__emulator", "GET /auth0/__emulator/backchannel-logouts", "GET /auth0/__emulator/dpop", "GET /auth0/__emulator/mfa-binding-code", "GET /auth0/__emulator/outbox",
                        "GET /auth0/__emulator/passwordless", "GET /auth0/__emulator/stats", "GET /auth0/__emulator/users", "GET /auth0/activate",
                        "GET /auth0/api/v2/users/:id",
                        "GET /auth0/authorize", "GET /auth0/me/v1/authentication-methods", "GET /auth0/me/v1/authentication-methods/:id",
                        "GET /auth0/me/v1/factors",
                        "GET /auth0/mfa/authenticators", "GET /auth0/userinfo", "GET /auth0/v2/logout",
                        "PATCH /auth0/api/v2/users/:id", "PATCH /auth0/me/v1/authentication-methods/:id",
                        "POST /auth0/__emulator/attack-protection", "POST /auth0/__emulator/clients",
                        "POST /auth0/__emulator/device/approve", "POST /auth0/__emulator/device/deny", "POST /auth0/__emulator/dpop",
                        "POST /auth0/__emulator/logout-token", "POST /auth0/__emulator/organizations", "POST /auth0/__emulator/organizations/:id/invitations",
                        "POST /auth0/__emulator/push/accept", "POST /auth0/__emulator/token-exchange",
                        "POST /auth0/__emulator/users", "POST /auth0/activate", "POST /auth0/api/v2/users/:id/identities",
                        "POST /auth0/dbconnections/change_password", "POST /auth0/dbconnections/signup",
                        "POST /auth0/me/v1/authentication-methods", "POST /auth0/me/v1/authentication-methods/:id/verify",
                        "POST /auth0/mfa/associate", "POST /auth0/mfa/challenge", "POST /auth0/oauth/device/code", "POST /auth0/oauth/par", "POST /auth0/oauth/revoke",
                        "POST /auth0/oauth/token",
                        "POST /auth0/otp/challenge",
                        "POST /auth0/passkey/challenge", "POST /auth0/passkey/register",
                        "POST /auth0/passwordless/start", "POST /auth0/u/login", "POST /auth0/u/signup",
                    ],
                ]
            ),
            (
                "/identitytoolkit.googleapis.com/__emulator",
                [
                    "module": "firebase",
                    "prefixes": [
                        "/identitytoolkit.googleapis.com", "/securetoken.googleapis.com",
                        "/www.googleapis.com/identitytoolkit", "/emulator",
                    ],
                    "routes": [
                        "DELETE /emulator/v1/projects/:projectId/accounts",
                        "GET /emulator/action", "GET /emulator/v1/projects/:projectId/config",
                        "GET /emulator/v1/projects/:projectId/oobCodes", "GET /identitytoolkit.googleapis.com/__emulator",
                        "PATCH /emulator/v1/projects/:projectId/config", "POST /emulator/v1/projects/:projectId/accounts",
                        "POST /emulator/v1/projects/:projectId/accounts/:accountAction",
                        "POST /identitytoolkit.googleapis.com/v1/accounts:createAuthUri",
                        "POST /identitytoolkit.googleapis.com/v1/accounts:delete",
                        "POST /identitytoolkit.googleapis.com/v1/accounts:lookup",
                        "POST /identitytoolkit.googleapis.com/v1/accounts:resetPassword",
                        "POST /identitytoolkit.googleapis.com/v1/accounts:sendOobCode",
                        "POST /identitytoolkit.googleapis.com/v1/accounts:signInWithCustomToken",
                        "POST /identitytoolkit.googleapis.com/v1/accounts:signInWithEmailLink",
                        "POST /identitytoolkit.googleapis.com/v1/accounts:signInWithIdp",
                        "POST /identitytoolkit.googleapis.com/v1/accounts:signInWithPassword",
                        "POST /identitytoolkit.googleapis.com/v1/accounts:signUp",
                        "POST /identitytoolkit.googleapis.com/v1/accounts:update",
                        "POST /identitytoolkit.googleapis.com/v2/accounts/mfaEnrollment:finalize",
                        "POST /identitytoolkit.googleapis.com/v2/accounts/mfaEnrollment:start",
                        "POST /identitytoolkit.googleapis.com/v2/accounts/mfaEnrollment:withdraw",
                        "POST /identitytoolkit.googleapis.com/v2/accounts/mfaSignIn:finalize",
                        "POST /identitytoolkit.googleapis.com/v2/accounts/mfaSignIn:start",
                        "POST /securetoken.googleapis.com/v1/token",
                        "POST /www.googleapis.com/identitytoolkit/v3/relyingparty/createAuthUri",
                        "POST /www.googleapis.com/identitytoolkit/v3/relyingparty/deleteAccount",
                        "POST /www.googleapis.com/identitytoolkit/v3/relyingparty/emailLinkSignin",
                        "POST /www.googleapis.com/identitytoolkit/v3/relyingparty/getAccountInfo",
                        "POST /www.googleapis.com/identitytoolkit/v3/relyingparty/getOobConfirmationCode",
                        "POST /www.googleapis.com/identitytoolkit/v3/relyingparty/resetPassword",
                        "POST /www.googleapis.com/identitytoolkit/v3/relyingparty/setAccountInfo",
                        "POST /www.googleapis.com/identitytoolkit/v3/relyingparty/signupNewUser",
                        "POST /www.googleapis.com/identitytoolkit/v3/relyingparty/verifyAssertion",
                        "POST /www.googleapis.com/identitytoolkit/v3/relyingparty/verifyCustomToken",
                        "POST /www.googleapis.com/identitytoolkit/v3/relyingparty/verifyPassword",
                    ],
                ]
            ),
            (
                "/openfort/__emulator",
                [
                    "module": "openfort",
                    "prefixes": ["/openfort"],
                    "routes": [
                        "GET /openfort/__emulator",
                        "GET /openfort/__emulator/config",
                        "GET /openfort/__emulator/oauth/authorize",
                        "GET /openfort/__emulator/otp",
                        "GET /openfort/__emulator/tokens",
                        "GET /openfort/iam/v2/auth/get-session",
                        "GET /openfort/iam/v2/auth/list-accounts",
                        "GET /openfort/iam/v2/auth/reset-password/:token",
                        "GET /openfort/iam/v2/auth/verify-email",
                        "GET /openfort/iam/v2/me",
                        "PATCH /openfort/__emulator/config",
                        "POST /openfort/__emulator/users",
                        "POST /openfort/iam/v2/auth/change-email",
                        "POST /openfort/iam/v2/auth/email-otp/check-verification-otp",
                        "POST /openfort/iam/v2/auth/email-otp/reset-password",
                        "POST /openfort/iam/v2/auth/email-otp/send-verification-otp",
                        "POST /openfort/iam/v2/auth/email-otp/verify-email",
                        "POST /openfort/iam/v2/auth/forget-password",
                        "POST /openfort/iam/v2/auth/forget-password/email-otp",
                        "POST /openfort/iam/v2/auth/link-social",
                        "POST /openfort/iam/v2/auth/request-password-reset",
                        "POST /openfort/iam/v2/auth/reset-password",
                        "POST /openfort/iam/v2/auth/send-verification-email",
                        "POST /openfort/iam/v2/auth/sign-in/anonymous",
                        "POST /openfort/iam/v2/auth/sign-in/email",
                        "POST /openfort/iam/v2/auth/sign-in/email-otp",
                        "POST /openfort/iam/v2/auth/sign-in/social",
                        "POST /openfort/iam/v2/auth/sign-out",
                        "POST /openfort/iam/v2/auth/sign-up/email",
                        "POST /openfort/iam/v2/auth/unlink-account",
                    ],
                ]
            ),
            (
                "/turnkey/__emulator",
                [
                    "module": "turnkey",
                    "prefixes": ["/turnkey", "/turnkey-proxy"],
                    "routes": [
                        "GET /turnkey-proxy/proxy/sub-org-ids",
                        "GET /turnkey/__emulator",
                        "GET /turnkey/__emulator/config",
                        "GET /turnkey/__emulator/notarizer",
                        "PATCH /turnkey/__emulator/config",
                        "POST /turnkey-proxy/auth/createSubOrg",
                        "POST /turnkey/__emulator/api-keys",
                        "POST /turnkey/__emulator/users",
                        "POST /turnkey/public/v1/query/get_activity",
                        "POST /turnkey/public/v1/query/get_authenticators",
                        "POST /turnkey/public/v1/query/list_suborgs",
                        "POST /turnkey/public/v1/query/whoami",
                        "POST /turnkey/public/v1/submit/create_authenticators",
                        "POST /turnkey/public/v1/submit/create_read_write_session",
                        "POST /turnkey/public/v1/submit/delete_authenticators",
                        "POST /turnkey/public/v1/submit/stamp_login",
                    ],
                ]
            ),
        ]
        var bodies: [JSONValue?] = []
        for item in expected { bodies.append(try await client.send(.get, emulator.url(item.path)).json) }
        let listing = try await client.send(.get, emulator.url("/__authhub/modules")).json
        await emulator.stop()

        for (index, item) in expected.enumerated() {
            #expect(bodies[index] == item.body, "\(item.path)")
        }
        let infos = listing?["modules"]?.arrayValue?.compactMap { $0["info"]?.stringValue }
        #expect(infos == expected.map(\.path))
    }

    @Test func moduleRoutesAreListedAndStateIsClearedByReset() async throws {
        let counter = CounterModule()
        let emulator = try await Emulator(modules: Emulator.builtInModules + [counter]).start()

        let info = try await client.send(.get, emulator.url("/counter/__emulator")).json
        _ = try await client.send(.post, emulator.url("/counter/increment"))
        let afterIncrement = try await client.send(.post, emulator.url("/counter/increment")).json
        let reset = try await client.send(.post, emulator.url("/__authhub/reset"))
        let afterReset = try await client.send(.get, emulator.url("/counter/value")).json
        let health = try await client.send(.get, emulator.url("/__authhub/health")).json
        let resets = await emulator.state.resets
        await emulator.stop()

        #expect(info?["routes"] == ["GET /counter/__emulator", "GET /counter/value", "POST /counter/increment"])
        #expect(afterIncrement == ["value": 2])
        #expect(reset.response.status == 200)
        #expect(reset.json?["status"] == "reset")
        #expect(afterReset == ["value": 0])
        #expect(counter.resets.withLock { $0 } == 1)
        #expect(resets == 1)
        #expect(health?["modules"] == ["auth0", "firebase", "openfort", "turnkey", "counter"])
    }

    @Test func runningEmulatorResetMatchesTheResetRoute() async throws {
        let counter = CounterModule()
        let emulator = try await Emulator(modules: [counter]).start()
        _ = try await client.send(.post, emulator.url("/counter/increment"))
        await emulator.reset()
        let value = try await client.send(.get, emulator.url("/counter/value")).json
        await emulator.stop()
        #expect(value == ["value": 0])
        #expect(counter.resets.withLock { $0 } == 1)
    }

    @Test func conflictingModulesAreRejected() async throws {
        let trespass = await #expect(throws: AuthError.self) {
            _ = try await Emulator(modules: Emulator.builtInModules + [TrespassingModule()]).start()
        }
        #expect(trespass?.code == .invalidConfiguration)
        #expect(trespass?.message.contains("/auth0/oauth/token") == true)

        let overlap = await #expect(throws: AuthError.self) {
            _ = try await Emulator(modules: Emulator.builtInModules + [OverlappingModule()]).start()
        }
        #expect(overlap?.code == .invalidConfiguration)
        #expect(overlap?.message.contains("/auth0/extra") == true)

        let duplicate = await #expect(throws: AuthError.self) {
            _ = try await Emulator(modules: [Auth0EmulatorModule(), Auth0EmulatorModule()]).start()
        }
        #expect(duplicate?.code == .invalidConfiguration)
    }

    @Test func requestsAreLoggedWithoutQueryStringsOrBodies() async throws {
        let capture = CapturingLogHandler.Capture()
        let emulator = try await Emulator.start(EmulatorConfiguration(logger: capture.logger(level: .debug)))
        _ = try await client.send(.get, emulator.url("/auth0/__emulator?code=query-secret-123"))
        _ = try await client.send(
            .post, emulator.url("/identitytoolkit.googleapis.com/v1/accounts:signUp?key=key-secret-456"),
            json: ["password": "body-secret-789"]
        )
        await emulator.stop()

        let lines = capture.lines
        let requestLines = lines.filter { $0.contains("request") && $0.contains("method=") }
        #expect(requestLines.contains { $0.contains("path=/auth0/__emulator") && $0.contains("status=200") })
        #expect(requestLines.contains {
            $0.contains("path=/identitytoolkit.googleapis.com/v1/accounts:signUp") && $0.contains("status=400")
        })
        for secret in ["query-secret-123", "key-secret-456", "body-secret-789"] {
            #expect(!lines.contains { $0.contains(secret) }, "\(secret) leaked into the log")
        }
    }
}
