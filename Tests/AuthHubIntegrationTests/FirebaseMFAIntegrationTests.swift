import AuthHub
import AuthHubEmulator
import AuthHubFactors
import AuthHubFirebase
import AuthHubTesting
import Foundation
import Testing

/// Firebase second factors (TOTP) and recent-login, client against emulator over real HTTP.
@Suite struct FirebaseMFAIntegrationTests {
    typealias Project = FirebaseIntegrationTests.Project
    static let password = FirebaseIntegrationTests.password

    func post(_ project: Project, _ path: String, _ body: JSONValue = [:]) async throws -> HTTPReply {
        try await project.wire.send(.post, project.emulator.url(path), headerFields: [.contentType: "application/json"], body: try JSONEncoder().encode(body))
    }

    @Test func enrollTOTPSignOutAndFinishTheNextSignInWithACode() async throws {
        let project = try await Project.start()
        defer { Task { await project.emulator.stop() } }
        let seeded = try await post(project, "/emulator/v1/projects/authhub-dev/accounts",
                                    ["email": "tess@example.com", "password": .string(Self.password.revealed()), "emailVerified": true])
        #expect(seeded.status == 200)
        let auth = project.auth()
        let first = try await auth.signIn(email: "tess@example.com", password: Self.password)

        let challenge = try await auth.startTOTPEnrollment(issuer: "AuthHub Tests")
        #expect(challenge.uri.string.revealed().hasPrefix("otpauth://totp/AuthHub%20Tests:tess%40example.com?"))
        #expect(challenge.totp.digits == 6 && challenge.totp.period == 30 && challenge.totp.algorithm == .sha1)
        let current = try challenge.totp.code(at: project.clock.now)
        let wrongEnrollment = await #expect(throws: AuthError(.invalidMFACode)) {
            try await auth.finalizeTOTPEnrollment(challenge, code: current.revealed() == "000000" ? Secret("111111") : Secret("000000"))
        }
        #expect(wrongEnrollment?.providerCode == "INVALID_CODE")
        let enrolled = try await auth.finalizeTOTPEnrollment(challenge, code: current, displayName: "Phone")
        #expect(enrolled.userID == first.userID)
        let user = try #require(try await auth.currentUser())
        #expect(user.mfaEnrollments.map(\.factor) == ["totp"] && user.mfaEnrollments.first?.displayName == "Phone")
        try await auth.signOut()

        let required = await #expect(throws: AuthError(.mfaRequired)) { try await auth.signIn(email: "tess@example.com", password: Self.password) }
        let requirement = try #require(required?.mfa)
        #expect(requirement.challengeTypes == ["totp"])
        #expect(requirement.enrolledFactors.map(\.kind) == ["totp"] && requirement.enrolledFactors.first?.displayName == "Phone")
        #expect(try await auth.currentSession() == nil)

