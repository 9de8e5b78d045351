import AuthHub
import Foundation

/// The `Auth0-Client` telemetry header (<doc:Auth0Endpoints>: “Conventions”): base64url (no padding) of compact JSON
/// `{"name", "version", "env": {"swift", "<OS>": "<major>.<minor>"}}`, plus `"core"` when a wrapping
/// library reports its own name.
public struct Auth0Telemetry: Sendable, Hashable {
    /// The header name.
    public static let headerName = HTTPField.Name.constant("Auth0-Client")
    /// AuthHub's own library name and version.
    public static let library = (name: "AuthHub", version: "0.1.0")

    /// The reported library name.
    public var name: String
    /// The reported library version.
    public var version: String
    /// AuthHub's version, when a wrapping library reports itself as `name`.
    public var core: String?

    /// AuthHub itself.
    public init() {
        self.name = Self.library.name
        self.version = Self.library.version
        self.core = nil
    }

    /// A library wrapping AuthHub (`using(inLibrary:version:)`).
    public init(wrappingLibrary name: String, version: String) {
        self.name = name
        self.version = version
        self.core = Self.library.version
    }

    /// `[OS name: "major.minor"]` of the running system.
    static var operatingSystem: (String, String) {
        let v = ProcessInfo.processInfo.operatingSystemVersion
        #if os(Linux)
        let name = "Linux"
        #elseif os(macOS)
        let name = "macOS"
        #elseif os(iOS)
        let name = "iOS"
        #else
        let name = "unknown"
        #endif
        return (name, "\(v.majorVersion).\(v.minorVersion)")
    }

    /// The header value.
    public var value: String {
        #if swift(>=6.3)
        let swift = "6.3"
        #elseif swift(>=6.2)
        let swift = "6.2"
        #elseif swift(>=6.1)
        let swift = "6.1"
        #else
        let swift = "6.0"
        #endif
        let os = Self.operatingSystem
        var env: [String: JSONValue] = ["swift": .string(swift), os.0: .string(os.1)]
        if let core { env["core"] = .string(core) }
        let json: JSONValue = ["name": .string(name), "version": .string(version), "env": .object(env)]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Base64URL.encode((try? encoder.encode(json)) ?? Data())
    }
}
