import AuthHub
import AuthHubEmulator
import AuthHubOpenfort
import Foundation

/// The Openfort rows of `authhub demo`: guest → sign up (the guest upgraded) → sign in → me →
/// sign out, through the libraries, against the in-process emulator's Openfort routes.
enum DemoOpenfortFlows {
    static func run(hub: AuthHub, emulator: RunningEmulator, transport: any HTTPTransport, into report: inout DemoReport) async {
        guard let openfort = try? hub.provider("openfort", as: OpenfortProvider.self) else { return }
        let auth = OpenfortAuth(provider: openfort, store: hub.store, account: "openfort-demo")
        let email = "ola+\(UUID().uuidString.prefix(8).lowercased())@example.com"
        let password = Secret("demo: openfort password")
        var guestID: String?

        await report.record(provider: "openfort", flow: "guest sign-in") {
            let guest = try await auth.signInAsGuest()
            guard try await auth.currentUser().isAnonymous else { throw DemoFailure("the guest is not anonymous") }
            guestID = guest.userID
        }
        await report.record(provider: "openfort", flow: "sign-up (guest upgraded), sign-out, sign-in") {
            guard case .signedIn(let upgraded) = try await auth.signUp(email: email, password: password) else {
                throw DemoFailure("sign-up asked for verification")
            }
            guard upgraded.userID == guestID else { throw DemoFailure("the guest was not upgraded in place") }
            try await auth.signOut()
            let signedIn = try await auth.signIn(email: email, password: password)
            guard signedIn.userID == guestID else { throw DemoFailure("the sign-in names another user") }
        }
        await report.record(provider: "openfort", flow: "me, get-session") {
            guard try await auth.currentUser().email == email else { throw DemoFailure("/iam/v2/me names another user") }
            _ = try await auth.validateSession()
        }
        await report.record(provider: "openfort", flow: "sign out") {
            let session = try await auth.currentSession().orThrow("no session")
            try await auth.signOut()
            let stale = OpenfortAuth(provider: openfort, store: InMemorySessionStore())
            _ = try await stale.storeCredentials(token: session.accessToken, userID: session.userID)
            do {
                _ = try await stale.validateSession()
                throw DemoFailure("the signed-out session is still valid at the server")
            } catch let error as AuthError where error.code == .refreshTokenInvalid || error.code == .sessionExpired {}
        }
    }
}
