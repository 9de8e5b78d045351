import AuthHub
import AuthHubProviders
import AuthHubTesting
import Foundation
import Testing

/// providers.json → AuthHub.load → sign-in → the session lands, sealed, in the file store the config
/// names (relative to the config file's folder), and a second hub (another process) reads it back.
@Suite struct EndToEndFileStoreTests {
    @Test func loadSignInAndReadBackFromTheConfiguredFileStore() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authhub-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = Data((0..<32).map { UInt8($0) }).base64EncodedString()
        let config = """
            {"defaultEnvironment": "dev", "environments": {"dev": {
              "sessionStore": {"type": "file", "path": "state/sessions", "encryptionKey": "${STORE_KEY}"},
              "providers": [{"id": "main", "type": "example-oauth", "baseURL": "https://id.example.com", "clientId": "c"}]
            }}}
            """
        let file = directory.appendingPathComponent("providers.json")
        try Data(config.utf8).write(to: file)

        let server = StubTokenServer()
        let registry = ProviderRegistry.builtIn.registering(ExampleOAuthPlugin())
        let context = ProviderContext(transport: server.transport, clock: FakeClock())
        let hub = try AuthHub.load(configPath: file.path, registry: registry, context: context,
                                   environmentVariables: ["STORE_KEY": key])
        let store = try #require(hub.store as? FileSessionStore)
        #expect(store.directory.standardizedFileURL.path == directory.appendingPathComponent("state/sessions").standardizedFileURL.path)

        try await hub.signIn(.password(identifier: "a@example.com", password: Secret("correct horse")))
        let sealed = try Data(contentsOf: store.fileURL(for: SessionKey(provider: "main")))
        #expect(!String(decoding: sealed, as: UTF8.self).contains("at-1"))
        let mode = try FileManager.default.attributesOfItem(atPath: store.fileURL(for: SessionKey(provider: "main")).path)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        let again = try AuthHub.load(configPath: file.path, registry: registry, context: context,
                                     environmentVariables: ["STORE_KEY": key])
        #expect(try await again.session().accessToken.revealed() == "at-1")

        // The same files under the wrong key: an error naming the file, never a silent sign-out.
        let wrongKey = Data((0..<32).map { UInt8(255 - $0) }).base64EncodedString()
        let wrong = try AuthHub.load(configPath: file.path, registry: registry, context: context,
                                     environmentVariables: ["STORE_KEY": wrongKey])
        do {
            _ = try await wrong.session()
            Issue.record("expected storageFailure")
        } catch let e as AuthError {
            #expect(e.code == .storageFailure)
            #expect(e.message.contains("state/sessions"))
        }
    }
}
