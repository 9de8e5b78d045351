import AuthHub
import AuthHubProviders
import AuthHubTesting
import Foundation
import Logging
import Testing

/// A third-party session store type, defined here and unknown to core: `"type": "toy"`, with a
/// required string, an integer with a range (checked by the factory) and a secret.
struct ToyStoreFactory: SessionStoreFactory {
    let storeType = "toy"
    let summary = "Sessions in a toy box (a test double around the in-memory store)."
    let fields = [
        ConfigField("shelf", .string, required: true, description: "Which shelf the box sits on."),
        ConfigField("capacity", .integer, description: "How many sessions fit, 1 to 100.", defaultValue: 10),
        ConfigField("lockCode", .string, secret: true, description: "The box's lock code, at least 8 characters."),
    ]

    func validate(_ settings: SessionStoreSettings) -> [ConfigProblem] {
        var problems: [ConfigProblem] = []
        if let capacity = settings.int("capacity"), !(1...100).contains(capacity) {
            problems.append(ConfigProblem(path: "capacity", message: "must be 1 to 100"))
        }
        if let code = settings.string("lockCode"), code.count < 8 {
            problems.append(ConfigProblem(path: "lockCode", message: "must have at least 8 characters"))
        }
        return problems
    }

    func makeStore(_ settings: SessionStoreSettings, logger: Logger) throws -> any SessionStore {
        ToyStore(shelf: try settings.requiredString("shelf"), capacity: settings.int("capacity") ?? 10,
                 lockCode: settings.secret("lockCode"), baseDirectory: settings.baseDirectory)
    }
}

/// The toy store: its settings, and an ``InMemorySessionStore`` doing the work.
struct ToyStore: SessionStore {
    let shelf: String
    let capacity: Int
    let lockCode: Secret<String>?
    let baseDirectory: URL?
    let box = InMemorySessionStore()

    func load(_ key: SessionKey) async throws -> Session? { await box.load(key) }
    func save(_ session: Session, for key: SessionKey, expectedVersion: UInt64?) async throws -> Session {
        try await box.save(session, for: key, expectedVersion: expectedVersion)
    }
    func remove(_ key: SessionKey) async throws { await box.remove(key) }
    func keys() async throws -> [SessionKey] { await box.keys() }
}

@Suite struct StoreFactoryPluginTests {
    static let registry = ProviderRegistry.builtIn.registering(storeFactory: ToyStoreFactory())
    static let provider = #"{"id": "a", "type": "auth0", "domain": "t.auth0.com", "clientId": "c"}"#

