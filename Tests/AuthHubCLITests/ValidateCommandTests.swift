import Foundation
import Testing

@Suite struct ValidateCommandTests {
    static let good = """
        {"defaultEnvironment": "development", "environments": {
          "development": {"providers": [{"id": "auth0", "type": "auth0", "domain": "http://127.0.0.1:8750/auth0", "clientId": "dev"}]},
          "production": {"defaultProvider": "fb", "providers": [
            {"id": "fb", "type": "firebase", "apiKey": "${FIREBASE_API_KEY}", "projectId": "prod"},
            {"id": "auth0", "type": "auth0", "domain": "t.auth0.com", "clientId": "${AUTH0_CLIENT_ID:-web}"}]}
        }}
        """

    static let bad = """
        {"environments": {"dev": {"defaultProvider": "nope", "providers": [
          {"id": "a", "type": "auth0", "domain": "t.auth0.com", "clientID": "SECRET-VALUE"},
          {"id": "a", "type": "okta"}
        ]}}}
        """

    static let badProblems = [
        "environments.dev.defaultProvider: unknown provider 'nope' (ids: a)",
        "environments.dev.providers[0].clientID: unknown field for type 'auth0' (did you mean 'clientId'?)",
        "environments.dev.providers[0].clientId: required",
        "environments.dev.providers[1].type: unknown provider type 'okta' (known: auth0, firebase, oidc, openfort, turnkey)",
        "environments.dev.providers[1].id: duplicate provider id 'a' (also at providers[0])",
    ]

