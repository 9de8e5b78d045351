import AuthHub
import AuthHubAuth0
import AuthHubEmulator
import AuthHubFactors
import AuthHubFirebase
import AuthHubOpenfort
@_spi(Internals) import AuthHubTurnkey
import Foundation
import HTTPTypes
import Testing

/// The provider-neutral account API (``AccountProvider`` through the hub: `accountMethods`,
/// `startMethodEnrollment`/`confirmMethodEnrollment`, `deleteMethod`, `changePassword`,
/// `changeProfile`) end to end against the emulator over HTTP, per provider: one call sequence,
/// each provider's own wire underneath.
@Suite struct AccountAPIIntegrationTests {
    static let password = WrapperOwnershipTests.password
    let wire = URLSessionTransport(defaultTimeout: .seconds(30), followRedirects: false)

    func post(_ emulator: RunningEmulator, _ path: String, _ body: JSONValue) async throws -> Int {
        try await wire.send(.post, emulator.url(path), headerFields: [.contentType: "application/json"], body: try JSONEncoder().encode(body)).status
    }

    /// The newest code the Auth0 tenant "sent" to `destination`.
    func auth0Code(_ emulator: RunningEmulator, to destination: String) async throws -> String {
        let escaped = destination.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? destination
        let reply = try await wire.send(.get, emulator.url("/auth0/__emulator/outbox?to=\(escaped)"))
        let message = try #require(try JSONValue.parse(reply.body)["messages"]?.arrayValue?.last, "no message to \(destination)")
        return try #require(message["code"]?.stringValue)
    }

    /// A TOTP code for a challenge's `otpauth://` URI (the secret read back from the URI, as an app would).
    static func code(for prompt: MethodEnrollmentChallenge.Prompt, at date: Date = Date()) throws -> (right: Secret<String>, wrong: Secret<String>) {
        guard case .totp(let uri, let secret) = prompt else { throw AuthError(.invalidRequest, message: "not a TOTP prompt") }
        let parsed = try OTPAuthURI(parsing: uri)
        #expect(try Base32.decode(secret.revealed()) == parsed.secret.revealed(), "the manual key is the URI's secret")
        let right = try parsed.totp(skew: 0).code(at: date)
        return (right, Secret(right.revealed() == "000000" ? "111111" : "000000"))
    }

    @Test func auth0MethodsThroughTheHub() async throws {
        let emulator = try await Emulator.start()
        defer { Task { await emulator.stop() } }
        #expect(try await post(emulator, "/auth0/__emulator/users", ["email": "acct@example.com", "password": .string(Self.password)]) == 201)
        let hub = try WrapperOwnershipTests.hub(emulator)
        _ = try await hub.signIn(.password(identifier: "acct@example.com", password: Secret(Self.password)), provider: "auth0")
        let capabilities = try hub.accountCapabilities(provider: "auth0")
        #expect(capabilities.isSuperset(of: [.listMethods, .enrollTOTP, .enrollPasskey, .enrollEmailCode, .enrollPhoneCode, .enrollRecoveryCodes, .deleteMethod]))
        #expect(!capabilities.contains(.changePassword))

        let before = try await hub.accountMethods(provider: "auth0")
        let password = try #require(before.first { $0.kind == .password }, "\(before)")
        #expect(!password.isDeletable && password.usage == [.primary])
        await #expect(throws: AuthError(.invalidRequest)) { try await hub.deleteMethod(id: password.id, provider: "auth0") }

        // TOTP: a wrong code is refused, the same challenge then confirms with the right one.
        let totp = try await hub.startMethodEnrollment(.totp, provider: "auth0")
        let codes = try Self.code(for: totp.prompt)
        await #expect(throws: AuthError(.invalidMFACode)) {
            try await hub.confirmMethodEnrollment(totp, response: .code(codes.wrong), provider: "auth0")
        }
        let added = try #require(try await hub.confirmMethodEnrollment(totp, response: .code(codes.right), provider: "auth0"))
        #expect(added.kind == .totp && added.usage == [.secondary] && added.isDeletable && added.createdAt != nil)

