import Foundation

/// Reads, validates and resolves providers.json.
///
/// <!-- example: context data: Data -->
/// ```swift
/// let loader = ConfigLoader(registry: .builtIn)
/// let environment = try loader.load(contentsOf: "providers.json")        // $AUTHHUB_ENV or the default
/// let problems = loader.validate(data: data, allEnvironments: true)    // every problem, none thrown
/// ```
///
/// Validation reports every problem at once, each with its JSON path
/// (`environments.production.providers[1].clientId: required`), in document order: malformed
/// JSON (with line and column), unknown or duplicate keys (with a "did you mean" hint), unknown
/// environments, unknown provider types (listing the known ones), duplicate provider ids,
/// missing, extra and mistyped fields, bad URLs, domains and `host:port` values, an unknown
/// `defaultProvider`, an unknown `transport`, unset `${VAR}` references, an unknown session store type
/// (listing `file`, `memory` and the registered ``SessionStoreFactory`` types), a file store's key that
/// is not 32 bytes of base64, and whatever each provider plugin's and store factory's own `validate(_:)` finds.
/// A store factory's fields are checked as a provider plugin's are.
///
/// String values of provider fields and of `sessionStore` may reference environment variables:
/// `${VAR}` (must be set), `${VAR:-default}` (falls back when unset or empty) and `$${` for a
/// literal `${`. Integer and boolean fields accept a string made of such references
/// (`"${TTL:-900}"`). Names (`id`, `type`, environment names) are taken literally.
///
/// Messages never contain field values, so nothing secret can leak; they may name environments,
/// provider ids and types, fields and variables.
///
/// Decisions where DESIGN.md is silent: `defaultEnvironment` is optional when the file has a single
/// environment; `defaultProvider` is optional when an environment has a single provider;
/// `sessionStore` defaults to `{"type": "memory"}`; `transport` (a name, not `${VAR}`-resolved:
/// `urlsession`, `async-http-client` or a registered ``TransportFactory``'s) defaults to
/// `urlsession`; `$schema` is allowed at the top level.
public struct ConfigLoader: Sendable {
    /// The environment variable that selects the environment when none is given explicitly.
    public static let environmentVariable = "AUTHHUB_ENV"
    /// The largest providers.json accepted: 1 MiB (a file with 200 providers is ~40 KiB). A larger
    /// file or `Data` is refused with one problem before it is parsed, so a hostile or mistaken
    /// file cannot take seconds of CPU and gigabytes of memory.
    public static let maxFileBytes = 1 << 20

    /// The provider types, store factories and transports the file may use.
    public let registry: ProviderRegistry
    /// The variables `${VAR}` references resolve against (and `AUTHHUB_ENV` is read from).
    public let environmentVariables: [String: String]

    /// Creates a loader.
    /// - Parameters:
    ///   - registry: the provider types known to the app, e.g. `.builtIn`.
    ///   - environmentVariables: what `${VAR}` and `AUTHHUB_ENV` read; the process environment by default.
    public init(registry: ProviderRegistry, environmentVariables: [String: String] = ProcessInfo.processInfo.environment) {
        self.registry = registry
        self.environmentVariables = environmentVariables
    }

    /// Parses, validates and returns the selected environment with every `${VAR}` resolved and
    /// defaults applied.
    /// - Parameters:
    ///   - data: the providers.json bytes.
    ///   - environment: the environment to use; nil selects by ``environmentName(explicit:defaultEnvironment:)``.
    ///   - file: the file name, for the error's description.
    /// - Throws: ``ConfigurationError`` listing every problem found (never just the first).
    public func load(data: Data, environment: String? = nil, file: String? = nil) throws -> EnvironmentConfiguration {
        let (problems, environments, selected) = analyze(data, selection: .one(explicit: environment))
        guard problems.isEmpty, let selected, let chosen = environments.first(where: { $0.name == selected }) else {
            throw ConfigurationError(file: file, problems: problems.isEmpty
                ? [ConfigProblem(path: "", message: "no environment could be selected")] : problems)
        }
        return chosen
    }

