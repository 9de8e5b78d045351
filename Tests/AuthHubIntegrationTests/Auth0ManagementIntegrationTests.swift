import AuthHub
import AuthHubAuth0
import AuthHubEmulator
import AuthHubTesting
import Foundation
import Testing

/// Management API users (spec §7) end to end: the client against the emulator over HTTP, with a
/// user-scoped token exchanged by the credentials manager for the `…/api/v2/` audience.
@Suite struct Auth0ManagementIntegrationTests {
    typealias Tenant = Auth0IntegrationTests.Tenant

    @Test func getPatchMetadataLinkAndUnlink() async throws {
        let tenant = try await Tenant.start()
        defer { Task { await tenant.emulator.stop() } }
        try await tenant.seed("lin@example.com")
        let credentials = Auth0CredentialsManager(provider: tenant.provider, store: InMemorySessionStore())
        let session = try await credentials.store(try await tenant.signIn("lin@example.com"))
        let userID = try #require(session.userID)
        let management = tenant.provider.management(credentials: credentials)

        let partial = try await management.user(id: userID, fields: ["user_id", "email"])
        #expect(partial.userID == userID && partial.email == "lin@example.com" && partial.name == nil)
        let full = try await management.user(id: userID)
        #expect(full.identities.map(\.provider) == ["auth0"] && full.name != nil)

        let first = try await management.updateUserMetadata(id: userID, ["theme": "dark", "lang": "fr"])
        #expect(first.userMetadata == ["theme": "dark", "lang": "fr"])
        let merged = try await management.updateUserMetadata(id: userID, ["theme": .null, "lang": "en"])
        #expect(merged.userMetadata == ["lang": "en"])

        // Link the account a user signed in to with Apple: its ID token is the `link_with` proof.
        let apple = try await tenant.provider.authentication.loginWithApple(authorizationCode: Secret("emulator:lin.apple@example.com"))
        let linked = try await management.link(userID: userID, withToken: apple.idToken)
        let appleIdentity = try #require(linked.first { $0.provider == "apple" })
        #expect(linked.count == 2)
        #expect(try await management.user(id: userID).identities.count == 2)
        let remaining = try await management.unlink(userID: userID, provider: "apple", secondaryUserID: appleIdentity.userID)
        #expect(remaining.map(\.provider) == ["auth0"])

        // A forged link token is refused with the Management error body mapped.
        let forged = await #expect(throws: AuthError.self) { try await management.link(userID: userID, withToken: Secret("a.b.c")) }
        #expect(forged?.code == .invalidRequest && forged?.providerCode == "invalid_body" && forged?.statusCode == 400)
        // A user-scoped token reaches only its own user.
        try await tenant.seed("other@example.com")
        let other = try #require(try await tenant.signIn("other@example.com").userID)
        let refused = await #expect(throws: AuthError.self) { try await management.user(id: other) }
        #expect(refused?.statusCode == 403 && refused?.message.isEmpty == false)
    }
}
