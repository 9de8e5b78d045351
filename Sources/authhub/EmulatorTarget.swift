import AuthHub
import AuthHubProviders
import Foundation

/// Where providers.json expects the local emulator: the port of the loopback URLs (and
/// `host:port` values such as Firebase's `emulatorHost`) its providers point at.
enum EmulatorTarget {
    /// The port every loopback URL of `environment`'s providers uses; nil when none points at a
    /// loopback host.
    /// - Throws: ``CLIFailure`` when they name different ports (the emulator serves one).
    static func port(of environment: EnvironmentConfiguration) throws -> Int? {
        var found: [Int: [String]] = [:]
        for provider in environment.providers {
            for (field, value) in provider.values.sorted(by: { $0.key < $1.key }) {
                guard let text = value.stringValue, let port = loopbackPort(text) else { continue }
                found[port, default: []].append("\(provider.id).\(field)")
            }
        }
        guard found.count <= 1 else {
            let list = found.sorted { $0.key < $1.key }.map { "\($0.key) (\($0.value.joined(separator: ", ")))" }.joined(separator: "; ")
            throw CLIFailure(message: "providers.json points at the emulator on several ports: \(list); give --port")
        }
        return found.keys.first
    }

    /// The port of `text` when it is a URL or `host:port` on a loopback host with an explicit port.
    static func loopbackPort(_ text: String) -> Int? {
        let loopback: Set<String> = ["127.0.0.1", "localhost", "::1"]
        if text.contains("://") {
            guard let url = URL(string: text), let host = url.host?.lowercased(), loopback.contains(host),
                  let port = url.port, (1...65_535).contains(port) else { return nil }
            return port
        }
        // host:port (Firebase `emulatorHost`)
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, loopback.contains(parts[0].lowercased()), let port = Int(parts[1]), (1...65_535).contains(port) else {
            return nil
        }
        return port
    }
}