        // Email codes, from the tenant's outbox.
        let email = try await hub.startMethodEnrollment(.emailCode(email: "acct.work@example.com"), provider: "auth0")
        guard case .codeSent(let destination) = email.prompt else { Issue.record("no code sent: \(email.prompt)"); return }
        #expect(destination == "acct.work@example.com")
        let emailCode = try await auth0Code(emulator, to: "acct.work@example.com")
        let emailMethod = try #require(try await hub.confirmMethodEnrollment(email, response: .code(Secret(emailCode)), provider: "auth0"))
        #expect(emailMethod.kind == .emailCode && emailMethod.detail == "acct.work@example.com")

        // Recovery codes: shown once, acknowledged.
        let recovery = try await hub.startMethodEnrollment(.recoveryCodes, provider: "auth0")
        guard case .recoveryCodes(let shown) = recovery.prompt else { Issue.record("no recovery codes"); return }
        #expect(shown.count == 1 && shown[0].revealed().count >= 16)
        #expect(try await hub.confirmMethodEnrollment(recovery, response: .acknowledged, provider: "auth0")?.kind == .recoveryCode)

        // A passkey from the software authenticator.
        let passkey = try await hub.startMethodEnrollment(.passkey, provider: "auth0")
        guard case .passkey(let creation) = passkey.prompt else { Issue.record("no passkey options"); return }
        let registration = try await SoftwarePasskeyAuthenticator(store: InMemoryPasskeyCredentialStore()).makeCredential(creation)
        #expect(try await hub.confirmMethodEnrollment(passkey, response: .passkey(registration), provider: "auth0")?.kind == .passkey)

