import AuthHub
import AuthHubEmulator
import AuthHubFirebase
import AuthHubTesting
import Foundation
import Testing

/// The Firebase client (AuthHubFirebase) against the emulator's independent reading of the same
/// spec, over real HTTP on loopback, in the Auth emulator URL form (`emulatorHost`).
@Suite struct FirebaseIntegrationTests {
    static let password = Secret("correct horse battery")

    struct Project {
        let emulator: RunningEmulator
        let provider: FirebaseProvider
        /// The emulator's clock (starting now), so a test can let time pass without waiting.
        let clock: FakeClock
        let wire = URLSessionTransport(defaultTimeout: .seconds(30), followRedirects: false)

        static func start(tenant: String? = nil) async throws -> Project {
            let clock = FakeClock(now: Date(), mode: .manual)
            let emulator = try await Emulator.start(EmulatorConfiguration(clock: clock))
            let configuration = FirebaseConfiguration(apiKey: Secret("any-key"), projectId: "authhub-dev",
                                                      emulatorHost: "\(emulator.host):\(emulator.port)", tenantId: tenant)
            let provider = FirebaseProvider(id: "firebase", configuration: configuration,
                                            context: ProviderContext(transport: URLSessionTransport(defaultTimeout: .seconds(30))))
            return Project(emulator: emulator, provider: provider, clock: clock)
        }

        func auth(_ store: any SessionStore = InMemorySessionStore()) -> FirebaseAuth { FirebaseAuth(provider: provider, store: store) }

        /// The newest out-of-band code the emulator "sent" to `email` for `requestType`.
        func oobCode(_ email: String, _ requestType: String) async throws -> Secret<String> {
            let reply = try await wire.send(.get, emulator.url("/emulator/v1/projects/authhub-dev/oobCodes"))
            let codes = try JSONValue.parse(reply.body)["oobCodes"]?.arrayValue ?? []
            let code = codes.last { $0["email"]?.stringValue == email && $0["requestType"]?.stringValue == requestType }
            return Secret(try #require(code?["oobCode"]?.stringValue, "no \(requestType) code for \(email)"))
        }
    }

    @Test func signUpSignInCurrentUserRefreshAndAuthStateEventsInOrder() async throws {
        let project = try await Project.start()
        defer { Task { await project.emulator.stop() } }
        let auth = project.auth()
        let states = await auth.authStateChanges()
        let created = try await auth.signUp(email: "Ada@Example.com", password: Self.password, displayName: "Ada")
        #expect(created.claims["email"] == "ada@example.com" && created.userID?.isEmpty == false)
        #expect(created.claims["iss"] == "https://securetoken.google.com/authhub-dev")

        let user = try #require(try await auth.currentUser())
        #expect(user.email == "ada@example.com" && user.displayName == "Ada")

        let signedIn = try await auth.signIn(email: "ada@example.com", password: Self.password)
        #expect(signedIn.userID == created.userID)
        let forced = try await auth.idToken(forceRefresh: true)
        #expect(try await auth.currentSession()?.accessToken == forced, "the refreshed token is stored")
        try await auth.signOut()
        #expect(try await auth.currentSession() == nil)

        var changes: [FirebaseAuthState.Change] = []
        for await state in states {
            changes.append(state.change)
            if changes.count == 5 { break }
        }
        #expect(changes == [.initial, .signedIn, .signedIn, .tokenRefreshed, .signedOut])

        let wrong = await #expect(throws: AuthError.self) {
            try await auth.signIn(email: "ada@example.com", password: Secret("not the password"))
        }
        #expect(wrong?.code == .invalidCredentials && wrong?.providerCode == "INVALID_PASSWORD")
        let taken = await #expect(throws: AuthError.self) { try await auth.signUp(email: "ada@example.com", password: Self.password) }
        #expect(taken?.code == .emailAlreadyInUse && taken?.providerCode == "EMAIL_EXISTS")
        let weak = await #expect(throws: AuthError.self) { try await auth.signUp(email: "bo@example.com", password: Secret("12345")) }
        #expect(weak?.code == .weakPassword && weak?.message.contains("6 characters") == true)
    }

