import Foundation
import Logging

/// One field a plugin accepts in its providers.json entry.
///
/// Declarations drive validation, `authhub providers`, the generated `providers.schema.json` and the
/// docs, so a field is described in exactly one place.
public struct ConfigField: Sendable, Hashable {
    /// The JSON type and format a field takes.
    public enum Kind: Sendable, Hashable {
        /// Any string.
        case string
        /// An absolute `http`/`https` URL with a host.
        case url
        /// A bare domain (`tenant.eu.auth0.com`) or an absolute `http`/`https` URL.
        case domainOrURL
        /// `host:port`, e.g. `127.0.0.1:8750`.
        case hostPort
        /// A whole number.
        case integer
        /// `true` or `false`.
        case boolean
        /// An array of strings.
        case stringArray
        /// One of a fixed set of strings.
        case oneOf([String])
        /// A JSON object of string values.
        case stringMap

        /// A short name for messages and docs.
        public var name: String {
            switch self {
            case .string: "string"
            case .url: "URL"
            case .domainOrURL: "domain or URL"
            case .hostPort: "host:port"
            case .integer: "integer"
            case .boolean: "boolean"
            case .stringArray: "array of strings"
            case .oneOf(let values): "one of " + values.map { "\"\($0)\"" }.joined(separator: ", ")
            case .stringMap: "object of strings"
            }
        }
    }

    public var name: String
    public var kind: Kind
    public var required: Bool
    /// A secret field is never echoed back, and should come from `${VAR}` rather than the file.
    public var secret: Bool
    public var description: String
    /// The value used when the field is absent.
    public var defaultValue: JSONValue?

    public init(_ name: String, _ kind: Kind, required: Bool = false, secret: Bool = false,
                description: String, defaultValue: JSONValue? = nil) {
        self.name = name
        self.kind = kind
        self.required = required
        self.secret = secret
        self.description = description
        self.defaultValue = defaultValue
    }
}

/// A problem found in providers.json: where (a JSON path) and what.
public struct ConfigProblem: Sendable, Hashable, CustomStringConvertible, Comparable {
    /// The JSON path, e.g. `environments.production.providers[1].clientId`.
    public var path: String
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    /// `path: message`.
    public var description: String { path.isEmpty ? message : "\(path): \(message)" }

    public static func < (l: ConfigProblem, r: ConfigProblem) -> Bool { (l.path, l.message) < (r.path, r.message) }
}

/// The settings of one provider entry after `${VAR}` substitution and defaults.
public struct ProviderConfiguration: Sendable {
    /// The entry's `id`.
    public var id: String
    /// The entry's `type`.
    public var type: String
    /// The JSON path of the entry (for messages), e.g. `environments.development.providers[0]`.
    public var path: String
    /// Field values by name (defaults applied). Secret fields are here too: use ``secret(_:)``.
    public var values: [String: JSONValue]

    public init(id: String, type: String, path: String = "", values: [String: JSONValue]) {
        self.id = id
        self.type = type
        self.path = path
        self.values = values
    }

    /// A string field.
    public func string(_ name: String) -> String? { values[name]?.stringValue }
    /// A secret string field, wrapped.
    public func secret(_ name: String) -> Secret<String>? { values[name]?.stringValue.map(Secret.init) }
    /// An integer field.
    public func int(_ name: String) -> Int? { values[name]?.intValue }
    /// A boolean field.
    public func bool(_ name: String) -> Bool? { values[name]?.boolValue }
    /// A string-array field.
    public func strings(_ name: String) -> [String]? { values[name]?.arrayValue?.compactMap(\.stringValue) }
    /// A URL field; a `domainOrURL` field without a scheme gets `https://`.
    public func url(_ name: String) -> URL? {
        guard let raw = string(name) else { return nil }
        if raw.hasPrefix("http://") || raw.hasPrefix("https://") { return URL(string: raw) }
        return URL(string: "https://" + raw)
    }

    /// A required string field, or an ``AuthErrorCode/invalidConfiguration`` error naming it.
    public func requiredString(_ name: String) throws -> String {
        guard let value = string(name), !value.isEmpty else {
            throw AuthError(.invalidConfiguration, message: "\(path.isEmpty ? id : path).\(name): required", provider: id)
        }
        return value
    }
}