        // The enrollment code's time step is used: the next step's code (within the ±1 step window) signs in.
        let next = try challenge.totp.code(at: project.clock.now.addingTimeInterval(30))
        let wrong = next.revealed() == "000000" ? Secret("111111") : Secret("000000")
        let refused = await #expect(throws: AuthError(.invalidMFACode)) {
            try await auth.signIn(mfa: requirement, response: .otp(wrong))
        }
        #expect(refused?.providerCode == "INVALID_CODE" && refused?.details["iosCode"] == "17044")
        let replayed = await #expect(throws: AuthError(.invalidMFACode)) {
            try await auth.signIn(mfa: requirement, response: .otp(try challenge.totp.code(at: project.clock.now)))
        }
        #expect(replayed != nil, "the enrollment's code cannot be replayed")
        #expect(try await auth.currentSession() == nil)

        let session = try await auth.signIn(mfa: requirement, response: .otp(next))
        #expect(session.userID == first.userID)
        #expect(session.extras["firebase.sign_in_second_factor"] == "totp")
        #expect(session.claims["firebase"]?["second_factor_identifier"]?.stringValue == user.mfaEnrollments.first?.enrollmentID)
        #expect(try await auth.currentSession()?.accessToken == session.accessToken, "stored through the session manager")
        let used = await #expect(throws: AuthError(.sessionExpired)) {
            try await project.provider.signIn(.mfa(requirement: requirement, response: .otp(next)))
        }
        #expect(used?.providerCode == "INVALID_MFA_PENDING_CREDENTIAL")

        // Withdrawing the factor: password sign-in returns a session again.
        let withdrawal = try await auth.withdrawMFA(enrollmentID: try #require(user.mfaEnrollments.first?.enrollmentID))
        #expect(withdrawal.session?.userID == first.userID)
        #expect(try await auth.currentSession()?.accessToken == withdrawal.session?.accessToken, "the renewed session is stored")
        try await auth.signOut()
        #expect(try await auth.signIn(email: "tess@example.com", password: Self.password).userID == first.userID)
    }

    /// Identity Platform may answer `mfaEnrollment:withdraw` without tokens (the backend ended the
    /// session): the factor is gone, the withdrawal is not an error, and the user is signed out
    /// through the session manager (store emptied, `signedOut` published), as firebase-ios-sdk does.
    @Test func aWithdrawalAnsweredWithoutTokensSignsOutInsteadOfFailing() async throws {
        let project = try await Project.start()
        defer { Task { await project.emulator.stop() } }
        let seeded = try await post(project, "/emulator/v1/projects/authhub-dev/accounts",
                                    ["email": "wanda@example.com", "password": .string(Self.password.revealed()), "emailVerified": true])
        let uid = try #require(try JSONValue.parse(seeded.body)["localId"]?.stringValue)
        let store = InMemorySessionStore()
        let auth = project.auth(store)
        try await auth.signIn(email: "wanda@example.com", password: Self.password)
        let challenge = try await auth.startTOTPEnrollment()
        try await auth.finalizeTOTPEnrollment(challenge, code: try challenge.totp.code(at: project.clock.now))
        let enrollment = try #require(try await auth.currentUser()?.mfaEnrollments.first?.enrollmentID)
        let marked = try await post(project, "/emulator/v1/projects/authhub-dev/accounts/\(uid):endSessionsOnMFAWithdraw")
        let markedReply = try JSONValue.parse(marked.body)
        #expect(marked.status == 200 && markedReply["mfaWithdrawEndsSessions"] == true)

        let events = await auth.sessions.events()
        var iterator = events.makeAsyncIterator()
        guard case .initialSession(_, let initial)? = await iterator.next() else { Issue.record("no initial event"); return }
        #expect(initial?.userID == uid)

        let withdrawal = try await auth.withdrawMFA(enrollmentID: enrollment)
        #expect(withdrawal == .signedOut && withdrawal.session == nil)
        #expect(try await auth.currentSession() == nil, "the dead session is not kept")
        #expect(try await store.load(auth.key) == nil, "removed from the store")
        guard case .signedOut(let key)? = await iterator.next() else { Issue.record("no signedOut event"); return }
        #expect(key == auth.key)

        // The factor was removed: the next password sign-in gets a session, no second factor asked.
        let again = try await auth.signIn(email: "wanda@example.com", password: Self.password)
        #expect(again.userID == uid)
        #expect(try await auth.currentUser()?.mfaEnrollments.isEmpty == true)
    }

    /// Reauthenticating a user an admin disabled or deleted meanwhile signs the session out (as the
    /// JS SDK), still throwing the mapped error; a wrong password keeps it.
    @Test(arguments: [("disableUser", "USER_DISABLED", AuthErrorCode.accessDenied), ("delete", "EMAIL_NOT_FOUND", .userNotFound)])
    func reauthenticatingADisabledOrDeletedUserSignsOut(action: String, serverCode: String, expected: AuthErrorCode) async throws {
        let project = try await Project.start()
        defer { Task { await project.emulator.stop() } }
        let store = InMemorySessionStore()
        let auth = project.auth(store)
        let created = try await auth.signUp(email: "gone@example.com", password: Self.password)
        let uid = try #require(created.userID)
        await #expect(throws: AuthError(.invalidCredentials)) { try await auth.reauthenticate(password: Secret("not the password")) }
        #expect(try await auth.currentSession() != nil, "a wrong password keeps the session")

        let admin: HTTPFields = [.contentType: "application/json", .authorization: "Bearer owner"]
        let op = action == "delete" ? "delete" : "update"
        let body: JSONValue = action == "delete" ? ["localId": .string(uid)] : ["localId": .string(uid), "disableUser": true]
        let changed = try await project.wire.send(.post, project.emulator.url("/identitytoolkit.googleapis.com/v1/accounts:\(op)?key=admin"),
                                                  headerFields: admin, body: try JSONEncoder().encode(body))
        #expect(changed.status == 200)

        let error = await #expect(throws: AuthError.self) { try await auth.reauthenticate(password: Self.password) }
        #expect(error?.code == expected && error?.providerCode == serverCode)
        #expect(try await auth.currentSession() == nil, "signed out")
        #expect(try await store.load(auth.key) == nil, "removed from the store")
    }

    @Test func anOldSignInMustReauthenticateBeforeDeletingOrChangingThePassword() async throws {
        let project = try await Project.start()
        defer { Task { await project.emulator.stop() } }
        let auth = project.auth()
        let created = try await auth.signUp(email: "rita@example.com", password: Self.password)
        let uid = try #require(created.userID)
        let marked = try await post(project, "/emulator/v1/projects/authhub-dev/accounts/\(uid):requireRecentLogin")
        #expect(marked.status == 200)

        let delete = await #expect(throws: AuthError(.requiresRecentLogin)) { try await auth.deleteAccount() }
        #expect(delete?.providerCode == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN" && delete?.details["iosCode"] == "17014")
        let change = await #expect(throws: AuthError(.requiresRecentLogin)) { try await auth.updatePassword(Secret("a brand new password")) }
        #expect(change != nil)
        #expect(try await auth.currentSession()?.userID == uid, "the session is kept")

        await #expect(throws: AuthError(.invalidCredentials)) { try await auth.reauthenticate(password: Secret("not the password")) }
        let again = try await auth.reauthenticate(password: Self.password)
        #expect(again.userID == uid)
        #expect(try await auth.currentSession()?.accessToken == again.accessToken)
        try await auth.updatePassword(Secret("a brand new password"))
        try await auth.deleteAccount()
        #expect(try await auth.currentSession() == nil)
        await #expect(throws: AuthError.self) { try await auth.signIn(email: "rita@example.com", password: Secret("a brand new password")) }
    }

    @Test func aSignInOlderThanFiveMinutesIsRefusedUntilReauthenticated() async throws {
        let project = try await Project.start()
        defer { Task { await project.emulator.stop() } }
        // Client and emulator share the fake clock, so time can pass without waiting.
        let provider = FirebaseProvider(id: "firebase", configuration: project.provider.configuration,
                                        context: ProviderContext(transport: URLSessionTransport(defaultTimeout: .seconds(30)), clock: project.clock))
        let auth = FirebaseAuth(provider: provider, store: InMemorySessionStore(), clock: project.clock)
        let created = try await auth.signUp(email: "olga@example.com", password: Self.password)
        project.clock.advance(by: 301)

        let change = await #expect(throws: AuthError(.requiresRecentLogin)) { try await auth.updatePassword(Secret("a newer password")) }
        #expect(change?.providerCode == "CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
        let email = await #expect(throws: AuthError(.requiresRecentLogin)) { try await auth.updateEmail("olga.new@example.com") }
        #expect(email != nil)
        await #expect(throws: AuthError(.requiresRecentLogin)) { try await auth.deleteAccount() }
        try await auth.updateProfile(displayName: .set("Olga"))   // not sensitive

        try await auth.reauthenticate(password: Self.password)
        let changed = try await auth.updatePassword(Secret("a newer password"))
        #expect(changed.userID == created.userID)
        project.clock.advance(by: 200)
        try await auth.deleteAccount()
        #expect(try await auth.currentSession() == nil)
    }
}