    /// With a tenant configured, every call the Firebase SDKs send `tenantId` on carries it: the
    /// emulator's project has tenants and answers `TENANT_ID_MISMATCH` to a call for a tenant's
    /// account that names no tenant — so each step below fails if the client leaves it out.
    @Test func everyCallOfATenantsAccountCarriesTheTenant() async throws {
        let project = try await Project.start(tenant: "tenant-a")
        defer { Task { await project.emulator.stop() } }
        let patched = try await project.wire.send(.patch, project.emulator.url("/emulator/v1/projects/authhub-dev/config"), headerFields: [.contentType: "application/json"], body: Data(#"{"tenants":["tenant-a"]}"#.utf8))
        #expect(patched.status == 200)
        let provider = project.provider
        let auth = project.auth()
        let created = try await auth.signUp(email: "ten@example.com", password: Self.password)
        #expect(created.claims["firebase"]?["tenant"] == "tenant-a")
        #expect(try await auth.currentUser()?.tenantID == "tenant-a")

        try await auth.sendEmailVerification()                                   // sendOobCode VERIFY_EMAIL
        let verified = try await provider.applyActionCode(try await project.oobCode("ten@example.com", "VERIFY_EMAIL"))  // update {oobCode}
        #expect(verified.emailVerified == true)
        try await auth.updateProfile(displayName: .set("Ten"))                   // update {idToken} profile
        _ = try await auth.updatePassword(Secret("another horse battery"))        // update {idToken, password}
        _ = try await auth.updateEmail("ten2@example.com")                        // update {idToken, email}
        let session = try #require(try await auth.currentSession())
        try await provider.api.sendVerifyAndChangeEmail(idToken: session.accessToken, newEmail: "ten3@example.com")
        try await auth.verifyBeforeUpdateEmail("ten4@example.com")               // sendOobCode VERIFY_AND_CHANGE_EMAIL (app-facing)
        _ = try await project.oobCode("ten4@example.com", "VERIFY_AND_CHANGE_EMAIL")   // the link went to the new address
        try await auth.sendPasswordReset(email: "ten2@example.com")              // sendOobCode PASSWORD_RESET
        let reset = try await project.oobCode("ten2@example.com", "PASSWORD_RESET")
        #expect(try await provider.verifyPasswordResetCode(reset) == "ten2@example.com")  // resetPassword {oobCode}
        _ = try await provider.confirmPasswordReset(code: reset, newPassword: Self.password)
        let again = try await auth.signIn(email: "ten2@example.com", password: Self.password)
        #expect(again.claims["name"] == "Ten")

        // The same account through a client without the tenant: refused, not served from the wrong pool.
        let untenanted = FirebaseProvider(id: "firebase", configuration: FirebaseConfiguration(
            apiKey: Secret("any-key"), projectId: "authhub-dev", emulatorHost: "\(project.emulator.host):\(project.emulator.port)"),
            context: ProviderContext(transport: URLSessionTransport(defaultTimeout: .seconds(30))))
        let mismatch = await #expect(throws: AuthError.self) { try await untenanted.sendEmailVerification(again) }
        #expect(mismatch?.code == .invalidConfiguration && mismatch?.providerCode == "TENANT_ID_MISMATCH")
        let otherPool = await #expect(throws: AuthError.self) {
            try await untenanted.signIn(.password(identifier: "ten2@example.com", password: Self.password))
        }
        #expect(otherPool?.providerCode == "EMAIL_NOT_FOUND", "the project's own accounts are another pool")
    }

    @Test func passwordResetWithACodeFromTheEmulatorEndsOldSessions() async throws {
        let project = try await Project.start()
        defer { Task { await project.emulator.stop() } }
        let auth = project.auth()
        try await auth.signUp(email: "cy@example.com", password: Self.password)
        try await auth.sendPasswordReset(email: "cy@example.com")
        let code = try await project.oobCode("cy@example.com", "PASSWORD_RESET")
        #expect(try await project.provider.verifyPasswordResetCode(code) == "cy@example.com")
        // The emulator counts validSince in whole seconds: let the second of the old tokens pass.
        project.clock.advance(by: 2)
        _ = try await project.provider.confirmPasswordReset(code: code, newPassword: Secret("a brand new password"))
        let reused = await #expect(throws: AuthError.self) {
            try await project.provider.confirmPasswordReset(code: code, newPassword: Secret("another password"))
        }
        #expect(reused?.code == .invalidActionCode)

        // The old refresh token is dead and the session ends, as the iOS SDK does.
        await #expect(throws: AuthError.self) { try await auth.idToken(forceRefresh: true) }
        #expect(try await auth.currentSession() == nil)
        let again = try await auth.signIn(email: "cy@example.com", password: Secret("a brand new password"))
        #expect(again.claims["email"] == "cy@example.com")
    }