/// What a plugin gets to build a provider: the shared transport, clock, randomness and logger, and
/// the passkey authenticator that `.passkey` sign-ins use.
public struct ProviderContext: Sendable {
    /// The transport every provider sends through.
    ///
    /// Set in code (here or by assigning it), it wins over the environment's `transport` in
    /// providers.json. Left unset, a hub uses the transport the environment names (through the
    /// ``TransportFactory`` registered for it), and a `URLSessionTransport` when it names none; a
    /// hub's own ``AuthHub/context`` holds the transport it resolved.
    public var transport: any HTTPTransport {
        get { explicitTransport ?? URLSessionTransport() }
        set { explicitTransport = newValue }
    }
    /// The transport set in code, or nil when none was (see ``transport``).
    public private(set) var explicitTransport: (any HTTPTransport)?
    public var clock: any AuthClock
    public var random: any RandomSource
    public var logger: Logger
    /// The authenticator a provider drives for ``SignInRequest/passkey(identifier:)`` (a platform
    /// authenticator on Apple, `SoftwarePasskeyAuthenticator` from AuthHubFactors on Linux); nil when
    /// the app offers no passkeys, in which case a passkey sign-in fails with `invalidConfiguration`.
    public var passkeyAuthenticator: (any PasskeyAuthenticator)?
    /// Where metrics and spans go (by default swift-metrics' and swift-distributed-tracing's
    /// process-wide systems, which do nothing until the app bootstraps them).
    public var telemetry: AuthTelemetry
    /// The latest `DPoP-Nonce` of each server (RFC 9449), shared by every provider of a hub so a
    /// proof carries the nonce its server last gave.
    public var dpopNonces = DPoPNonceCache()

    /// Creates a context.
    /// - Parameters:
    ///   - transport: the transport every provider sends through; nil (the default) lets the
    ///     environment's `transport` in providers.json choose, else `URLSessionTransport`.
    ///   - clock: the clock sessions expire by.
    ///   - random: the source of state, nonce and PKCE values.
    ///   - logger: where providers log (secrets redacted).
    ///   - passkeyAuthenticator: the authenticator passkey sign-ins drive.
    ///   - telemetry: where metrics and spans go.
    public init(transport: (any HTTPTransport)? = nil, clock: any AuthClock = SystemClock(),
                random: any RandomSource = SystemRandom(), logger: Logger = Logger(label: "authhub"),
                passkeyAuthenticator: (any PasskeyAuthenticator)? = nil, telemetry: AuthTelemetry = .default) {
        self.explicitTransport = transport
        self.clock = clock
        self.random = random
        self.logger = logger
        self.passkeyAuthenticator = passkeyAuthenticator
        self.telemetry = telemetry
    }
}

/// A provider type that can appear in providers.json: its name, its fields and a factory.
///
/// Third-party packages implement this protocol and register their plugin with
/// ``ProviderRegistry/registering(_:)``; nothing in AuthHub needs to change.
public protocol ProviderPlugin: Sendable {
    /// The `type` value in providers.json (`auth0`, `firebase`, …).
    var type: String { get }
    /// One line saying what the plugin connects to.
    var summary: String { get }
    /// The fields an entry of this type accepts (besides `id` and `type`).
    var fields: [ConfigField] { get }
    /// What providers of this type can do.
    var capabilities: Set<AuthCapability> { get }
    /// Checks across fields that declarations cannot express; paths are relative to the entry
    /// (e.g. `domain`). The default finds nothing.
    func validate(_ configuration: ProviderConfiguration) -> [ConfigProblem]
    /// Builds a provider from a validated entry.
    func makeProvider(_ configuration: ProviderConfiguration, context: ProviderContext) throws -> any AuthProvider
}

extension ProviderPlugin {
    public func validate(_ configuration: ProviderConfiguration) -> [ConfigProblem] { [] }
}

/// The provider types an app knows, by `type` name, the factories of session store types besides
/// core's `memory` and `file` (see ``SessionStoreFactory``) and of transports.
public struct ProviderRegistry: Sendable {
    private var plugins: [String: any ProviderPlugin]
    private var storeFactories: [String: any SessionStoreFactory] = [:]
    private var transportFactories: [String: any TransportFactory] = [:]
    /// Builds an environment's `heldFactors` (AuthHub's own factors); nil: such an environment is refused.
    public private(set) var heldFactorFactory: (any HeldFactorServiceFactory)?

