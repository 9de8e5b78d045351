import AuthHub
@_spi(Internals) @testable import AuthHubAuth0
import AuthHubFactors
import AuthHubTesting
import Foundation
import Testing

/// The My Account API requests of spec/auth0.md §6.3–§6.5 on the wire, and its §6.7 errors.
@Suite struct Auth0MyAccountAPITests {
    let transport = StubTransport()
    let scopes = Mutex<[String]>([])

    var api: Auth0MyAccountAPI {
        get throws {
            let provider = Auth0Provider(id: "auth0", configuration: try Auth0Configuration(domain: "tenant.auth0.com", clientId: "cid"),
                                         context: ProviderContext(transport: transport, clock: FakeClock()))
            let scopes = self.scopes
            return Auth0MyAccountAPI(provider: provider) { scope in
                scopes.withLock { $0.append(scope) }
                return Auth0APICredentials(accessToken: Secret("me-token"), tokenType: "Bearer", expiresAt: .distantFuture, scope: scope)
            }
        }
    }

    @Test func listGetUpdateDeleteAndFactors() async throws {
        transport.on(.get, "/me/v1/authentication-methods") { request in
            #expect(request.queryItems["type"] == "totp")
            return .json(200, ["authentication_methods": [["id": "totp|dev_1", "type": "totp", "confirmed": true, "usage": ["secondary"],
                                                           "created_at": "2026-01-01T00:00:00.000Z"]]])
        }
        transport.on(.get, "/me/v1/authentication-methods/phone|dev_2") { _ in .json(200, ["id": "phone|dev_2", "type": "phone"]) }
        transport.on(.patch, "/me/v1/authentication-methods/phone|dev_2") { _ in .json(200, ["id": "phone|dev_2", "name": "Work"]) }
        transport.on(.delete, "/me/v1/authentication-methods/phone|dev_2") { _ in .raw(204, "") }
        transport.on(.get, "/me/v1/factors") { _ in .json(200, ["factors": [["type": "totp", "usage": ["secondary"]], ["type": "passkey"]]]) }

        let api = try api
        let methods = try await api.authenticationMethods(type: "totp")
        #expect(methods.map(\.id) == ["totp|dev_1"] && methods.first?.confirmed == true && methods.first?.usage == ["secondary"])
        #expect(transport.requests.last?.headerFields["Authorization"] == "Bearer me-token")
        #expect(try await api.authenticationMethod(id: "phone|dev_2").type == "phone")
        #expect(transport.requests.last?.url.absoluteString == "https://tenant.auth0.com/me/v1/authentication-methods/phone%7Cdev_2")
        #expect(try await api.updateAuthenticationMethod(id: "phone|dev_2", name: "Work", preferredAuthenticationMethod: "voice").name == "Work")
        #expect(transport.requests.last?.jsonBody == ["name": "Work", "preferred_authentication_method": "voice"])
        try await api.deleteAuthenticationMethod(id: "phone|dev_2")
        let factors = try await api.factors()
        #expect(factors.map(\.type) == ["totp", "passkey"] && factors.first?.usage == ["secondary"])
        #expect(scopes.withLock { $0 } == ["read:me:authentication_methods", "read:me:authentication_methods",
                                           "update:me:authentication_methods", "delete:me:authentication_methods", "read:me:factors"])
    }

    @Test func totpEnrollmentUsesTheLocationIDAndVerifiesWithACode() async throws {
        transport.on(.post, "/me/v1/authentication-methods") { request in
            #expect(request.jsonBody == ["type": "totp"])
            var reply = StubTransport.Reply.json(201, ["id": "ignored", "auth_session": "sess-1",
                                                       "barcode_uri": "otpauth://totp/T:ada?secret=JBSWY3DPEHPK3PXP", "manual_input_code": "JBSWY3DPEHPK3PXP"])
            if case .response(var response) = reply {
                response.head.headerFields[.location] = "https://tenant.auth0.com/me/v1/authentication-methods/totp%7Cdev_9"
                reply = .response(response)
            }
            return reply
        }
        transport.on(.post, "/me/v1/authentication-methods/totp|dev_9/verify") { _ in .json(200, ["id": "totp|dev_9", "confirmed": true]) }
        let api = try api
        let challenge = try await api.startEnrollment(.totp)
        #expect(challenge.methodID == "totp|dev_9" && challenge.authSession.revealed() == "sess-1")
        guard case .qrCode(let uri, let manual) = challenge.prompt else { Issue.record("expected a QR prompt"); return }
        #expect(try OTPAuthURI(parsing: uri).account == "ada" && manual?.revealed() == "JBSWY3DPEHPK3PXP")
        let method = try await api.confirmEnrollment(challenge, response: .code(Secret("123456")))
        #expect(method.confirmed == true)
        #expect(transport.requests.last?.jsonBody == ["auth_session": "sess-1", "otp_code": "123456"])
        #expect(scopes.withLock { $0 } == ["create:me:authentication_methods", "create:me:authentication_methods"])
    }

    @Test func otherEnrollmentBodiesAndPrompts() async throws {
        let replies: [String: JSONValue] = [
            "email": ["id": "email|dev_1", "auth_session": "s"], "phone": ["id": "phone|dev_1", "auth_session": "s"],
            "recovery-code": ["id": "recovery-code|dev_1", "auth_session": "s", "recovery_code": "ABCD1234"],
            "password": ["id": "password|dev_1", "auth_session": "s", "policy": ["complexity": ["min_length": 8]]],
            "passkey": ["auth_session": "s", "authn_params_public_key": [
                "challenge": "AAEC", "rp": ["id": "tenant.auth0.com", "name": "T"], "user": ["id": "dQ", "name": "ada", "displayName": "Ada"],
                "pubKeyCredParams": [["type": "public-key", "alg": -7]], "authenticatorSelection": ["residentKey": "required"]]],
        ]
        transport.on(.post, "/me/v1/authentication-methods") { request in
            let type = request.jsonBody?["type"]?.stringValue ?? ""
            guard case .response(var response) = StubTransport.Reply.json(201, replies[type] ?? [:]) else { return .raw(500, "") }
            response.head.headerFields[.location] = "/me/v1/authentication-methods/\(type)%7Cdev_1"
            return .response(response)
        }
        let api = try api
        guard case .codeSent = try await api.startEnrollment(.email("ada@example.com")).prompt else { Issue.record("email"); return }
        #expect(transport.requests.last?.jsonBody == ["type": "email", "email": "ada@example.com"])
        _ = try await api.startEnrollment(.phone("+15555550100", preferredMethod: "sms"))
        #expect(transport.requests.last?.jsonBody == ["type": "phone", "phone_number": "+15555550100", "preferred_authentication_method": "sms"])
        guard case .recoveryCode(let code) = try await api.startEnrollment(.recoveryCode).prompt else { Issue.record("recovery"); return }
        #expect(code.revealed() == "ABCD1234")
        guard case .password(let policy) = try await api.startEnrollment(.password(connection: "db-1")).prompt else { Issue.record("password"); return }
        #expect(policy?["complexity"]?["min_length"] == 8)
        let passkey = try await api.startEnrollment(.passkey())
        guard case .passkey(let options) = passkey.prompt else { Issue.record("passkey"); return }
        #expect(passkey.methodID == "passkey|dev_1" && options.relyingParty.id == "tenant.auth0.com")
        await #expect(throws: AuthError(.invalidRequest)) { try await api.startEnrollment(.password(connection: "bad name!")) }
    }

    @Test func aReplyWithoutLocationIsRefused() async throws {
        transport.on(.post, "/me/v1/authentication-methods") { _ in .json(201, ["id": "x", "auth_session": "s", "barcode_uri": "otpauth://totp/a?secret=AA"]) }
        let error = await #expect(throws: AuthError.self) { try await api.startEnrollment(.totp) }
        #expect(error?.message.contains("Location") == true)
    }

    @Test func myAccountErrorsAreMapped() async throws {
        transport.on(.get, "/me/v1/authentication-methods") { _ in
            .json(403, ["type": "https://auth0.com/api-errors/A0E-403-0001", "status": 403, "title": "Forbidden",
                        "detail": "Insufficient scope; expected read:me:authentication_methods"])
        }
        transport.on(.post, "/me/v1/authentication-methods") { _ in
            .json(400, ["type": "https://auth0.com/api-errors/A0E-400-0001", "status": 400, "title": "Bad Request", "detail": "Invalid body",
                        "validation_errors": [["detail": "must be an email", "field": "email"]]])
        }
        let api = try api
        let forbidden = await #expect(throws: AuthError.self) { try await api.authenticationMethods() }
        #expect(forbidden?.code == .insufficientScope && forbidden?.providerCode == "https://auth0.com/api-errors/A0E-403-0001")
        #expect(forbidden?.details["requiredScope"] == "read:me:authentication_methods" && forbidden?.requiresReauthentication == true)
        #expect(forbidden?.message.contains("Insufficient scope") == true && forbidden?.details["title"] == "Forbidden")
        let invalid = await #expect(throws: AuthError.self) { try await api.startEnrollment(.email("nope")) }
        #expect(invalid?.code == .invalidRequest && invalid?.details["validation.email"] == "must be an email")
    }

    @Test func otherRefusalsKeepTheirStatusMeaning() {
        let mapper = Auth0MyAccountErrorMapper()
        func map(_ status: Int, _ body: JSONValue) -> AuthError {
            mapper.map(HTTPReply(status: status, headerFields: [:], body: (try? JSONEncoder().encode(body)) ?? Data()), provider: "auth0")
        }
        #expect(map(403, ["type": "t", "status": 403, "title": "Forbidden", "detail": "The user is blocked"]).code == .accessDenied)
        #expect(map(400, ["type": "t", "status": 400, "title": "Bad Request", "detail": "Invalid otp_code."]).code == .invalidMFACode)
        #expect(map(400, ["type": "t", "status": 400, "title": "Bad Request", "detail": "auth_session expired"]).code == .invalidRequest)
        #expect(map(404, ["type": "t", "status": 404, "title": "Not Found", "detail": "No such method"]).code == .invalidRequest)
        #expect(map(401, ["type": "t", "status": 401, "title": "Unauthorized", "detail": "Invalid token"]).code == .invalidToken)
        let noExpected = map(403, ["type": "t", "status": 403, "title": "Forbidden", "detail": "Insufficient scope"])
        #expect(noExpected.code == .insufficientScope && noExpected.details["requiredScope"] == nil)
        // A body that is not JSON still maps by status.
        #expect(mapper.map(HTTPReply(status: 503, headerFields: [:], body: Data("<html>".utf8)), provider: "auth0").code == .providerUnavailable)
    }
}