    @Test func emailVerificationProfileAndDeleteAccount() async throws {
        let project = try await Project.start()
        defer { Task { await project.emulator.stop() } }
        let auth = project.auth()
        try await auth.signUp(email: "dee@example.com", password: Self.password)
        try await auth.sendEmailVerification()
        _ = try await project.provider.applyActionCode(try await project.oobCode("dee@example.com", "VERIFY_EMAIL"))
        #expect(try await auth.currentUser()?.emailVerified == true)

        try await auth.updateProfile(displayName: .set("Dee"))
        #expect(try await auth.currentUser()?.displayName == "Dee")
        try await auth.deleteAccount()
        #expect(try await auth.currentSession() == nil)
        let gone = await #expect(throws: AuthError.self) { try await auth.signIn(email: "dee@example.com", password: Self.password) }
        #expect(gone?.code == .userNotFound)
    }

    /// Seeds an account through the emulator's (non-Firebase) seeding hook.
    func seed(_ project: Project, _ body: JSONValue) async throws {
        let reply = try await project.wire.send(.post, project.emulator.url("/emulator/v1/projects/authhub-dev/accounts"), headerFields: [.contentType: "application/json"], body: try JSONEncoder().encode(body))
        #expect((200...299).contains(reply.status), "\(String(decoding: reply.body, as: UTF8.self))")
    }

    @Test func passwordAndEmailChangesReturnNewTokensAndEndOtherSessions() async throws {
        let project = try await Project.start()
        defer { Task { await project.emulator.stop() } }
        let auth = project.auth()
        let laptop = project.auth()   // the same user signed in elsewhere
        try await auth.signUp(email: "eli@example.com", password: Self.password)
        try await laptop.signIn(email: "eli@example.com", password: Self.password)
        project.clock.advance(by: 2)
        let changed = try await auth.updatePassword(Secret("a changed password"))
        #expect(changed.claims["email"] == "eli@example.com")
        let moved = try await auth.updateEmail("eli.new@example.com")
        #expect(moved.claims["email"] == "eli.new@example.com")
        #expect(try await auth.currentUser()?.email == "eli.new@example.com")
        // The other session's refresh token predates the change: refreshing it ends that session.
        await #expect(throws: AuthError.self) { try await laptop.idToken(forceRefresh: true) }
        #expect(try await laptop.currentSession() == nil)
        try await auth.signIn(email: "eli.new@example.com", password: Secret("a changed password"))
    }

    @Test func secondFactorUsersGetMFARequiredAndDisabledUsersAreRefused() async throws {
        let project = try await Project.start()
        defer { Task { await project.emulator.stop() } }
        try await seed(project, ["email": "mo@example.com", "password": .string(Self.password.revealed()),
                                 "mfaInfo": [["mfaEnrollmentId": "enr-1", "displayName": "phone", "phoneInfo": "+15555550123"]]])
        let mfa = await #expect(throws: AuthError.self) {
            try await project.provider.signIn(.password(identifier: "mo@example.com", password: Self.password))
        }
        #expect(mfa?.code == .mfaRequired && mfa?.mfa?.token.revealed().isEmpty == false)

        try await seed(project, ["email": "dis@example.com", "password": .string(Self.password.revealed()), "disabled": true])
        let disabled = await #expect(throws: AuthError.self) {
            try await project.provider.signIn(.password(identifier: "dis@example.com", password: Self.password))
        }
        #expect(disabled?.providerCode == "USER_DISABLED")

        // A user disabled by an admin while signed in: the next refresh ends the session.
        let auth = project.auth()
        let session = try await auth.signUp(email: "ned@example.com", password: Self.password)
        let update = try await project.wire.send(.post, project.emulator.url("/identitytoolkit.googleapis.com/v1/accounts:update?key=admin"), headerFields: [.contentType: "application/json", .authorization: "Bearer owner"], body: try JSONEncoder().encode(JSONValue.object(["localId": .string(try #require(session.userID)), "disableUser": true])))
        #expect(update.status == 200, "\(String(decoding: update.body, as: UTF8.self))")
        let ended = await #expect(throws: AuthError.self) { try await auth.idToken(forceRefresh: true) }
        #expect(ended?.providerCode == "USER_DISABLED")
        #expect(try await auth.currentSession() == nil)
    }
}
