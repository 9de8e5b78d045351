import AuthHub
import AuthHubAuth0
import AuthHubEmulator
import AuthHubFactors
import AuthHubTesting
import Foundation
import Testing

/// My Account enrollment flows (spec §6) end to end: the client's flows against the emulator's
/// independent reading of the API, over real HTTP. Codes come from `AuthHubFactors` (TOTP) or from
/// the emulator's outbox (email, phone); push is accepted through the emulator's device hook.
@Suite struct Auth0MyAccountIntegrationTests {
    typealias Tenant = Auth0IntegrationTests.Tenant

    /// A signed-in user with a credentials manager and a My Account client over it.
    struct Account {
        let tenant: Tenant
        let credentials: Auth0CredentialsManager
        let api: Auth0MyAccountAPI

        static func start(_ email: String) async throws -> Account {
            let tenant = try await Tenant.start()
            try await tenant.seed(email)
            let credentials = Auth0CredentialsManager(provider: tenant.provider, store: InMemorySessionStore())
            _ = try await credentials.store(try await tenant.signIn(email))
            return Account(tenant: tenant, credentials: credentials, api: Auth0MyAccountAPI(provider: tenant.provider, credentials: credentials))
        }

        func hook(_ method: HTTPRequest.Method, _ path: String, _ body: JSONValue? = nil) async throws -> (status: Int, json: JSONValue?) {
            let reply = try await tenant.wire.send(method, tenant.emulator.url(path), headerFields: body == nil ? [:] : [.contentType: "application/json"], body: try body.map { try JSONEncoder().encode($0) })
            return (reply.status, try? JSONValue.parse(reply.body))
        }

        /// The newest code the emulator "sent" to `destination`.
        func sentCode(to destination: String) async throws -> (code: String, channel: String?) {
            let escaped = destination.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? destination
            let reply = try await hook(.get, "/auth0/__emulator/outbox?to=\(escaped)")
            let message = try #require(reply.json?["messages"]?.arrayValue?.last, "no message to \(destination): \(reply.status)")
            return (try #require(message["code"]?.stringValue), message["channel"]?.stringValue)
        }
    }

    @Test func totpWithACodeFromAuthHubFactorsAfterAWrongOneThenListAndDelete() async throws {
        let account = try await Account.start("tom@example.com")
        defer { Task { await account.tenant.emulator.stop() } }
        let flow = FactorFlow(Auth0EnrollmentFactor.totp(account.api))
        guard case .challenge(let challenge) = await flow.start(), case .qrCode(let uri, let manual) = challenge.prompt else {
            Issue.record("no QR challenge"); return
        }
        let totp = try OTPAuthURI(parsing: uri).totp(skew: 0)
        #expect(try Base32.decode(try #require(manual).revealed()) == OTPAuthURI(parsing: uri).secret.revealed())
        let right = try totp.code(at: Date()).revealed()
        let wrong = await flow.confirm(.code(Secret(right == "123456" ? "654321" : "123456")))
        #expect(wrong.error?.code == .invalidMFACode)
        #expect(await flow.retry().name == "challenge")
        guard case .completed(let method) = await flow.confirm(.code(Secret(right))) else { Issue.record("not completed"); return }
        #expect(method.id == challenge.methodID && method.type == "totp")

        let listed = try await account.api.authenticationMethods()
        #expect(listed.contains { $0.id == method.id && $0.type == "totp" && $0.confirmed != false })
        try await account.api.deleteAuthenticationMethod(id: method.id)
        #expect(try await account.api.authenticationMethods().contains { $0.id == method.id } == false)
        await #expect(throws: AuthError.self) { try await account.api.authenticationMethod(id: method.id) }
    }

    @Test func emailAndPhoneWithCodesFromTheEmulatorsOutbox() async throws {
        let account = try await Account.start("eve@example.com")
        defer { Task { await account.tenant.emulator.stop() } }
        let email = FactorFlow(Auth0EnrollmentFactor.email("eve.work@example.com", api: account.api))
        guard case .challenge(let sent) = await email.start(), case .codeSent = sent.prompt else { Issue.record("no code sent"); return }
        let emailCode = try await account.sentCode(to: "eve.work@example.com")
        #expect(emailCode.channel == "email")
        guard case .completed(let emailMethod) = await email.confirm(.code(Secret(emailCode.code))) else { Issue.record("email"); return }
        #expect(emailMethod.type == "email")

        let phone = FactorFlow(Auth0EnrollmentFactor.phone("+1 555 555 0199", preferredMethod: "voice", api: account.api))
        #expect(await phone.start().name == "challenge")
        let phoneCode = try await account.sentCode(to: "+15555550199")
        #expect(phoneCode.channel == "voice")
        let wrongCode = String(phoneCode.code.dropLast()) + (phoneCode.code.last == "0" ? "1" : "0")
        #expect(await phone.confirm(.code(Secret(wrongCode))).error?.code == .invalidMFACode)
        #expect(await phone.retry().name == "challenge")
        guard case .completed(let phoneMethod) = await phone.confirm(.code(Secret(phoneCode.code))) else { Issue.record("phone"); return }
        #expect(phoneMethod.type == "phone")
        let renamed = try await account.api.updateAuthenticationMethod(id: phoneMethod.id, name: "Desk phone", preferredAuthenticationMethod: "sms")
        #expect(renamed.name == "Desk phone")

        let overview = Auth0AuthenticationMethodsFlow(api: account.api)
        let loaded = await overview.load()
        let types = Set(loaded.overview?.methods.compactMap(\.type) ?? [])
        #expect(types.isSuperset(of: ["email", "phone"]))
        let afterDelete = await overview.delete(id: emailMethod.id)
        #expect(afterDelete.overview?.methods.contains { $0.id == emailMethod.id } == false)
        #expect(afterDelete.overview?.methods.contains { $0.id == phoneMethod.id } == true)
    }

