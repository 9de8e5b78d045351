import AuthHub
import AuthHubEmulator
import AuthHubFactors
import AuthHubFirebase
import Foundation

/// The Firebase rows of `authhub demo`: sign up → sign in → refresh → reset → TOTP → the account API → delete, through the
/// libraries, against the in-process emulator's Firebase routes. The demo reads the reset code
/// from the emulator's `oobCodes` helper, as a user would click the link in the email.
enum DemoFirebaseFlows {
    static func run(hub: AuthHub, emulator: RunningEmulator, transport: any HTTPTransport, into report: inout DemoReport) async {
        guard let firebase = try? hub.provider("firebase", as: FirebaseProvider.self) else { return }
        let auth = FirebaseAuth(provider: firebase, store: hub.store, account: "firebase-demo")
        let email = "fay+\(UUID().uuidString.prefix(8).lowercased())@example.com"
        let password = Secret("demo: firebase password")
        let newPassword = Secret("demo: a new firebase password")

        await report.record(provider: "firebase", flow: "sign-up, then password sign-in") {
            let created = try await auth.signUp(email: email, password: password)
            let signedIn = try await auth.signIn(email: email, password: password)
            guard signedIn.userID == created.userID, signedIn.claims["email"] == .string(email) else {
                throw DemoFailure("the ID token names another user")
            }
        }
        await report.record(provider: "firebase", flow: "token refresh (Secure Token), current user") {
            let before = try await auth.currentSession().orThrow("no session after sign-in")
            let token = try await auth.idToken(forceRefresh: true)
            let after = try await auth.currentSession().orThrow("the refresh lost the session")
            guard after.accessToken == token, after.version > before.version else { throw DemoFailure("the refreshed token was not stored") }
            guard try await auth.currentUser()?.email == email else { throw DemoFailure("accounts:lookup names another user") }
        }
        await report.record(provider: "firebase", flow: "password reset (code from the emulator)") {
            try await auth.sendPasswordReset(email: email)
            let code = try await oobCode(for: email, emulator: emulator, transport: transport)
            guard try await firebase.verifyPasswordResetCode(code) == email else { throw DemoFailure("the code names another email") }
            _ = try await firebase.confirmPasswordReset(code: code, newPassword: newPassword)
            try await auth.signIn(email: email, password: newPassword)
        }
        await report.record(provider: "firebase", flow: "TOTP second factor: enroll, then MFA sign-in") {
            let mfaEmail = "mfa+" + email
            let mfaAuth = FirebaseAuth(provider: firebase, store: hub.store, account: "firebase-mfa")
            // A verified address first: Firebase enrolls second factors only for those.
            let seeded = try await transport.send(.post, emulator.url("/emulator/v1/projects/authhub-dev/accounts"), headerFields: [.contentType: "application/json"], body: try JSONEncoder().encode(JSONValue.object(["email": .string(mfaEmail), "password": .string(password.revealed()),
                                                                 "emailVerified": true])))
            guard seeded.status == 200 else { throw DemoFailure("seeding a verified user answered HTTP \(seeded.status)") }
            try await mfaAuth.signIn(email: mfaEmail, password: password)
            let challenge = try await mfaAuth.startTOTPEnrollment()
            try await mfaAuth.finalizeTOTPEnrollment(challenge, code: try challenge.totp.code(at: Date()))
            try await mfaAuth.signOut()
            do {
                _ = try await hub.signIn(.password(identifier: mfaEmail, password: password), provider: "firebase", account: "firebase-mfa")
                throw DemoFailure("no second factor was asked for")
            } catch let error as AuthError where error.code == .mfaRequired {
                // The next 30-second step's code: the enrollment's own step is not accepted twice.
                let code = try challenge.totp.code(at: Date().addingTimeInterval(30))
                let requirement = try error.mfa.orThrow("mfaRequired without a pending credential")
                let session = try await hub.signIn(.mfa(requirement: requirement, response: .otp(code)), provider: "firebase",
                                                   account: "firebase-mfa")
                guard session.claims["email"] == .string(mfaEmail) else { throw DemoFailure("the ID token names another user") }
            }
        }
        await report.record(provider: "firebase", flow: "account API: methods, name, remove the TOTP factor") {
            let mfaEmail = "mfa+" + email
            let methods = try await hub.accountMethods(provider: "firebase", account: "firebase-mfa")
            guard methods.contains(where: { $0.kind == .password }), let totp = methods.first(where: { $0.kind == .totp }) else {
                throw DemoFailure("the methods are \(methods.map(\.kind.rawValue))")
            }
            try await hub.changeProfile(.name("Fay Demo"), provider: "firebase", account: "firebase-mfa")
            guard try await hub.userInfo(provider: "firebase", account: "firebase-mfa").name == "Fay Demo" else { throw DemoFailure("the name did not change") }
            try await hub.deleteMethod(id: totp.id, provider: "firebase", account: "firebase-mfa")
            // Without the factor, the password alone signs in again.
            _ = try await hub.signIn(.password(identifier: mfaEmail, password: password), provider: "firebase", account: "firebase-mfa")
        }
        await report.record(provider: "firebase", flow: "delete account") {
            try await auth.deleteAccount()
            do {
                try await auth.signIn(email: email, password: newPassword)
                throw DemoFailure("the deleted user still signs in")
            } catch let error as AuthError where error.code == .userNotFound {}
        }
    }

    /// The newest `PASSWORD_RESET` code the emulator "sent" to `email`.
    static func oobCode(for email: String, emulator: RunningEmulator, transport: any HTTPTransport) async throws -> Secret<String> {
        let list = try await DemoCommand.getJSON(emulator.url("/emulator/v1/projects/authhub-dev/oobCodes"), transport: transport)
        let entry = list["oobCodes"]?.arrayValue?.last { $0["email"]?.stringValue == email && $0["requestType"] == "PASSWORD_RESET" }
        return Secret(try (entry?["oobCode"]?.stringValue).orThrow("no reset code was sent"))
    }
}