    /// A registry of the given plugins; a later plugin with the same type replaces an earlier one.
    public init(_ plugins: [any ProviderPlugin] = []) {
        var map: [String: any ProviderPlugin] = [:]
        for p in plugins { map[p.type] = p }
        self.plugins = map
    }

    /// Adds (or replaces) a plugin.
    public mutating func register(_ plugin: any ProviderPlugin) { plugins[plugin.type] = plugin }

    /// A copy with `plugin` added (or replacing the one of the same type).
    public func registering(_ plugin: any ProviderPlugin) -> ProviderRegistry {
        var copy = self
        copy.register(plugin)
        return copy
    }

    /// The plugin for a type name.
    public func plugin(for type: String) -> (any ProviderPlugin)? { plugins[type] }

    /// Every known type, sorted.
    public var types: [String] { plugins.keys.sorted() }

    /// Every plugin, sorted by type.
    public var all: [any ProviderPlugin] { types.compactMap { plugins[$0] } }

    /// Adds (or replaces) the factory of a session store type. A factory for `memory` or `file`
    /// replaces core's own (as a transport factory for `urlsession` does).
    public mutating func register(storeFactory: any SessionStoreFactory) { storeFactories[storeFactory.storeType] = storeFactory }

    /// A copy whose environments' `heldFactors` are built by `heldFactorFactory`.
    public func registering(heldFactorFactory: any HeldFactorServiceFactory) -> ProviderRegistry {
        var copy = self
        copy.heldFactorFactory = heldFactorFactory
        return copy
    }

    /// A copy with `storeFactory` added (or replacing the one of the same store type).
    public func registering(storeFactory: any SessionStoreFactory) -> ProviderRegistry {
        var copy = self
        copy.register(storeFactory: storeFactory)
        return copy
    }

    /// The factory registered for a `sessionStore.type`, if any.
    public func storeFactory(for storeType: String) -> (any SessionStoreFactory)? { storeFactories[storeType] }

    /// Every registered store factory, sorted by type.
    public var allStoreFactories: [any SessionStoreFactory] { storeFactories.keys.sorted().compactMap { storeFactories[$0] } }

    /// Every `sessionStore.type` providers.json may use, sorted: core's `file` and `memory` and every
    /// registered factory's.
    public var storeTypes: [String] { Array(Set(SessionStoreConfiguration.builtInTypes).union(storeFactories.keys)).sorted() }

    /// Adds (or replaces) the factory of a transport name (an environment's `transport`).
    public mutating func register(transportFactory: any TransportFactory) {
        transportFactories[transportFactory.transportName] = transportFactory
    }

    /// A copy with `transportFactory` added (or replacing the one of the same name).
    public func registering(transportFactory: any TransportFactory) -> ProviderRegistry {
        var copy = self
        copy.register(transportFactory: transportFactory)
        return copy
    }

    /// The factory registered for a `transport` name, if any.
    public func transportFactory(for name: String) -> (any TransportFactory)? { transportFactories[name] }

    /// Every `transport` name providers.json may use, sorted: the built-in names and every registered one.
    public var transportNames: [String] { Array(Set(TransportName.builtIn).union(transportFactories.keys)).sorted() }

    /// The transport an environment's `transport` names: a `URLSessionTransport` for nil or
    /// `urlsession` (unless a factory was registered for that name), else the registered factory's.
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` when no factory builds `name`.
    public func makeTransport(named name: String?, logger: Logger) throws -> any HTTPTransport {
        let name = name ?? TransportName.urlSession
        if let factory = transportFactories[name] { return try factory.makeTransport(logger: logger) }
        if name == TransportName.urlSession { return URLSessionTransport() }
        if name == TransportName.asyncHTTPClient {
            throw AuthError(.invalidConfiguration,
                            message: "transport 'async-http-client' needs the AuthHubAsyncHTTPClient module: import it and register its "
                                + "transport factory (registry.registering(transportFactory: AsyncHTTPClientTransportFactory())).")
        }
        throw AuthError(.invalidConfiguration,
                        message: "No transport factory builds transport '\(name)' (known: \(transportNames.joined(separator: ", "))).")
    }
}