    /// The `postgres` store's fields come from AuthHubPostgres's factory, which the CLI registers:
    /// `validate` checks them at their paths, without echoing the URL.
    @Test func postgresStoreFieldsAreValidated() async throws {
        let config = """
            {"environments": {"prod": {"sessionStore": {"type": "postgres", "url": "mysql://u:hunter2@h/db", "table": "a b"},
              "providers": [{"id": "a", "type": "auth0", "domain": "t.auth0.com", "clientId": "c"}]}}}
            """
        let directory = try AuthHubBinary.directory(withConfig: config)
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await AuthHubBinary.runDetached(["validate"], in: directory)
        #expect(result.status == 1)
        #expect(result.stderr == """
            environments.prod.sessionStore.encryptionKey: required
            environments.prod.sessionStore.url: must start with postgres:// or postgresql://
            environments.prod.sessionStore.table: must be a plain SQL identifier: ASCII letters, digits and '_' only
            error: providers.json: 3 problems found

            """)
        #expect(!result.stderr.contains("hunter2"))

        let key = Data(repeating: 7, count: 32).base64EncodedString()
        let good = try AuthHubBinary.directory(withConfig: """
            {"environments": {"prod": {"sessionStore": {"type": "postgres", "url": "${DATABASE_URL}", "encryptionKey": "\(key)"},
              "providers": [{"id": "a", "type": "auth0", "domain": "t.auth0.com", "clientId": "c"}]}}}
            """)
        defer { try? FileManager.default.removeItem(at: good) }
        let ok = try await AuthHubBinary.runDetached(["validate"], in: good, environment: ["DATABASE_URL": "postgres://app:pw@db.internal/auth"])
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(ok.stdout == "providers.json: environment 'prod' OK (1 provider)\n")
    }

    @Test func validFileExitsZeroWithOneLine() async throws {
        let directory = try AuthHubBinary.directory(withConfig: Self.good)
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await AuthHubBinary.runDetached(["validate"], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "providers.json: environment 'development' OK (1 provider)\n")
        #expect(result.stderr.isEmpty)

        let env = try await AuthHubBinary.runDetached(["validate", "--env", "production"], in: directory, environment: ["FIREBASE_API_KEY": "k"])
        #expect(env.status == 0, "\(env.stderr)")
        #expect(env.stdout == "providers.json: environment 'production' OK (2 providers)\n")
    }

    @Test func allEnvironmentsResolvesEveryVariable() async throws {
        let directory = try AuthHubBinary.directory(withConfig: Self.good)
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = try await AuthHubBinary.runDetached(["validate", "--all-environments"], in: directory)
        #expect(missing.status == 1)
        #expect(missing.stderr == """
            environments.production.providers[0].apiKey: environment variable FIREBASE_API_KEY is not set
            error: providers.json: 1 problem found

            """)
        let set = try await AuthHubBinary.runDetached(["validate", "--all-environments"], in: directory, environment: ["FIREBASE_API_KEY": "k"])
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stdout == "providers.json: 2 environments OK (development: 1 provider, production: 2 providers)\n")
    }

    @Test func badFileExitsOneWithEveryProblemAndNoValues() async throws {
        let directory = try AuthHubBinary.directory(withConfig: Self.bad)
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await AuthHubBinary.runDetached(["validate"], in: directory)
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == (Self.badProblems + ["error: providers.json: 5 problems found"]).joined(separator: "\n") + "\n")
        #expect(!result.stderr.contains("SECRET-VALUE"))
    }

    @Test func jsonOutputShape() async throws {
        let directory = try AuthHubBinary.directory(withConfig: Self.bad)
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await AuthHubBinary.runDetached(["validate", "--json"], in: directory)
        #expect(result.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["ok"] as? Bool == false)
        let problems = try #require(object["problems"] as? [[String: String]])
        #expect(problems.map { "\($0["path"] ?? ""): \($0["message"] ?? "")" } == Self.badProblems)
        #expect(problems.allSatisfy { Set($0.keys) == ["path", "message"] })

        let good = try AuthHubBinary.directory(withConfig: Self.good)
        defer { try? FileManager.default.removeItem(at: good) }
        let ok = try await AuthHubBinary.runDetached(["validate", "--json"], in: good)
        #expect(ok.status == 0)
        let okObject = try #require(try JSONSerialization.jsonObject(with: Data(ok.stdout.utf8)) as? [String: Any])
        #expect(okObject["ok"] as? Bool == true)
        #expect((okObject["problems"] as? [Any])?.isEmpty == true)
        #expect((okObject["environments"] as? [[String: Any]])?.first?["name"] as? String == "development")
    }

    @Test func malformedJSONNamesLineAndColumn() async throws {
        let directory = try AuthHubBinary.directory(withConfig: "{\n  \"environments\": {\n    \"dev\": {} \"x\"\n  }\n}")
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await AuthHubBinary.runDetached(["validate"], in: directory)
        #expect(result.status == 1)
        #expect(result.stderr == "error: providers.json: malformed JSON at line 3, column 15: expected ',' or '}'\n")
    }

    @Test func missingConfigFileIsOneLineAndExitOne() async throws {
        let result = try await AuthHubBinary.runDetached(["validate", "--config", "/nonexistent/authhub/providers.json"])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "error: /nonexistent/authhub/providers.json: file not found\n")

        let json = try await AuthHubBinary.runDetached(["validate", "--json", "--config", "/nonexistent/authhub/providers.json"])
        #expect(json.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["ok"] as? Bool == false)
        #expect(object["problems"] as? [[String: String]] == [["path": "", "message": "file not found"]])
    }

    @Test func unknownEnvironmentListsTheKnownOnes() async throws {
        let directory = try AuthHubBinary.directory(withConfig: Self.good)
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await AuthHubBinary.runDetached(["validate"], in: directory, environment: ["AUTHHUB_ENV": "qa"])
        #expect(result.status == 1)
        #expect(result.stderr == "error: providers.json: unknown environment 'qa' selected by AUTHHUB_ENV (known: development, production)\n")
    }

    @Test func repositoryProvidersJSONValidates() async throws {
        let config = AuthHubBinary.packageRoot.appendingPathComponent("providers.json").path
        let result = try await AuthHubBinary.runDetached(["validate", "--config", config])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "\(config): environment 'development' OK (5 providers)\n")
    }
}
