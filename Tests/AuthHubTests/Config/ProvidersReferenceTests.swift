import AuthHub
import AuthHubProviders
import Foundation
import Testing

@Suite struct ProvidersReferenceTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func committedArticleIsUpToDate() throws {
        let url = Self.packageRoot.appendingPathComponent("Sources/AuthHub/AuthHub.docc/ProvidersJSONReference.md")
        let committed = try String(contentsOf: url, encoding: .utf8)
        #expect(committed == ProvidersReference.markdown(registry: .builtIn),
                "ProvidersJSONReference.md is stale: regenerate it with `\(ProvidersReference.command)`")
    }

    @Test func listsEveryFieldOfEveryPlugin() {
        let text = ProvidersReference.markdown(registry: .builtIn)
        for plugin in ProviderRegistry.builtIn.all {
            #expect(text.contains("### \(plugin.type)\n"))
            for field in plugin.fields {
                #expect(text.contains("| `\(field.name)` | \(field.kind.name.replacingOccurrences(of: "|", with: "\\|")) |"), "\(plugin.type).\(field.name)")
            }
        }
        #expect(text.contains("| `file` | `encryptionKey` | no | yes |"))
        #expect(text.hasPrefix("# providers.json reference\n"))
    }

    @Test func thirdPartyPluginsAppear() {
        let text = ProvidersReference.markdown(registry: ProviderRegistry.builtIn.registering(AcmePlugin()))
        #expect(text.contains("### acme\n"))
    }
}