        let kinds = try await hub.accountMethods(provider: "auth0").map(\.kind)
        #expect(Set(kinds).isSuperset(of: [.password, .totp, .emailCode, .recoveryCode, .passkey]), "\(kinds)")
        try await hub.deleteMethod(id: added.id, provider: "auth0")
        #expect(try await hub.accountMethods(provider: "auth0").contains { $0.id == added.id } == false)
        await #expect(throws: AuthError(.invalidRequest)) { try await hub.deleteMethod(id: added.id, provider: "auth0") }
        // What Auth0 does not do here fails before any request.
        await #expect(throws: AuthError(.unsupported)) { try await hub.changePassword(new: Secret("another one"), provider: "auth0") }
    }

    @Test func firebaseTOTPPasswordAndProfileThroughTheHub() async throws {
        let emulator = try await Emulator.start()
        defer { Task { await emulator.stop() } }
        #expect(try await post(emulator, "/emulator/v1/projects/authhub-dev/accounts",
                               ["email": "fb@example.com", "password": .string(Self.password), "emailVerified": true]) == 200)
        let hub = try WrapperOwnershipTests.hub(emulator)
        _ = try await hub.signIn(.password(identifier: "fb@example.com", password: Secret(Self.password)), provider: "firebase")
        #expect(try await hub.accountMethods(provider: "firebase").map(\.kind) == [.password])

        let totp = try await hub.startMethodEnrollment(.totp, options: MethodEnrollmentOptions(issuer: "AuthHub Tests", name: "Phone"), provider: "firebase")
        guard case .totp(let uri, _) = totp.prompt else { Issue.record("no TOTP prompt"); return }
        #expect(uri.revealed().hasPrefix("otpauth://totp/AuthHub%20Tests:fb%40example.com?"))
        let codes = try Self.code(for: totp.prompt)
        await #expect(throws: AuthError(.invalidMFACode)) { try await hub.confirmMethodEnrollment(totp, response: .code(codes.wrong), provider: "firebase") }
        try await hub.confirmMethodEnrollment(totp, response: .code(codes.right), provider: "firebase")
        let methods = try await hub.accountMethods(provider: "firebase")
        let factor = try #require(methods.first { $0.kind == .totp }, "\(methods)")
        #expect(factor.name == "Phone" && factor.usage == [.secondary] && factor.isDeletable)
        // An Auth0 challenge means nothing to Firebase.
        let foreign = try MethodEnrollmentChallenge(kind: .totp, prompt: totp.prompt, state: ["methodID": "totp|x", "authSession": "s"])
        await #expect(throws: AuthError(.invalidRequest)) { try await hub.confirmMethodEnrollment(foreign, response: .code(codes.right), provider: "firebase") }
        try await hub.deleteMethod(id: factor.id, provider: "firebase")
        #expect(try await hub.accountMethods(provider: "firebase").map(\.kind) == [.password])

        #expect(try await hub.changeProfile(.name("Fran Bee"), provider: "firebase") == .changed)
        #expect(try await hub.userInfo(provider: "firebase").name == "Fran Bee")
        #expect(try await hub.changeProfile(.email("fran@example.com"), provider: "firebase") == .verificationSent(to: "fran@example.com"))
        await #expect(throws: AuthError(.invalidEmail)) { try await hub.changeProfile(.email("not an address"), provider: "firebase") }
        try await hub.changePassword(new: Secret("a brand new passphrase"), provider: "firebase")
        _ = try await hub.signOut(provider: "firebase")
        await #expect(throws: AuthError.self) {
            try await hub.signIn(.password(identifier: "fb@example.com", password: Secret(Self.password)), provider: "firebase")
        }
        _ = try await hub.signIn(.password(identifier: "fb@example.com", password: Secret("a brand new passphrase")), provider: "firebase")
    }

    /// Step-up with the password (Firebase's recent sign-in): a change the provider refuses on an old
    /// sign-in goes through once the current password signs the same user in again; another user's
    /// password is refused and the session kept.
    @Test func firebasePasswordChangeStepsUpWithTheCurrentPassword() async throws {
        let emulator = try await Emulator.start()
        defer { Task { await emulator.stop() } }
        let hub = try WrapperOwnershipTests.hub(emulator)
        _ = try await hub.signUp(.init(email: "step@example.com", password: Secret(Self.password)), provider: "firebase")
        _ = try await hub.signUp(.init(email: "other@example.com", password: Secret("another passphrase")), provider: "firebase", account: "other")
        let uid = try #require(try await hub.session(provider: "firebase").userID)
        #expect(try await post(emulator, "/emulator/v1/projects/authhub-dev/accounts/\(uid):requireRecentLogin", [:]) == 200)
        await #expect(throws: AuthError(.requiresRecentLogin), "no current password: the provider's answer") {
            try await hub.changePassword(new: Secret("a fresh passphrase"), provider: "firebase")
        }
        await #expect(throws: AuthError(.accessDenied), "someone else's credentials") {
            try await hub.reauthenticate(.password(identifier: "other@example.com", password: Secret("another passphrase")), provider: "firebase")
        }
        #expect(try await hub.session(provider: "firebase").userID == uid, "the session stays")
        await #expect(throws: AuthError(.invalidCredentials)) {
            try await hub.changePassword(current: Secret("not it"), new: Secret("a fresh passphrase"), provider: "firebase")
        }
        try await hub.changePassword(current: Secret(Self.password), new: Secret("a fresh passphrase"), provider: "firebase")
        _ = try await hub.signIn(.password(identifier: "step@example.com", password: Secret("a fresh passphrase")), provider: "firebase")
    }

    @Test func openfortLinkedAccountsAndEmailThroughTheHub() async throws {
        let emulator = try await Emulator.start()
        defer { Task { await emulator.stop() } }
        let hub = try WrapperOwnershipTests.hub(emulator)
        _ = try await hub.signUp(.init(email: "of@example.com", password: Secret(Self.password)), provider: "openfort")
        let methods = try await hub.accountMethods(provider: "openfort")
        let password = try #require(methods.first { $0.kind == .password }, "\(methods)")
        #expect(password.detail == "of@example.com")
        #expect(methods.count > 1 || !password.isDeletable, "the last way to sign in is not removable")
        if methods.count == 1 {
            await #expect(throws: AuthError(.invalidRequest)) { try await hub.deleteMethod(id: password.id, provider: "openfort") }
        }
        // Not verified yet: Openfort changes the address at once.
        #expect(try await hub.changeProfile(.email("of.new@example.com"), provider: "openfort") == .changed)
        #expect(try await hub.accountMethods(provider: "openfort").first { $0.kind == .password }?.detail == "of.new@example.com")
        await #expect(throws: AuthError.self) { try await hub.changeProfile(.email("of.new@example.com"), provider: "openfort") }
        await #expect(throws: AuthError(.unsupported)) { try await hub.startMethodEnrollment(.totp, provider: "openfort") }
        await #expect(throws: AuthError(.unsupported)) { try await hub.changeProfile(.name("X"), provider: "openfort") }
    }

    /// A verified Openfort address changes only once the link sent to the new one is followed.
    @Test func openfortVerifiedEmailChangesAfterTheLink() async throws {
        let emulator = try await Emulator.start()
        defer { Task { await emulator.stop() } }
        #expect(try await post(emulator, "/openfort/__emulator/users",
                               ["email": "ofv@example.com", "password": .string(Self.password), "emailVerified": true]) == 200)
        let hub = try WrapperOwnershipTests.hub(emulator)
        _ = try await hub.signIn(.password(identifier: "ofv@example.com", password: Secret(Self.password)), provider: "openfort")
        #expect(try await hub.changeProfile(.email("ofv.new@example.com"), provider: "openfort") == .verificationSent(to: "ofv.new@example.com"))
        #expect(try await hub.userInfo(provider: "openfort").email == "ofv@example.com", "unchanged until the link is followed")
        let tokens = try JSONValue.parse(try await wire.send(.get, emulator.url("/openfort/__emulator/tokens?email=ofv.new%40example.com")).body)
        let token = try #require(tokens["change_email_token"]?.stringValue)
        let followed = try await wire.send(.get, emulator.url("/openfort/iam/v2/auth/verify-email?token=\(token)"),
                                           headerFields: [HTTPField.Name("x-project-key")!: "pk_test_00000000-0000-4000-8000-000000000001"])
        #expect(followed.status == 200, "\(String(decoding: followed.body, as: UTF8.self))")
        #expect(try await hub.userInfo(provider: "openfort").email == "ofv.new@example.com")
    }

    /// Turnkey: the user's passkeys (`get_authenticators`), a second one enrolled through the hub
    /// on another (software) authenticator (`create_authenticators`, its registration verified by
    /// the emulator), which then signs in; one removed (`delete_authenticators`), and the last one
    /// kept: the hub refuses it before any request, and the emulator refuses it too when a caller
    /// asks anyway.
    @Test func turnkeyPasskeysThroughTheHub() async throws {
        let f = try await TurnkeyIntegrationTests.Fixture.start()
        defer { Task { await f.emulator.stop() } }
        let hub = try TurnkeyIntegrationTests.hub(f, store: InMemorySessionStore())
        _ = try await hub.signUpWithPasskey(email: "tess@example.com", displayName: "Tess", provider: "turnkey")
        #expect(try hub.accountCapabilities(provider: "turnkey") == [.listMethods, .enrollPasskey, .deleteMethod])

        let first = try await hub.accountMethods(provider: "turnkey")
        #expect(first.count == 1, "\(first)")
        let signUpPasskey = try #require(first.first)
        #expect(signUpPasskey.kind == .passkey && signUpPasskey.name == "AuthHub passkey" && signUpPasskey.usage == [.primary])
        #expect(signUpPasskey.detail == "internal", "the software authenticator's transport")
        #expect(!signUpPasskey.isDeletable, "the only passkey is the only way back in")
        let createdAt = try #require(signUpPasskey.createdAt)
        #expect(abs(createdAt.timeIntervalSinceNow) < 300)

        // A second passkey: creation options for the emulator's RP, the existing one excluded (the
        // authenticator that holds it refuses to make another).
        let challenge = try await hub.startMethodEnrollment(.passkey, options: MethodEnrollmentOptions(name: "Backup key"), provider: "turnkey")
        guard case .passkey(let creation) = challenge.prompt else { Issue.record("no passkey options: \(challenge.prompt)"); return }
        #expect(creation.relyingParty.id == "localhost" && creation.user.name == "tess@example.com" && creation.excludeCredentials.count == 1)
        await #expect(throws: AuthError(.passkeyExcluded)) { try await f.authenticator.makeCredential(creation) }
        let backup = try SoftwarePasskeyAuthenticator(store: InMemoryPasskeyCredentialStore())
        let registration = try await backup.makeCredential(creation)
        let added = try #require(try await hub.confirmMethodEnrollment(challenge, response: .passkey(registration), provider: "turnkey"))
        #expect(added.kind == .passkey && added.name == "Backup key")

        let two = try await hub.accountMethods(provider: "turnkey")
        #expect(Set(two.map(\.id)) == [signUpPasskey.id, added.id], "\(two)")
        #expect(two.allSatisfy { $0.isDeletable })
        #expect(two.first { $0.id == added.id }?.name == "Backup key")
        // The same passkey is not registered twice.
        await #expect(throws: AuthError.self) {
            try await hub.confirmMethodEnrollment(challenge, response: .passkey(registration), provider: "turnkey")
        }
        // The new passkey signs in (a passkey-stamped stamp_login the emulator verifies against it).
        let viaBackup = try await f.provider.signIn(email: "tess@example.com", authenticator: backup)
        #expect(viaBackup.userID == (try await hub.session(provider: "turnkey")).userID)

        // Remove it again; the sign-up passkey is the last and stays.
        try await hub.deleteMethod(id: added.id, provider: "turnkey")
        let one = try await hub.accountMethods(provider: "turnkey")
        #expect(one.map(\.id) == [signUpPasskey.id] && one[0].isDeletable == false)
        await #expect(throws: AuthError(.invalidRequest)) { try await hub.deleteMethod(id: signUpPasskey.id, provider: "turnkey") }
        await #expect(throws: AuthError(.invalidCredentials), "a removed passkey no longer signs in") {
            try await f.provider.signIn(email: "tess@example.com", authenticator: backup)
        }

        // A caller going around the hub with a method it marks removable: the emulator refuses
        // removing the last passkey (400, code 9), mapped to invalidRequest.
        let turnkey = try hub.provider("turnkey", as: TurnkeyProvider.self)
        let refused = await #expect(throws: AuthError(.invalidRequest)) {
            try await turnkey.deleteMethod(AccountMethod(id: signUpPasskey.id, kind: .passkey), manager: try hub.manager(provider: "turnkey"))
        }
        #expect(refused?.statusCode == 400 && refused?.providerCode == "9")
        #expect(try await hub.accountMethods(provider: "turnkey").map(\.id) == [signUpPasskey.id])
        await #expect(throws: AuthError(.unsupported)) { try await hub.startMethodEnrollment(.totp, provider: "turnkey") }

        // Step-up with the passkey: the same user signs in again (a new session key). (Another user's
        // sign-in refused: `firebasePasswordChangeStepsUpWithTheCurrentPassword`.)
        let before = try await hub.session(provider: "turnkey")
        let stepped = try await hub.reauthenticate(.passkey(identifier: "tess@example.com"), provider: "turnkey")
        #expect(stepped.userID == before.userID && stepped.accessToken != before.accessToken)
        #expect(try await hub.session(provider: "turnkey").accessToken == stepped.accessToken)
    }

    @Test func aSignedOutUserGetsNoSession() async throws {
        let emulator = try await Emulator.start()
        defer { Task { await emulator.stop() } }
        let hub = try WrapperOwnershipTests.hub(emulator)
        for provider in ["auth0", "firebase", "openfort"] {
            await #expect(throws: AuthError(.noSession), "\(provider)") { try await hub.accountMethods(provider: provider) }
        }
        await #expect(throws: AuthError(.invalidRequest)) { try await hub.startMethodEnrollment(.phoneCode(phoneNumber: "555"), provider: "auth0") }
        await #expect(throws: AuthError(.invalidEmail)) { try await hub.startMethodEnrollment(.emailCode(email: "@"), provider: "auth0") }
    }
}
