import AuthHub
import AuthHubEmulator
import AuthHubTurnkey
import Foundation

/// The Turnkey rows of `authhub demo`, through the libraries against the in-process emulator:
/// a user registered with a software passkey → email lookup through the proxy → passkey login
/// (`stamp_login` stamped with `X-Stamp-WebAuthn`, notarized session JWT checked) → `whoami`
/// stamped with the session key → renewal with a new session key → a read-write session whose
/// API key arrives HPKE-encrypted → sign-out.
enum DemoTurnkeyFlows {
    static func run(hub: AuthHub, emulator: RunningEmulator, authenticator: any PasskeyAuthenticator, transport: any HTTPTransport,
                    into report: inout DemoReport) async {
        guard let turnkey = try? hub.provider("turnkey", as: TurnkeyProvider.self) else { return }
        let email = "hedy+\(UUID().uuidString.prefix(8).lowercased())@example.com"
        var user: TurnkeyEmulatorUser?
        var session: Session?

        await report.record(provider: "turnkey", flow: "register a passkey user (emulator)") {
            user = try await emulator.registerTurnkeyUser(email: email, authenticator: authenticator, relyingPartyID: turnkey.configuration.rpId,
                                                          parentOrganizationId: turnkey.configuration.organizationId, transport: transport)
        }
        guard let user else { return }
        await report.record(provider: "turnkey", flow: "email lookup (proxy)") {
            guard try await turnkey.api.lookupSubOrganizations(email: email) == [user.organizationId] else {
                throw DemoFailure("the lookup names another sub-organization")
            }
            do {
                _ = try await turnkey.api.lookupSubOrganizations(email: "nobody@example.com")
                throw DemoFailure("an unknown email was found")
            } catch let error as AuthError where error.code == .userNotFound {}
        }
        await report.record(provider: "turnkey", flow: "passkey login, stamped whoami") {
            let signedIn = try await hub.signIn(.passkey(identifier: email), provider: "turnkey")
            guard signedIn.extras["organizationId"] == .string(user.organizationId) else { throw DemoFailure("the session names another organization") }
            let whoami = try await turnkey.whoami(signedIn)
            guard whoami.userId == user.userId else { throw DemoFailure("whoami names another user") }
            session = signedIn
        }
        guard let session else { return }
        await report.record(provider: "turnkey", flow: "refresh (new session key)") {
            let renewed = try await hub.refresh(provider: "turnkey")
            guard renewed.extras["sessionPublicKey"] != session.extras["sessionPublicKey"] else { throw DemoFailure("the session key did not change") }
            guard try await hub.userInfo(provider: "turnkey").id == user.userId else { throw DemoFailure("whoami names another user") }
        }
        await report.record(provider: "turnkey", flow: "read-write session (HPKE credential bundle)") {
            let current = try await hub.session(provider: "turnkey")
            let readWrite = try await turnkey.createReadWriteSession(current)
            let whoami = try await turnkey.api.whoami(organizationId: user.organizationId, stamper: readWrite.stamper)
            guard whoami.userId == user.userId else { throw DemoFailure("the decrypted key acts for another user") }
        }
        await report.record(provider: "turnkey", flow: "sign out") {
            if let failure = try await hub.signOut(provider: "turnkey") { throw failure }
            guard try await hub.manager(provider: "turnkey").current() == nil else { throw DemoFailure("the session is still stored") }
        }
        await report.record(provider: "turnkey", flow: "passkey sign-up (backend proxy), then login") {
            let newEmail = "new+" + email
            let created = try await hub.signUpWithPasskey(email: newEmail, provider: "turnkey", account: "signup")
            let organization = try created.extras["organizationId"]?.stringValue.orThrow("the session names no organization")
            guard try await turnkey.api.lookupSubOrganizations(email: newEmail) == [organization] else {
                throw DemoFailure("the lookup does not find the new sub-organization")
            }
            _ = try await hub.signOut(provider: "turnkey", account: "signup")
            let again = try await hub.signIn(.passkey(identifier: newEmail), provider: "turnkey", account: "signup")
            guard again.userID == created.userID else { throw DemoFailure("the new passkey signed in another user") }
        }
    }
}
