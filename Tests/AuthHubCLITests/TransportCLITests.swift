import AuthHub
import AuthHubEmulator
import Foundation
import Testing

/// `"transport"` in providers.json as the CLI sees it: validated by `authhub validate`, and
/// `async-http-client` used by `authhub login` (the CLI registers AuthHubAsyncHTTPClient's factory).
@Suite struct TransportCLITests {
    static func config(transport: String, domain: String) -> String {
        """
        {"defaultEnvironment": "dev", "environments": {"dev": {"transport": "\(transport)",
          "sessionStore": {"type": "file", "path": "sessions"},
          "providers": [{"id": "auth0", "type": "auth0", "domain": "\(domain)", "clientId": "authhub-cli",
                         "connection": "Username-Password-Authentication"}]}}}
        """
    }

    @Test func validateReportsAnUnknownTransportAtItsPath() async throws {
        let directory = try AuthHubBinary.directory(withConfig: Self.config(transport: "curl", domain: "tenant.example.com"))
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await AuthHubBinary.runDetached(["validate"], in: directory)
        #expect(result.status == 1)
        #expect(result.stderr == """
            environments.dev.transport: unknown transport 'curl' (known: async-http-client, urlsession)
            error: providers.json: 1 problem found

            """)
        let good = try AuthHubBinary.directory(withConfig: Self.config(transport: "async-http-client", domain: "tenant.example.com"))
        defer { try? FileManager.default.removeItem(at: good) }
        let ok = try await AuthHubBinary.runDetached(["validate"], in: good)
        #expect(ok.status == 0, "\(ok.stderr)")
    }

    @Test func loginSessionAndLogoutThroughAsyncHTTPClient() async throws {
        let emulator = try await Emulator.start()
        defer { Task { await emulator.stop() } }
        let directory = try AuthHubBinary.directory(withConfig: Self.config(transport: "async-http-client",
                                                                            domain: emulator.url("/auth0").absoluteString))
        defer { try? FileManager.default.removeItem(at: directory) }
        let wire = URLSessionTransport(defaultTimeout: .seconds(30))
        let seeded = try await wire.send(.post, emulator.url("/auth0/__emulator/users"), headerFields: [.contentType: "application/json"],
                                         body: Data(#"{"email":"nio@example.com","password":"correct horse battery staple"}"#.utf8))
        #expect(seeded.status == 201)

        let debug = ["AUTHHUB_LOG_LEVEL": "debug"]
        let login = try await AuthHubBinary.runDetached(["login", "--email", "nio@example.com", "--password-stdin"], in: directory,
                                                        environment: debug, stdin: "correct horse battery staple\n")
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stdout.contains("Signed in.") && login.stdout.contains("nio@example.com"))
        #expect(login.stderr.contains("transport=async-http-client"), "\(login.stderr)")
        #expect(!login.stderr.contains("correct horse"))

        let refresh = try await AuthHubBinary.runDetached(["refresh"], in: directory)
        #expect(refresh.status == 0 && refresh.stdout.contains("Session renewed."), "\(refresh.stderr)")
        let logout = try await AuthHubBinary.runDetached(["logout"], in: directory)
        #expect(logout.status == 0, "\(logout.stderr)")
    }
}