    /// Reads the file at `path`, then behaves as ``load(data:environment:file:)``.
    /// - Throws: ``ConfigurationError``; an unreadable file is one problem saying why.
    public func load(contentsOf path: String, environment: String? = nil) throws -> EnvironmentConfiguration {
        try load(data: try Self.contents(ofFile: path), environment: environment, file: path)
    }

    /// Parses, validates and resolves every environment (every `${VAR}` must be resolvable), in
    /// file order.
    /// - Throws: ``ConfigurationError`` listing every problem in every environment.
    public func loadAll(data: Data, file: String? = nil) throws -> [EnvironmentConfiguration] {
        let (problems, environments, _) = analyze(data, selection: .all(explicit: nil))
        guard problems.isEmpty else { throw ConfigurationError(file: file, problems: problems) }
        return environments
    }

    /// Validation only: every problem, each with its JSON path, in document order.
    ///
    /// The structure of every environment is always checked; `${VAR}` references are resolved only
    /// in the selected environment, or in all of them with `allEnvironments`.
    /// - Parameters:
    ///   - environment: the environment to resolve (see ``environmentName(explicit:defaultEnvironment:)``).
    ///   - allEnvironments: resolve every environment (for CI, with production variables set).
    /// - Returns: the problems; empty when the file is valid.
    public func validate(data: Data, environment: String? = nil, allEnvironments: Bool = false) -> [ConfigProblem] {
        analyze(data, selection: allEnvironments ? .all(explicit: environment) : .one(explicit: environment)).problems
    }

    /// The environment to use: `explicit` > `AUTHHUB_ENV` (when set and not empty) > `defaultEnvironment`.
    public func environmentName(explicit: String?, defaultEnvironment: String?) -> String? {
        if let explicit { return explicit }
        if let variable = environmentVariables[Self.environmentVariable], !variable.isEmpty { return variable }
        return defaultEnvironment
    }

    // MARK: Internals

    func analyze(_ data: Data, selection: ConfigValidator.Selection)
        -> (problems: [ConfigProblem], environments: [EnvironmentConfiguration], selected: String?)
    {
        guard data.count <= Self.maxFileBytes else {
            return ([ConfigProblem(path: "", message: "the file is larger than \(Self.maxFileBytes) bytes")], [], nil)
        }
        let root: JSONSourceNode
        do {
            root = try JSONSourceParser().parse(data)
        } catch {
            return ([ConfigProblem(path: "", message: "malformed JSON at \(error.description)")], [], nil)
        }
        var validator = ConfigValidator(registry: registry, environmentVariables: environmentVariables)
        let (environments, selected) = validator.run(root, selection: selection)
        return (validator.problems, environments, selected)
    }

    /// Reads a configuration file.
    /// - Throws: ``ConfigurationError`` with one problem (`file not found`, …) when it cannot be read.
    public static func contents(ofFile path: String) throws -> Data {
        func problem(_ message: String) -> ConfigurationError {
            ConfigurationError(file: path, problems: [ConfigProblem(path: "", message: message)])
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw problem("file not found") }
        guard !isDirectory.boolValue else { throw problem("is a directory, not a file") }
        // Symbolic links are followed (deployments link config files into place), but the target must
        // be a regular file of at most `maxFileBytes`: a FIFO or device never hangs the read.
        let data: Data?
        do {
            data = try POSIXFile.contents(of: path, maxBytes: maxFileBytes, followSymlinks: true)
        } catch let error as AuthError {
            switch error.details[POSIXFile.refusalKey] {
            case "notRegularFile": throw problem("is not a regular file")
            case "tooLarge": throw problem("the file is larger than \(maxFileBytes) bytes")
            default: throw problem("file cannot be read")
            }
        }
        guard let data else { throw problem("file not found") }
        return data
    }
}