    @Test func pushIsConfirmedOnlyAfterTheDeviceAcceptedIt() async throws {
        let account = try await Account.start("pat@example.com")
        defer { Task { await account.tenant.emulator.stop() } }
        let flow = FactorFlow(Auth0EnrollmentFactor.pushNotification(account.api))
        guard case .challenge(let challenge) = await flow.start(), case .qrCode = challenge.prompt else { Issue.record("no QR"); return }
        let early = await flow.confirm(.none)
        #expect(early.name == "failed" && early.error?.statusCode == 400)
        let accepted = try await account.hook(.post, "/auth0/__emulator/push/accept", ["id": .string(challenge.methodID)])
        #expect(accepted.status == 200)
        await flow.retry()
        guard case .completed(let method) = await flow.confirm(.none) else { Issue.record("not completed"); return }
        #expect(method.type == "push-notification")
    }

    @Test func recoveryCodeAndPasskeyEnrollments() async throws {
        let account = try await Account.start("rex@example.com")
        defer { Task { await account.tenant.emulator.stop() } }
        let recovery = FactorFlow(Auth0EnrollmentFactor.recoveryCode(account.api))
        guard case .challenge(let shown) = await recovery.start(), case .recoveryCode(let code) = shown.prompt else { Issue.record("no code"); return }
        #expect(code.revealed().count >= 16)
        #expect(await recovery.confirm(.none).name == "completed")

        let store = InMemoryPasskeyCredentialStore()
        let authenticator = try SoftwarePasskeyAuthenticator(store: store)
        let passkey = FactorFlow(Auth0EnrollmentFactor.passkey(account.api, authenticator: authenticator))
        guard case .challenge(let options) = await passkey.start(), case .passkey(let creation) = options.prompt else { Issue.record("no options"); return }
        #expect(creation.relyingParty.id == "localhost")
        guard case .completed(let method) = await passkey.confirm(.none) else { Issue.record("passkey not completed"); return }
        let credential = try #require(try await store.credentials(relyingPartyID: "localhost").first)
        #expect(method.type == "passkey" && method.json["key_id"]?.stringValue == Base64URL.encode(credential.id))

        // The enrolled passkey signs the user in.
        let api = account.tenant.provider.authentication
        let login = try await api.passkeyLoginChallenge(connection: "Username-Password-Authentication")
        let signedIn = account.tenant.provider.session(from: try await api.login(passkey: try await authenticator.getAssertion(login.options), challenge: login))
        #expect(signedIn.claims["email"] == "rex@example.com")

        let types = try await account.api.authenticationMethods().compactMap(\.type)
        #expect(types.contains("recovery-code") && types.contains("passkey"))
    }

    @Test func aTokenLackingTheScopeGetsASpecificError() async throws {
        let account = try await Account.start("sam@example.com")
        defer { Task { await account.tenant.emulator.stop() } }
        // A token provider that only ever asks for read access.
        let credentials = account.credentials
        let audience = account.api.audience
        let readOnly = Auth0MyAccountAPI(provider: account.tenant.provider) { _ in
            try await credentials.apiCredentials(forAudience: audience, scope: Auth0MyAccountAPI.Scope.read)
        }
        _ = try await readOnly.authenticationMethods()
        let refused = await #expect(throws: AuthError.self) { try await readOnly.startEnrollment(.totp) }
        #expect(refused?.code == .insufficientScope && refused?.statusCode == 403)
        #expect(refused?.details["requiredScope"] == Auth0MyAccountAPI.Scope.create)

        // The main session's access token is not a My Account token.
        let session = try #require(try await credentials.sessions.current())
        let wrongAudience = Auth0MyAccountAPI(provider: account.tenant.provider) { _ in
            Auth0APICredentials(accessToken: session.accessToken, tokenType: "Bearer", expiresAt: .distantFuture, scope: "")
        }
        await #expect(throws: AuthError(.invalidToken)) { try await wrongAudience.factors() }
    }
}
