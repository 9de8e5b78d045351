import Foundation
import Testing

@Suite struct ProvidersCommandTests {
    static var config: String { AuthHubBinary.packageRoot.appendingPathComponent("providers.json").path }

    @Test func listsTheFiveBuiltInProviders() async throws {
        let result = try await AuthHubBinary.runDetached(["providers", "--config", Self.config])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "Environment 'development' (\(Self.config))")
        #expect(lines.dropFirst().first?.split(separator: " ", omittingEmptySubsequences: true) == ["ID", "TYPE", "DEFAULT", "CAPABILITIES"])
        let rows = lines.dropFirst(2).map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) }
        #expect(rows.map { $0[0] } == ["auth0", "firebase", "openfort", "turnkey", "oidc"])
        #expect(rows.map { $0[1] } == ["auth0", "firebase", "openfort", "turnkey", "oidc"])
        #expect(Array(rows[0].prefix(3)) == ["auth0", "auth0", "*"], "the default is marked")
        #expect(rows[0].dropFirst(3).joined(separator: " ").contains("passwordSignIn"), "auth0 lists its capabilities")
        #expect(rows[1].dropFirst(2).joined(separator: " ").contains("passwordSignIn"), "firebase lists its capabilities")
        #expect(rows[2].dropFirst(2).joined(separator: " ").contains("passwordSignIn"), "openfort lists its capabilities")
        #expect(rows[3].dropFirst(2).joined(separator: " ") == "passkey, passkeySignUp, refresh, userInfo", "turnkey lists its capabilities")
        #expect(!result.stdout.contains("dev-key"), "secret values are never printed")
    }

    @Test func jsonListing() async throws {
        let result = try await AuthHubBinary.runDetached(["providers", "--config", Self.config, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["environment"] as? String == "development")
        #expect(object["defaultProvider"] as? String == "auth0")
        let providers = try #require(object["providers"] as? [[String: Any]])
        #expect(providers.map { $0["type"] as? String } == ["auth0", "firebase", "openfort", "turnkey", "oidc"])
        #expect(providers.map { $0["default"] as? Bool } == [true, false, false, false, false])
        #expect(Set(try #require(providers[1]["capabilities"] as? [String])).isSuperset(of: ["passwordSignIn", "signUp", "refresh"]))
        #expect(Set(try #require(providers[2]["capabilities"] as? [String])).isSuperset(of: ["passwordSignIn", "signUp", "guest", "emailCode", "idToken"]))
        #expect(providers[3]["capabilities"] as? [String] == ["passkey", "passkeySignUp", "refresh", "userInfo"])
        #expect(providers.last?["capabilities"] as? [String] == ["deviceSignIn", "refresh", "webAuth"])
        let auth0 = try #require(providers.first?["capabilities"] as? [String])
        #expect(Set(auth0).isSuperset(of: ["passwordSignIn", "signUp", "passwordReset", "emailCode", "refresh", "mfa", "deviceSignIn"]))
    }

    @Test func invalidConfigurationFailsWithOneLine() async throws {
        let directory = try AuthHubBinary.directory(withConfig: ValidateCommandTests.bad)
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await AuthHubBinary.runDetached(["providers"], in: directory)
        #expect(result.status == 1)
        #expect(result.stderr == "error: providers.json: 5 problems; run `authhub validate` to list them\n")
        let missing = try await AuthHubBinary.runDetached(["providers", "--config", "/nonexistent/p.json"])
        #expect(missing.status == 1)
        #expect(missing.stderr == "error: /nonexistent/p.json: file not found\n")
    }
}

@Suite struct SchemaCommandTests {
    @Test func printsTheCommittedSchema() async throws {
        let result = try await AuthHubBinary.runDetached(["schema"])
        #expect(result.status == 0, "\(result.stderr)")
        let committed = try String(contentsOf: AuthHubBinary.packageRoot.appendingPathComponent("providers.schema.json"), encoding: .utf8)
        #expect(result.stdout == committed)
        // The CLI registers AuthHubPostgres's store factory, so the schema describes its fields.
        #expect(result.stdout.contains(#""const" : "postgres""#))
        #expect(result.stdout.contains(#""default" : "authhub_sessions""#))
    }

    /// `--markdown` prints the core article (no store factory's fields); `--markdown --store postgres`
    /// the committed article of AuthHubPostgres's catalog.
    @Test func printsTheCommittedArticles() async throws {
        let core = try await AuthHubBinary.runDetached(["schema", "--markdown"])
        #expect(core.status == 0, "\(core.stderr)")
        let committedCore = try String(contentsOf: AuthHubBinary.packageRoot.appendingPathComponent("Sources/AuthHub/AuthHub.docc/ProvidersJSONReference.md"),
                                       encoding: .utf8)
        #expect(core.stdout == committedCore)
        #expect(!core.stdout.contains("postgres"))

        let postgres = try await AuthHubBinary.runDetached(["schema", "--markdown", "--store", "postgres"])
        #expect(postgres.status == 0, "\(postgres.stderr)")
        let committedPostgres = try String(
            contentsOf: AuthHubBinary.packageRoot.appendingPathComponent("Sources/AuthHubPostgres/AuthHubPostgres.docc/PostgresStoreConfiguration.md"),
            encoding: .utf8)
        #expect(postgres.stdout == committedPostgres)
        #expect(postgres.stdout.contains("| `postgres` | `url` | yes | yes |"))

        let unknown = try await AuthHubBinary.runDetached(["schema", "--markdown", "--store", "redis"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr == "error: No store factory for session store type 'redis' (factories: postgres).\n")
        let withoutMarkdown = try await AuthHubBinary.runDetached(["schema", "--store", "postgres"])
        #expect(withoutMarkdown.status != 0)
    }
}
