import AuthHub
import AuthHubProviders
import Foundation
import Testing

@Suite struct ConfigLoaderTests {
    private func loader(_ variables: [String: String] = [:]) -> ConfigLoader {
        ConfigLoader(registry: .builtIn, environmentVariables: variables)
    }

    private func problems(_ text: String, environment: String? = nil, all: Bool = false,
                          variables: [String: String] = [:]) -> [String] {
        loader(variables).validate(data: Data(text.utf8), environment: environment, allEnvironments: all).map(\.description)
    }

    /// One file, twelve distinct mistakes: every one is reported, each with its exact JSON path.
    @Test func reportsEveryMistakeWithItsPath() {
        let text = """
            {
              "defaultEnvironment": "staging",
              "environments": {
                "development": {
                  "defaultProvider": "missing",
                  "sessionStore": { "type": "file", "path": "state", "encryptionKey": "c2hvcnQ=" },
                  "providers": [
                    { "id": "auth0", "type": "auth0", "domain": "tenant.eu.auth0.com", "audiance": "api" },
                    { "id": "okta", "type": "okta", "orgUrl": "https://x.okta.com" },
                    { "id": "auth0", "type": "oidc", "issuer": "not a url", "clientId": 42 }
                  ]
                },
                "production": {
                  "defaultProvider": "fb",
                  "providers": [
                    { "id": "fb", "type": "firebase", "apiKey": "${FIREBASE_API_KEY}", "projectId": "p",
                      "emulatorHost": "http://127.0.0.1:9099" },
                    { "id": "of", "type": "openfort", "publishableKey": "pk_test_1", "apiVersion": "v3" }
                  ]
                }
              }
            }
            """
        let expected = [
            "defaultEnvironment: unknown environment 'staging' (known: development, production)",
            "environments.development.defaultProvider: unknown provider 'missing' (ids: auth0, okta)",
            "environments.development.sessionStore.encryptionKey: must be 32 bytes encoded in base64 (generate one with: openssl rand -base64 32)",
            "environments.development.providers[0].audiance: unknown field for type 'auth0' (did you mean 'audience'?)",
            "environments.development.providers[0].clientId: required",
            "environments.development.providers[1].type: unknown provider type 'okta' (known: auth0, firebase, oidc, openfort, turnkey)",
            "environments.development.providers[2].issuer: must be an absolute http or https URL with a host",
            "environments.development.providers[2].clientId: expected string, found number",
            "environments.development.providers[2].id: duplicate provider id 'auth0' (also at providers[0])",
            "environments.production.providers[0].apiKey: environment variable FIREBASE_API_KEY is not set",
            "environments.production.providers[0].emulatorHost: must be host:port without a scheme (e.g. 127.0.0.1:9099)",
            "environments.production.providers[1].apiVersion: must be one of \"v2\", \"v1\"",
        ]
        #expect(problems(text, all: true) == expected)

        // Without allEnvironments nothing is resolved here (the selected environment does not exist),
        // so the unset variable is not a problem, and the bad default is reported once.
        let structural = problems(text)
        #expect(structural == expected.filter { !$0.contains("FIREBASE_API_KEY") })

        // load() throws the same problems at once.
        do {
            _ = try loader().load(data: Data(text.utf8), environment: "development", file: "x.json")
            Issue.record("load should fail")
        } catch let error as ConfigurationError {
            #expect(error.file == "x.json")
            #expect(error.problems.count == expected.count - 1)
            #expect(error.description.hasPrefix("x.json: 11 problems\n  defaultEnvironment: unknown environment"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func malformedJSONIsOneProblemWithLineAndColumn() {
        let text = "{\n  \"environments\": {\n    \"dev\": {}\n    \"prod\": {}\n  }\n}"
        #expect(problems(text) == ["malformed JSON at line 4, column 5: expected ',' or '}'"])
        #expect(problems("") == ["malformed JSON at line 1, column 1: unexpected end of input; expected a value"])
    }

    @Test func structureOfTheRootAndEnvironments() {
        #expect(problems("[]") == ["the top level must be an object, found array"])
        #expect(problems("{}") == ["environments: required"])
        #expect(problems(#"{"environments": {}}"#) == ["environments: must define at least one environment"])
        #expect(problems(#"{"$schema": "./providers.schema.json", "enviroment": 1, "environments": {"a": {"provider": []}}}"#) == [
            "enviroment: unknown key (did you mean 'environments'?)",
            "environments.a.provider: unknown key (did you mean 'providers'?)",
            "environments.a.providers: required",
        ])
        #expect(problems(#"{"environments": {"a": {"providers": []}, "a": {"providers": []}}}"#) == [
            "environments.a.providers: must list at least one provider",
            "environments.a: duplicate key (first defined on line 1)",
        ])
        #expect(problems(#"{"environments": {"a": {"providers": {}}}}"#) == ["environments.a.providers: expected array, found object"])
    }

    @Test func providerEntryStructure() {
        let env = { (entries: String) in #"{"environments": {"e": {"providers": [\#(entries)]}}}"# }
        #expect(problems(env("1")) == ["environments.e.providers[0]: expected object, found number"])
        #expect(problems(env(#"{"type": "auth0", "domain": "t.auth0.com", "clientId": "c"}"#)) == ["environments.e.providers[0].id: required"])
        #expect(problems(env(#"{"id": "a b", "type": "auth0", "domain": "t.auth0.com", "clientId": "c"}"#))
            == ["environments.e.providers[0].id: must be 1 to 64 letters, digits, '-' or '_'"])
        #expect(problems(env(#"{"id": "a"}"#)) == ["environments.e.providers[0].type: required (known: auth0, firebase, oidc, openfort, turnkey)"])
        #expect(problems(env(#"{"id": "a", "type": "auth0", "domain": "t.auth0.com", "clientId": "c", "clientId": "d"}"#))
            == ["environments.e.providers[0].clientId: duplicate key (first defined on line 1)"])
        #expect(problems(env(#"{"id": "a", "type": "auth0", "domain": "http://", "clientId": "", "leeway": 1.5}"#)) == [
            "environments.e.providers[0].domain: must be a domain (e.g. tenant.eu.auth0.com) or an absolute http or https URL",
            "environments.e.providers[0].clientId: must not be empty",
            "environments.e.providers[0].leeway: expected integer, found a fractional number",
        ])
        #expect(problems(env(#"{"id": "o", "type": "oidc", "issuer": "https://i.example", "clientId": "c", "scopes": "openid", "additionalParameters": {"prompt": 1}}"#)) == [
            "environments.e.providers[0].scopes: expected array of strings, found string",
            "environments.e.providers[0].additionalParameters.prompt: expected string, found number",
        ])
        #expect(problems(env(#"{"id": "o", "type": "oidc", "issuer": "https://i.example", "clientId": "c", "scopes": ["openid", 1]}"#))
            == ["environments.e.providers[0].scopes[1]: expected string, found number"])
        // The plugin's own validate runs once the declared fields are fine; its paths are prefixed.
        #expect(problems(env(#"{"id": "o", "type": "oidc", "issuer": "https://i.example", "clientId": "c", "scopes": ["profile"]}"#))
            == ["environments.e.providers[0].scopes: must include \"openid\""])
    }

    @Test func defaultProviderRules() {
        let one = #"{"id": "a", "type": "auth0", "domain": "t.auth0.com", "clientId": "c"}"#
        let two = #"{"id": "b", "type": "auth0", "domain": "t.auth0.com", "clientId": "c"}"#
        #expect(problems(#"{"environments": {"e": {"providers": [\#(one), \#(two)]}}}"#)
            == ["environments.e.defaultProvider: required when an environment has more than one provider"])
        #expect(problems(#"{"environments": {"e": {"defaultProvider": 3, "providers": [\#(one)]}}}"#)
            == ["environments.e.defaultProvider: expected string, found number"])
        let environment = try? loader().load(data: Data(#"{"environments": {"e": {"providers": [\#(one)]}}}"#.utf8))
        #expect(environment?.defaultProvider == "a")
        #expect(environment?.name == "e")
    }

    @Test func sessionStoreRules() throws {
        let provider = #"{"id": "a", "type": "auth0", "domain": "t.auth0.com", "clientId": "c"}"#
        let env = { (store: String) in #"{"environments": {"e": {"sessionStore": \#(store), "providers": [\#(provider)]}}}"# }
        #expect(problems(env(#"{"type": "redis"}"#)) == ["environments.e.sessionStore.type: unknown session store type 'redis' (known: file, memory)"])
        #expect(problems(env(#"{"type": "memory", "path": "x"}"#)) == ["environments.e.sessionStore.path: unknown key for a memory store (allowed: type)"])
        #expect(problems(env(#"{"type": "file"}"#)) == ["environments.e.sessionStore.path: required"])
        #expect(problems(env(#"{"path": "x"}"#)) == ["environments.e.sessionStore.type: required (one of: file, memory)"])

        let key = Data(repeating: 7, count: 32).base64EncodedString()
        let loaded = try loader(["KEY": key]).load(data: Data(env(#"{"type": "file", "path": "s", "encryptionKey": "${KEY}"}"#).utf8))
        guard case .file(let path, let secret) = loaded.sessionStore else {
            Issue.record("expected a file store")
            return
        }
        #expect(path == "s")
        #expect(secret?.revealed() == key)
        let memory = try loader().load(data: Data(#"{"environments": {"e": {"providers": [\#(provider)]}}}"#.utf8))
        guard case .memory = memory.sessionStore else {
            Issue.record("a missing sessionStore means memory")
            return
        }
    }

    @Test func unsetVariableNamesTheVariableAndPath() {
        let text = #"{"environments": {"production": {"providers": [{"id": "auth0", "type": "auth0", "domain": "t.auth0.com", "clientId": "${AUTH0_CLIENT_ID}"}]}}}"#
        #expect(problems(text) == ["environments.production.providers[0].clientId: environment variable AUTH0_CLIENT_ID is not set"])
        #expect(problems(text, variables: ["AUTH0_CLIENT_ID": "abc"]).isEmpty)
    }

    @Test func variablesDefaultsAndLiterals() throws {
        let text = """
            {"environments": {"e": {"providers": [
              {"id": "tk", "type": "turnkey", "organizationId": "${ORG:-00000000-0000-4000-8000-000000000001}",
               "rpId": "example.com", "proxyURL": "https://${PROXY_HOST}/api", "sessionLifetimeSeconds": "${TTL:-1200}"},
              {"id": "a0", "type": "auth0", "domain": "t.auth0.com", "clientId": "$${NOT_A_VARIABLE}",
               "audience": "${EMPTY:-https://api.example.com}", "scope": "openid ${EXTRA_SCOPE:-}"}
            ], "defaultProvider": "tk"}}}
            """
        let environment = try loader(["PROXY_HOST": "proxy.example.com", "EMPTY": ""]).load(data: Data(text.utf8))
        let turnkey = try #require(environment.providers.first)
        #expect(turnkey.string("organizationId") == "00000000-0000-4000-8000-000000000001")
        #expect(turnkey.string("proxyURL") == "https://proxy.example.com/api")
        #expect(turnkey.int("sessionLifetimeSeconds") == 1200)
        #expect(turnkey.string("baseURL") == "https://api.turnkey.com", "defaults are applied")
        #expect(turnkey.path == "environments.e.providers[0]")
        let auth0 = environment.providers[1]
        #expect(auth0.string("clientId") == "${NOT_A_VARIABLE}")
        #expect(auth0.string("audience") == "https://api.example.com")
        #expect(auth0.string("scope") == "openid ")
        #expect(auth0.int("leeway") == 60)

        #expect(problems(text, variables: ["PROXY_HOST": "p.example.com", "TTL": "soon"])
            == ["environments.e.providers[0].sessionLifetimeSeconds: must be an integer (after substituting environment variables)"])
        #expect(problems(text) == ["environments.e.providers[0].proxyURL: environment variable PROXY_HOST is not set"])
    }

    @Test func malformedReferencesAreProblemsEvenWhenNotResolving() {
        let text = #"{"defaultEnvironment": "a", "environments": {"a": {"providers": [{"id": "x", "type": "auth0", "domain": "t.auth0.com", "clientId": "c"}]}, "b": {"providers": [{"id": "x", "type": "auth0", "domain": "t.auth0.com", "clientId": "${1X}", "audience": "${OPEN"}]}}}"#
        let found = problems(text)
        #expect(found.count == 2)
        #expect(found.allSatisfy { $0.contains("malformed variable reference") })
        #expect(found.first?.hasPrefix("environments.b.providers[0].clientId: ") == true)
        #expect(found.last?.hasPrefix("environments.b.providers[0].audience: ") == true)
    }

    @Test func environmentSelectionOrder() throws {
        let entry = { (clientId: String) in #"{"id": "a", "type": "auth0", "domain": "t.auth0.com", "clientId": "\#(clientId)"}"# }
        let text = """
            {"defaultEnvironment": "a", "environments": {
              "a": {"providers": [\(entry("ca"))]},
              "b": {"providers": [\(entry("cb"))]},
              "c": {"providers": [\(entry("${C_ONLY}"))]}
            }}
            """
        let data = Data(text.utf8)
        #expect(try loader().load(data: data).name == "a")
        #expect(try loader(["AUTHHUB_ENV": "b"]).load(data: data).name == "b")
        #expect(try loader(["AUTHHUB_ENV": ""]).load(data: data).name == "a", "an empty AUTHHUB_ENV is ignored")
        #expect(try loader(["AUTHHUB_ENV": "b", "C_ONLY": "cc"]).load(data: data, environment: "c").providers[0].string("clientId") == "cc")
        #expect(try loader(["AUTHHUB_ENV": "b"]).load(data: data, environment: "a").providers[0].string("clientId") == "ca")

        #expect(loader(["AUTHHUB_ENV": "b"]).environmentName(explicit: "c", defaultEnvironment: "a") == "c")
        #expect(loader(["AUTHHUB_ENV": "b"]).environmentName(explicit: nil, defaultEnvironment: "a") == "b")
        #expect(loader().environmentName(explicit: nil, defaultEnvironment: "a") == "a")
        #expect(loader().environmentName(explicit: nil, defaultEnvironment: nil) == nil)

        // Only the selected environment is resolved: c's variable matters only when c is selected.
        #expect(problems(text).isEmpty)
        #expect(problems(text, environment: "c") == ["environments.c.providers[0].clientId: environment variable C_ONLY is not set"])
        #expect(problems(text, all: true) == ["environments.c.providers[0].clientId: environment variable C_ONLY is not set"])

        #expect(problems(text, variables: ["AUTHHUB_ENV": "zzz"]) == ["unknown environment 'zzz' selected by AUTHHUB_ENV (known: a, b, c)"])
        #expect(problems(text, environment: "qa") == ["unknown environment 'qa' selected explicitly (known: a, b, c)"])
        let noDefault = text.replacingOccurrences(of: #""defaultEnvironment": "a", "#, with: "")
        #expect(problems(noDefault) == ["no environment selected: pass one explicitly (--env), set AUTHHUB_ENV or add defaultEnvironment (known: a, b, c)"])
        #expect(problems(noDefault, all: true) == ["environments.c.providers[0].clientId: environment variable C_ONLY is not set"])
    }

    @Test func loadAllResolvesEveryEnvironmentInOrder() throws {
        let entry = #"{"id": "a", "type": "auth0", "domain": "t.auth0.com", "clientId": "${ID}"}"#
        let data = Data(#"{"environments": {"z": {"providers": [\#(entry)]}, "m": {"providers": [\#(entry)]}}}"#.utf8)
        #expect(try loader(["ID": "x"]).loadAll(data: data).map(\.name) == ["z", "m"])
        #expect(throws: ConfigurationError.self) { try loader().loadAll(data: data) }
    }

    @Test func noValueEverAppearsInAProblem() throws {
        let text = """
            {"environments": {"dev": {
              "sessionStore": {"type": "file", "path": "p", "encryptionKey": "TOPSECRET-1"},
              "providers": [
                {"id": "fb", "type": "firebase", "apiKey": "AIza-TOPSECRET-2", "projectID": "TOPSECRET-3", "emulatorHost": "TOPSECRET-4"},
                {"id": "o", "type": "oidc", "issuer": "${ISSUER}", "clientId": "c", "clientSecret": 12345, "redirectURI": "TOPSECRET-5"},
                {"id": "of", "type": "openfort", "publishableKey": "sk_live_TOPSECRET-6"},
                {"id": "tk", "type": "turnkey", "organizationId": "TOPSECRET-7", "rpId": "https://TOPSECRET-8", "proxyURL": "https://p.example"},
                {"id": "a0", "type": "auth0", "domain": "TOPSECRET 9", "clientId": "c", "leeway": "${LEEWAY}"}
              ]}}}
            """
        let variables = ["ISSUER": "TOPSECRET-10 is not a URL", "LEEWAY": "TOPSECRET-11"]
        let found = loader(variables).validate(data: Data(text.utf8))
        let rendered = found.map(\.description)
        #expect(rendered.count >= 11, "\(rendered)")
        for line in rendered {
            #expect(!line.contains("TOPSECRET") && !line.contains("AIza") && !line.contains("12345"), "leaked: \(line)")
        }
        // The typo'd neighbour of the secret is still pointed out, by name only.
        #expect(rendered.contains("environments.dev.providers[0].projectID: unknown field for type 'firebase' (did you mean 'projectId'?)"))
        #expect(rendered.contains("environments.dev.providers[1].issuer: must be an absolute http or https URL with a host (after substituting environment variables)"))
        #expect(rendered.contains { $0.hasPrefix("environments.dev.providers[2].publishableKey: is a secret key") })
        #expect(rendered.contains("environments.dev.providers[3].organizationId: must be a UUID (8-4-4-4-12 hexadecimal digits)"))

        do {
            _ = try loader(variables).load(data: Data(text.utf8))
            Issue.record("load should fail")
        } catch let error as ConfigurationError {
            #expect(!error.description.contains("TOPSECRET"))
            #expect(!error.authError.description.contains("TOPSECRET"))
            #expect(error.authError.code == .invalidConfiguration)
        }
    }

    @Test func readingAMissingFileIsOneProblem() {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("authhub-missing-\(UUID()).json").path
        do {
            _ = try loader().load(contentsOf: path)
            Issue.record("load should fail")
        } catch let error as ConfigurationError {
            #expect(error.problems == [ConfigProblem(path: "", message: "file not found")])
            #expect(error.file == path)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