    static func document(_ store: String) -> Data {
        Data(#"{"environments": {"staging": {"sessionStore": \#(store), "providers": [\#(provider)]}}}"#.utf8)
    }

    @Test func aGoodConfigurationBuildsAHubOnTheToyStore() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authhub-toy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("providers.json")
        try Self.document(#"{"type": "toy", "shelf": "${SHELF:-top}", "capacity": "${TOY_CAPACITY}", "lockCode": "${TOY_CODE}"}"#)
            .write(to: file)

        let variables = ["TOY_CAPACITY": "42", "TOY_CODE": "open-sesame"]
        let environment = try ConfigLoader(registry: Self.registry, environmentVariables: variables).load(contentsOf: file.path)
        guard case .plugin(let settings) = environment.sessionStore else {
            Issue.record("expected the toy factory's settings, got \(environment.sessionStore.type)")
            return
        }
        #expect(settings.type == "toy")
        #expect(settings.path == "environments.staging.sessionStore")
        #expect(settings.values == ["shelf": "top", "capacity": 42, "lockCode": "open-sesame"])

        let hub = try AuthHub.load(configPath: file.path, registry: Self.registry, environmentVariables: variables)
        let store = try #require(hub.store as? ToyStore)
        #expect(store.shelf == "top")
        #expect(store.capacity == 42)
        #expect(store.lockCode?.revealed() == "open-sesame")
        #expect(store.baseDirectory?.standardizedFileURL.path == directory.standardizedFileURL.path)

        // The default applies when the field is absent.
        let defaults = try ConfigLoader(registry: Self.registry, environmentVariables: [:]).load(data: Self.document(#"{"type": "toy", "shelf": "low"}"#))
        let defaultHub = try AuthHub(environment: defaults, registry: Self.registry)
        #expect((defaultHub.store as? ToyStore)?.capacity == 10)
    }

    @Test func aBadConfigurationReportsTheToysOwnProblemsAtTheirPaths() {
        let loader = ConfigLoader(registry: Self.registry, environmentVariables: ["TOY_CODE": "short-1"])
        let found = loader.validate(data: Self.document(#"{"type": "toy", "capacity": 500, "lockCode": "${TOY_CODE}", "colour": "red"}"#))
            .map(\.description)
        #expect(found == [
            "environments.staging.sessionStore.colour: unknown key for a toy store (allowed: type, shelf, capacity, lockCode)",
            "environments.staging.sessionStore.shelf: required",
            "environments.staging.sessionStore.capacity: must be 1 to 100",
            "environments.staging.sessionStore.lockCode: must have at least 8 characters (after substituting environment variables)",
        ])
        #expect(!found.joined().contains("short-1"))

        let mistyped = loader.validate(data: Self.document(#"{"type": "toy", "shelf": 3, "capacity": "many", "lockCode": "${UNSET_CODE}"}"#))
            .map(\.description)
        #expect(mistyped == [
            "environments.staging.sessionStore.shelf: expected string, found number",
            "environments.staging.sessionStore.capacity: expected integer, found string",
            "environments.staging.sessionStore.lockCode: environment variable UNSET_CODE is not set",
        ])

        // Building the hub from a bad file fails with every problem, as for providers.
        let error = #expect(throws: ConfigurationError.self) {
            try loader.load(data: Self.document(#"{"type": "toy", "capacity": 0}"#))
        }
        #expect(error?.problems.map(\.description) == [
            "environments.staging.sessionStore.shelf: required",
            "environments.staging.sessionStore.capacity: must be 1 to 100",
        ])
    }

    @Test func withoutTheFactoryTheTypeIsUnknownAndTheKnownTypesAreListed() {
        let found = ConfigLoader(registry: .builtIn, environmentVariables: [:])
            .validate(data: Self.document(#"{"type": "toy", "shelf": "top"}"#)).map(\.description)
        #expect(found == ["environments.staging.sessionStore.type: unknown session store type 'toy' (known: file, memory)"])
        let withToy = ConfigLoader(registry: Self.registry, environmentVariables: [:])
            .validate(data: Self.document(#"{"type": "tyo"}"#)).map(\.description)
        #expect(withToy == ["environments.staging.sessionStore.type: unknown session store type 'tyo' (known: file, memory, toy)"])
        let untyped = ConfigLoader(registry: Self.registry, environmentVariables: [:])
            .validate(data: Self.document(#"{"shelf": "top", "drawer": 1}"#)).map(\.description)
        #expect(untyped == [
            "environments.staging.sessionStore.drawer: unknown key (allowed: type, path, encryptionKey, shelf, capacity, lockCode)",
            "environments.staging.sessionStore.type: required (one of: file, memory, toy)",
        ])

        // A configuration built in code for a type no factory builds.
        let environment = EnvironmentConfiguration(name: "staging", defaultProvider: "a",
                                                   sessionStore: .plugin(SessionStoreSettings(type: "toy", values: ["shelf": "top"])),
                                                   providers: [])
        let error = #expect(throws: AuthError.self) { try AuthHub(environment: environment, registry: .builtIn) }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message.hasPrefix("sessionStore.type: no store factory is registered for session store type 'toy' (known: file, memory)") == true)
    }

    @Test func theSchemaAndTheReferenceIncludeTheToysFields() throws {
        let schema = ProvidersSchema.generate(registry: Self.registry)
        let branches = try #require(schema["$defs"]?["sessionStore"]?["oneOf"]?.arrayValue)
        #expect(branches.compactMap { $0["properties"]?["type"]?["const"]?.stringValue } == ["memory", "file", "toy"])
        let toy = try #require(branches.last)
        #expect(toy["required"] == ["type", "shelf"])
        #expect(toy["additionalProperties"] == false)
        #expect(toy["properties"]?["type"]?["description"] == .string(ToyStoreFactory().summary))
        #expect(toy["properties"]?["shelf"]?["type"] == "string")
        #expect(toy["properties"]?["capacity"]?["default"] == 10)
        #expect(toy["properties"]?["capacity"]?["anyOf"]?.arrayValue?.first == ["type": "integer"])
        #expect(toy["properties"]?["lockCode"]?["description"]?.stringValue?.contains("Secret") == true)
        #expect(ProvidersSchema.generate(registry: .builtIn)["$defs"]?["sessionStore"]?["oneOf"]?.arrayValue?.count == 2)

        let reference = ProvidersReference.markdown(registry: Self.registry)
        #expect(reference.contains("| `toy` | `type` | yes | no |  | Sessions in a toy box"))
        #expect(reference.contains("| `toy` | `shelf` | yes | no |  | Which shelf the box sits on. |"))
        #expect(reference.contains("| `toy` | `capacity` | no | no | `10` | How many sessions fit, 1 to 100. |"))
        #expect(reference.contains("| `toy` | `lockCode` | no | yes |  |"))
        #expect(!ProvidersReference.markdown(registry: .builtIn).contains("`toy`"))
        let article = ProvidersReference.markdown(storeFactory: ToyStoreFactory())
        #expect(article.hasPrefix("# The `toy` session store in providers.json\n"))
        #expect(article.contains("| `toy` | `capacity` | no | no | `10` |"))
    }

    @Test func theToyStorePassesTheConformanceSuite() async {
        let failures = await SessionStoreConformance {
            try ToyStoreFactory().makeStore(SessionStoreSettings(type: "toy", values: ["shelf": "top"]), logger: Logger(label: "toy"))
        }.run()
        #expect(failures == [])
    }
}
