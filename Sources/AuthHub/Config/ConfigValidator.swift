import Foundation

/// Walks a parsed providers.json, collecting every problem with its JSON path and building the
/// environments that were resolved. Used by ``ConfigLoader``; one validator per run.
///
/// Environments are checked in one of two modes:
/// - *resolve*: `${VAR}` references are substituted (an unset variable is a problem) and every
///   value is checked, then the plugin's own `validate(_:)` runs;
/// - *syntax only*: no variable is read; reference syntax is checked, and values containing a
///   reference skip format checks (they are unknown until the environment is selected).
///
/// Messages contain names (environment names, provider ids and types, variable names, field
/// names) but never field values, so nothing secret can leak into a log or a terminal.
struct ConfigValidator {
    enum Mode { case resolve, syntaxOnly }

    /// How the environment to resolve was chosen.
    enum Selection: Sendable {
        /// Resolve one environment: the explicit name, else `AUTHHUB_ENV`, else `defaultEnvironment`.
        case one(explicit: String?)
        /// Resolve every environment (an explicit name, if given, must still exist).
        case all(explicit: String?)
    }

    let registry: ProviderRegistry
    let environmentVariables: [String: String]
    private(set) var problems: [ConfigProblem] = []

    init(registry: ProviderRegistry, environmentVariables: [String: String]) {
        self.registry = registry
        self.environmentVariables = environmentVariables
    }

    static let rootKeys = ["$schema", "defaultEnvironment", "environments"]
    static let environmentKeys = ["defaultProvider", "sessionStore", "transport", "heldFactors", "providers"]

    // MARK: Root

    /// Validates the document; returns the resolved environments (in document order) and the name
    /// of the selected one. Results are meaningful only when ``problems`` is empty.
    ///
    /// Problems come in document order: a problem about the selection first, then each key's
    /// problems where the key appears, then missing keys.
    mutating func run(_ root: JSONSourceNode, selection: Selection) -> (environments: [EnvironmentConfiguration], selected: String?) {
        guard let members = root.members else {
            report("", "the top level must be an object, found \(root.typeName)")
            return ([], nil)
        }
        let environmentsNode = root["environments"]
        let environmentMembers = environmentsNode?.members ?? []
        let names = unique(environmentMembers.map(\.key))
        let known = "known: " + (names.isEmpty ? "none" : names.joined(separator: ", "))
        let defaultEnvironment = root["defaultEnvironment"]?.string

        // Which environment is selected, and which get their variables resolved.
        var resolving: Set<String> = []
        var selected: String?
        switch selection {
        case .all(let explicit):
            resolving = Set(names)
            if let explicit, !names.contains(explicit), !names.isEmpty {
                report("", "unknown environment \(quoted(explicit)) (\(known))")
            }
            selected = explicit
        case .one(let explicit):
            let fromVariable = environmentVariables[ConfigLoader.environmentVariable].flatMap { $0.isEmpty ? nil : $0 }
            if let name = explicit ?? fromVariable ?? defaultEnvironment {
                if names.contains(name) {
                    selected = name
                } else if explicit == nil, fromVariable == nil {
                    // An unknown defaultEnvironment is reported at its own path below.
                } else if !names.isEmpty {
                    let source = explicit != nil ? "selected explicitly" : "selected by \(ConfigLoader.environmentVariable)"
                    report("", "unknown environment \(quoted(name)) \(source) (\(known))")
                }
            } else if names.count == 1 {
                selected = names[0]
            } else if names.count > 1 {
                report("", "no environment selected: pass one explicitly (--env), set \(ConfigLoader.environmentVariable) or add defaultEnvironment (\(known))")
            }
            if let selected { resolving = [selected] }
        }

        var environments: [EnvironmentConfiguration] = []
        var seenKeys: [String: Int] = [:]
        for member in members {
            if let line = seenKeys[member.key] {
                report(Self.path("", member.key), "duplicate key (first defined on line \(line))")
                continue
            }
            seenKeys[member.key] = member.keyPosition.line
            switch member.key {
            case "$schema":
                if member.value.string == nil { report("$schema", "expected string, found \(member.value.typeName)") }
            case "defaultEnvironment":
                if let name = member.value.string {
                    if environmentsNode?.members != nil, !names.isEmpty, !names.contains(name) {
                        report("defaultEnvironment", "unknown environment \(quoted(name)) (\(known))")
                    }
                } else {
                    report("defaultEnvironment", "expected string, found \(member.value.typeName)")
                }
            case "environments":
                guard member.value.members != nil else {
                    report("environments", "expected object, found \(member.value.typeName)")
                    continue
                }
                if names.isEmpty { report("environments", "must define at least one environment") }
                var seen: [String: Int] = [:]
                for environment in environmentMembers {
                    if let line = seen[environment.key] {
                        report(Self.path("environments", environment.key), "duplicate key (first defined on line \(line))")
                        continue
                    }
                    seen[environment.key] = environment.keyPosition.line
                    let mode: Mode = resolving.contains(environment.key) ? .resolve : .syntaxOnly
                    let path = Self.path("environments", environment.key)
                    if let env = self.environment(environment.value, name: environment.key, path: path, mode: mode), mode == .resolve {
                        environments.append(env)
                    }
                }
            default:
                reportUnknown(member.key, path: "", allowed: Self.rootKeys, what: "key")
            }
        }
        if environmentsNode == nil { report("environments", "required") }
        return (environments, selected)
    }

    // MARK: Environment

    mutating func environment(_ node: JSONSourceNode, name: String, path: String, mode: Mode) -> EnvironmentConfiguration? {
        guard let members = node.members else {
            report(path, "expected object, found \(node.typeName)")
            return nil
        }
        // The ids, first occurrence each, for checking defaultProvider wherever it appears.
        var knownIDs: [String] = []
        for element in node["providers"]?.elements ?? [] {
            if let id = element["id"]?.string, Self.isValidID(id), !knownIDs.contains(id) { knownIDs.append(id) }
        }

        var providers: [ProviderConfiguration] = []
        var defaultProvider: String?
        var store: SessionStoreConfiguration = .memory
        var transport: String?
        var heldFactors: HeldFactorSettings?
        var seenKeys: [String: Int] = [:]
        for member in members {
            let memberPath = Self.path(path, member.key)
            if let line = seenKeys[member.key] {
                report(memberPath, "duplicate key (first defined on line \(line))")
                continue
            }
            seenKeys[member.key] = member.keyPosition.line
            switch member.key {
            case "providers":
                providers = providerList(member.value, path: memberPath, mode: mode)
            case "defaultProvider":
                guard let id = member.value.string else {
                    report(memberPath, "expected string, found \(member.value.typeName)")
                    continue
                }
                if knownIDs.contains(id) {
                    defaultProvider = id
                } else {
                    report(memberPath, "unknown provider \(quoted(id)) (ids: \(knownIDs.isEmpty ? "none" : knownIDs.joined(separator: ", ")))")
                }
            case "sessionStore":
                store = sessionStore(member.value, path: memberPath, mode: mode) ?? .memory
            case "transport":
                guard let name = member.value.string else {
                    report(memberPath, "expected string, found \(member.value.typeName)")
                    continue
                }
                let known = registry.transportNames
                if known.contains(name) {
                    transport = name
                } else {
                    report(memberPath, "unknown transport \(quoted(name)) (known: \(known.joined(separator: ", ")))")
                }
            case "heldFactors":
                heldFactors = heldFactorSettings(member.value, path: memberPath, knownIDs: knownIDs)
            default:
                reportUnknown(member.key, path: path, allowed: Self.environmentKeys, what: "key")
            }
        }
        if seenKeys["providers"] == nil { report(Self.path(path, "providers"), "required") }
        if seenKeys["defaultProvider"] == nil {
            if knownIDs.count == 1 {
                defaultProvider = knownIDs[0]
            } else if knownIDs.count > 1 {
                report(Self.path(path, "defaultProvider"), "required when an environment has more than one provider")
            }
        }

        guard mode == .resolve, let defaultProvider else { return nil }
        return EnvironmentConfiguration(name: name, defaultProvider: defaultProvider, sessionStore: store, providers: providers,
                                        transport: transport, heldFactors: heldFactors)
    }

    /// Checks `heldFactors`: known keys, provider ids of this environment, known kinds, a relying
    /// party for passkeys, origins that are URLs of a web origin.
    mutating func heldFactorSettings(_ node: JSONSourceNode, path: String, knownIDs: [String]) -> HeldFactorSettings? {
        guard let members = node.members else {
            report(path, "expected object, found \(node.typeName)")
            return nil
        }
        let before = problems.count
        func strings(_ key: String) -> [String]? {
            guard let value = node[key] else { return nil }
            guard let elements = value.elements else {
                report(Self.path(path, key), "expected array of strings, found \(value.typeName)")
                return nil
            }
            var out: [String] = []
            for (index, element) in elements.enumerated() {
                guard let text = element.string else {
                    report("\(Self.path(path, key))[\(index)]", "expected string, found \(element.typeName)")
                    continue
                }
                out.append(text)
            }
            return out
        }
        func string(_ key: String) -> String? {
            guard let value = node[key] else { return nil }
            guard let text = value.string, !text.isEmpty else {
                report(Self.path(path, key), "expected a non-empty string, found \(value.typeName)")
                return nil
            }
            return text
        }
        for member in members where !HeldFactorSettings.keys.contains(member.key) {
            reportUnknown(member.key, path: path, allowed: HeldFactorSettings.keys, what: "key for heldFactors")
        }
        let providers = strings("providers") ?? []
        if node["providers"] == nil { report(Self.path(path, "providers"), "required") }
        else if providers.isEmpty { report(Self.path(path, "providers"), "at least one provider id") }
        for (index, id) in providers.enumerated() where !knownIDs.contains(id) {
            report("\(Self.path(path, "providers"))[\(index)]", "unknown provider \(quoted(id)) (ids: \(knownIDs.isEmpty ? "none" : knownIDs.joined(separator: ", ")))")
        }
        let kinds = strings("kinds").map { names in names.map(FactorKind.init(rawValue:)) }
        for (index, kind) in (kinds ?? []).enumerated() where !HeldFactorSettings.knownKinds.contains(kind) {
            report("\(Self.path(path, "kinds"))[\(index)]", "unknown kind \(quoted(kind.rawValue)) (known: totp, passkey, recoveryCode)")
        }
        let relyingPartyID = string("relyingPartyID")
        if let relyingPartyID, relyingPartyID.contains(where: { !($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }) {
            report(Self.path(path, "relyingPartyID"), "expected a domain (app.example.com), without scheme, port or path")
        }
        let origins = strings("origins") ?? []
        for (index, origin) in origins.enumerated() {
            guard let url = URL(string: origin), let scheme = url.scheme, ["https", "http"].contains(scheme), url.host != nil,
                  url.path.isEmpty, url.query == nil, url.fragment == nil else {
                report("\(Self.path(path, "origins"))[\(index)]", "expected a web origin (https://app.example.com)")
                continue
            }
        }
        let settings = HeldFactorSettings(providers: providers, kinds: kinds, issuer: string("issuer"), relyingPartyID: relyingPartyID, origins: origins)
        if settings.kinds.contains(.passkey), relyingPartyID == nil {
            report(Self.path(path, "relyingPartyID"), "required for passkeys")
        }
        return problems.count == before ? settings : nil
    }

    /// Checks the `providers` array: every entry, then unique ids.
    mutating func providerList(_ node: JSONSourceNode, path: String, mode: Mode) -> [ProviderConfiguration] {
        guard let elements = node.elements else {
            report(path, "expected array, found \(node.typeName)")
            return []
        }
        if elements.isEmpty { report(path, "must list at least one provider") }
        var providers: [ProviderConfiguration] = []
        var firstIndexByID: [String: Int] = [:]
        for (index, element) in elements.enumerated() {
            let entryPath = "\(path)[\(index)]"
            let (id, configuration) = provider(element, path: entryPath, mode: mode)
            if let id {
                if let first = firstIndexByID[id] {
                    report(Self.path(entryPath, "id"), "duplicate provider id \(quoted(id)) (also at providers[\(first)])")
                } else {
                    firstIndexByID[id] = index
                }
            }
            if let configuration { providers.append(configuration) }
        }
        return providers
    }

    // MARK: Session store

    /// Every key some known store type accepts (for messages when `type` is missing or wrong):
    /// `type`, the `file` store's fields and every registered factory's.
    var storeKeys: [String] {
        let names = ["type"] + SessionStoreConfiguration.fileFields.map(\.name) + registry.allStoreFactories.flatMap { $0.fields.map(\.name) }
        return unique(names)
    }

    mutating func sessionStore(_ node: JSONSourceNode, path: String, mode: Mode) -> SessionStoreConfiguration? {
        guard let members = node.members else {
            report(path, "expected object, found \(node.typeName)")
            return nil
        }
        let typePath = Self.path(path, "type")
        let knownTypes = registry.storeTypes
        guard let typeNode = node["type"] else {
            checkKeys(members, path: path, allowed: storeKeys, what: "key")
            report(typePath, "required (one of: \(knownTypes.joined(separator: ", ")))")
            return nil
        }
        guard let type = typeNode.string else {
            checkKeys(members, path: path, allowed: storeKeys, what: "key")
            report(typePath, "expected string, found \(typeNode.typeName)")
            return nil
        }
        if let factory = registry.storeFactory(for: type) {
            return pluginStore(factory, node, members: members, path: path, mode: mode)
        }
        switch type {
        case SessionStoreConfiguration.memoryType:
            checkKeys(members, path: path, allowed: ["type"], what: "key for a memory store")
            return .memory
        case SessionStoreConfiguration.fileType:
            let fields = SessionStoreConfiguration.fileFields
            checkKeys(members, path: path, allowed: ["type"] + fields.map(\.name), what: "key for a file store")
            let directory = fieldValue(fields[0], node["path"], path: Self.path(path, "path"), mode: mode)
            let key = storeEncryptionKey(fields[1], node["encryptionKey"], path: Self.path(path, "encryptionKey"), mode: mode)
            guard case .value(.string(let directoryPath)) = directory else { return nil }
            return .file(path: directoryPath, encryptionKey: key)
        default:
            report(typePath, "unknown session store type \(quoted(type)) (known: \(knownTypes.joined(separator: ", ")))")
            return nil
        }
    }

    /// A `sessionStore` of a type a registered factory builds: its declared fields checked as a
    /// provider entry's are, then the factory's own checks (which run even when a field has a
    /// problem, so that every problem is reported at once).
    mutating func pluginStore(_ factory: any SessionStoreFactory, _ node: JSONSourceNode, members: [JSONSourceNode.Member],
                              path: String, mode: Mode) -> SessionStoreConfiguration? {
        let problemsBefore = problems.count
        checkKeys(members, path: path, allowed: ["type"] + factory.fields.map(\.name), what: "key for a \(factory.storeType) store")
        var values: [String: JSONValue] = [:]
        var fromVariables: Set<String> = []
        var unresolved = false
        for field in factory.fields {
            let fieldPath = Self.path(path, field.name)
            guard let fieldNode = node[field.name] else {
                if let defaultValue = field.defaultValue {
                    values[field.name] = defaultValue
                } else if field.required {
                    report(fieldPath, "required")
                }
                continue
            }
            switch fieldValue(field, fieldNode, path: fieldPath, mode: mode) {
            case .value(let value):
                values[field.name] = value
                if let raw = fieldNode.string, VariableInterpolation.containsReference(raw) { fromVariables.insert(field.name) }
            case .unresolved: unresolved = true
            case .invalid, .absent: break
            }
        }
        let settings = SessionStoreSettings(type: factory.storeType, path: path, values: values,
                                            secretFields: Set(factory.fields.filter(\.secret).map(\.name)))
        for problem in factory.validate(settings) {
            let field = problem.path.prefix { $0 != "." && $0 != "[" }
            let suffix = fromVariables.contains(String(field)) ? " (after substituting environment variables)" : ""
            report(problem.path.isEmpty ? path : Self.join(path, problem.path), problem.message + suffix)
        }
        guard mode == .resolve, !unresolved, problems.count == problemsBefore else { return nil }
        return .plugin(settings)
    }

    /// A file store's `encryptionKey`: 32 bytes in base64 (surrounding spaces ignored), or nil when
    /// absent, unresolved or invalid (a problem is then reported, except for an absent optional key).
    mutating func storeEncryptionKey(_ field: ConfigField, _ node: JSONSourceNode?, path: String, mode: Mode) -> Secret<String>? {
        guard case .value(.string(let raw)) = fieldValue(field, node, path: path, mode: mode) else { return nil }
        guard ConfigValueFormat.isEncryptionKey(raw) else {
            report(path, ConfigValueFormat.encryptionKeyProblem)
            return nil
        }
        return Secret(ConfigValueFormat.trimmedEncryptionKey(raw))
    }

    // MARK: Provider entry

    /// Checks one provider entry; returns its id (when valid) and, in resolve mode, its configuration.
    mutating func provider(_ node: JSONSourceNode, path: String, mode: Mode) -> (String?, ProviderConfiguration?) {
        guard let members = node.members else {
            report(path, "expected object, found \(node.typeName)")
            return (nil, nil)
        }
        let problemsBefore = problems.count
        checkDuplicates(members, path: path)

        var id: String?
        let idPath = Self.path(path, "id")
        if let idNode = node["id"] {
            if let value = idNode.string {
                if Self.isValidID(value) { id = value } else {
                    report(idPath, "must be 1 to 64 letters, digits, '-' or '_'")
                }
            } else {
                report(idPath, "expected string, found \(idNode.typeName)")
            }
        } else {
            report(idPath, "required")
        }

        var plugin: (any ProviderPlugin)?
        let typePath = Self.path(path, "type")
        if let typeNode = node["type"] {
            if let type = typeNode.string {
                plugin = registry.plugin(for: type)
                if plugin == nil {
                    report(typePath, "unknown provider type \(quoted(type)) (known: \(registry.types.joined(separator: ", ")))")
                }
            } else {
                report(typePath, "expected string, found \(typeNode.typeName)")
            }
        } else {
            report(typePath, "required (known: \(registry.types.joined(separator: ", ")))")
        }
        guard let plugin else { return (id, nil) }

        let fieldNames = plugin.fields.map(\.name)
        var values: [String: JSONValue] = [:]
        var unresolved = false
        var seen: Set<String> = []
        for member in members where member.key != "id" && member.key != "type" && seen.insert(member.key).inserted {
            let memberPath = Self.path(path, member.key)
            guard let field = plugin.fields.first(where: { $0.name == member.key }) else {
                var message = "unknown field for type \(quoted(plugin.type))"
                if let suggestion = NameSuggester.closest(to: member.key, in: fieldNames + ["id", "type"]) {
                    message += " (did you mean '\(suggestion)'?)"
                } else {
                    message += " (fields: \(fieldNames.joined(separator: ", ")))"
                }
                report(memberPath, message)
                continue
            }
            switch fieldValue(field, member.value, path: memberPath, mode: mode) {
            case .value(let v): values[field.name] = v
            case .unresolved: unresolved = true
            case .invalid, .absent: break
            }
        }
        for field in plugin.fields where values[field.name] == nil && !seen.contains(field.name) {
            if let defaultValue = field.defaultValue {
                values[field.name] = defaultValue
            } else if field.required {
                report(Self.path(path, field.name), "required")
            }
        }

        let configuration = ProviderConfiguration(id: id ?? "", type: plugin.type, path: path, values: values)
        guard problems.count == problemsBefore, !unresolved, id != nil else { return (id, nil) }
        for problem in plugin.validate(configuration) {
            report(problem.path.isEmpty ? path : Self.join(path, problem.path), problem.message)
        }
        guard mode == .resolve, problems.count == problemsBefore else { return (id, nil) }
        return (id, configuration)
    }

    // MARK: Field values

    enum FieldOutcome {
        case value(JSONValue)
        /// Contains a reference not substituted in syntax-only mode.
        case unresolved
        /// A problem was reported.
        case invalid
        /// The node was missing.
        case absent
    }

    /// Type-checks, substitutes and format-checks one field value.
    mutating func fieldValue(_ field: ConfigField, _ node: JSONSourceNode?, path: String, mode: Mode) -> FieldOutcome {
        guard let node else {
            if field.required { report(path, "required") }
            return .absent
        }
        switch field.kind {
        case .string, .url, .domainOrURL, .hostPort, .oneOf:
            guard let raw = node.string else {
                report(path, "expected string, found \(node.typeName)")
                return .invalid
            }
            let substituted = substitute(raw, path: path, mode: mode)
            guard case .value(.string(let value), let fromVariables) = substituted else { return substituted.outcome }
            if let why = formatProblem(field, value) {
                report(path, fromVariables ? why + " (after substituting environment variables)" : why)
                return .invalid
            }
            return .value(.string(value))

        case .integer, .boolean:
            let isInteger = field.kind == .integer
            let expected = isInteger ? "integer" : "boolean"
            switch node.value {
            case .number(let d, _) where isInteger:
                guard d.rounded() == d, abs(d) < 9.0e15 else {
                    report(path, "expected integer, found a fractional number")
                    return .invalid
                }
                return .value(.number(d))
            case .bool(let b) where !isInteger:
                return .value(.bool(b))
            case .string(let raw) where VariableInterpolation.containsReference(raw):
                // `"${TTL:-900}"`: a number or boolean taken from the environment.
                let substituted = substitute(raw, path: path, mode: mode)
                guard case .value(.string(let text), _) = substituted else { return substituted.outcome }
                let trimmed = text.trimmingCharacters(in: .whitespaces)
                if isInteger, let n = Int(trimmed) { return .value(.number(Double(n))) }
                if !isInteger, trimmed == "true" || trimmed == "false" { return .value(.bool(trimmed == "true")) }
                report(path, "must be \(isInteger ? "an integer" : "true or false") (after substituting environment variables)")
                return .invalid
            default:
                report(path, "expected \(expected), found \(node.typeName)")
                return .invalid
            }

        case .stringArray:
            guard let elements = node.elements else {
                report(path, "expected array of strings, found \(node.typeName)")
                return .invalid
            }
            var result: [JSONValue] = []
            var outcome: FieldOutcome?
            for (index, element) in elements.enumerated() {
                let elementPath = "\(path)[\(index)]"
                guard let raw = element.string else {
                    report(elementPath, "expected string, found \(element.typeName)")
                    outcome = .invalid
                    continue
                }
                switch substitute(raw, path: elementPath, mode: mode) {
                case .value(let v, _): result.append(v)
                case let other: if outcome == nil || other.outcome.isInvalid { outcome = other.outcome }
                }
            }
            return outcome ?? .value(.array(result))

        case .stringMap:
            guard let members = node.members else {
                report(path, "expected object of strings, found \(node.typeName)")
                return .invalid
            }
            checkDuplicates(members, path: path)
            var result: [String: JSONValue] = [:]
            var outcome: FieldOutcome?
            for member in members {
                let memberPath = Self.path(path, member.key)
                guard let raw = member.value.string else {
                    report(memberPath, "expected string, found \(member.value.typeName)")
                    outcome = .invalid
                    continue
                }
                switch substitute(raw, path: memberPath, mode: mode) {
                case .value(let v, _): result[member.key] = v
                case let other: if outcome == nil || other.outcome.isInvalid { outcome = other.outcome }
                }
            }
            return outcome ?? .value(.object(result))
        }
    }

    /// The outcome of substituting one string.
    enum Substitution {
        case value(JSONValue, fromVariables: Bool)
        case unresolved
        case invalid

        var outcome: FieldOutcome {
            switch self {
            case .value(let v, _): .value(v)
            case .unresolved: .unresolved
            case .invalid: .invalid
            }
        }
    }

    mutating func substitute(_ raw: String, path: String, mode: Mode) -> Substitution {
        let interpolation = VariableInterpolation(variables: mode == .resolve ? environmentVariables : nil)
        let result = interpolation.interpolate(raw)
        if !result.issues.isEmpty {
            for issue in result.issues { report(path, issue.message) }
            return .invalid
        }
        if mode == .syntaxOnly, result.hasReferences { return .unresolved }
        return .value(.string(result.value), fromVariables: result.hasReferences)
    }

    /// Why a string does not fit the field's kind, or nil.
    func formatProblem(_ field: ConfigField, _ value: String) -> String? {
        switch field.kind {
        case .string:
            return field.required && value.isEmpty ? "must not be empty" : nil
        case .url:
            return ConfigValueFormat.isHTTPURL(value) ? nil : "must be an absolute http or https URL with a host"
        case .domainOrURL:
            return ConfigValueFormat.isDomainOrURL(value)
                ? nil : "must be a domain (e.g. tenant.eu.auth0.com) or an absolute http or https URL"
        case .hostPort:
            return ConfigValueFormat.isHostPort(value) ? nil : "must be host:port without a scheme (e.g. 127.0.0.1:9099)"
        case .oneOf(let allowed):
            return allowed.contains(value) ? nil : "must be \(field.kind.name)"
        case .integer, .boolean, .stringArray, .stringMap:
            return nil
        }
    }

    // MARK: Helpers

    /// Flags unknown keys (with a suggestion) and duplicate keys.
    mutating func checkKeys(_ members: [JSONSourceNode.Member], path: String, allowed: [String], what: String) {
        checkDuplicates(members, path: path)
        for member in members where !allowed.contains(member.key) {
            reportUnknown(member.key, path: path, allowed: allowed, what: what)
        }
    }

    /// Reports an unknown key, suggesting the closest allowed one.
    mutating func reportUnknown(_ key: String, path: String, allowed: [String], what: String) {
        var message = "unknown \(what)"
        if let suggestion = NameSuggester.closest(to: key, in: allowed) {
            message += " (did you mean '\(suggestion)'?)"
        } else {
            message += " (allowed: \(allowed.joined(separator: ", ")))"
        }
        report(Self.path(path, key), message)
    }

    mutating func checkDuplicates(_ members: [JSONSourceNode.Member], path: String) {
        var firstLine: [String: Int] = [:]
        for member in members {
            if let line = firstLine[member.key] {
                report(Self.path(path, member.key), "duplicate key (first defined on line \(line))")
            } else {
                firstLine[member.key] = member.keyPosition.line
            }
        }
    }

    mutating func report(_ path: String, _ message: String) {
        problems.append(ConfigProblem(path: path, message: message))
    }

    func unique(_ names: [String]) -> [String] {
        var seen: Set<String> = []
        return names.filter { seen.insert($0).inserted }
    }

    /// A name in quotes for a message, or a placeholder when it does not look like a name (so a
    /// value pasted into the wrong place is not echoed).
    func quoted(_ name: String) -> String {
        Self.looksLikeName(name) ? "'\(name)'" : "(name not shown)"
    }

    static func looksLikeName(_ name: String) -> Bool {
        (1...64).contains(name.count)
            && name.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0) }
    }

    static func isValidID(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count)
            && id.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" }
    }

    /// `base.key`, or `base["key"]` when the key is not a plain identifier.
    static func path(_ base: String, _ key: String) -> String {
        let plain = !key.isEmpty && key.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "_-$".unicodeScalars.contains($0)
        }
        let component = plain ? key : "[\"\(key.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\""))\"]"
        if base.isEmpty { return component }
        return plain ? "\(base).\(component)" : base + component
    }

    /// Joins an entry path and a plugin's relative path (`domain`, `scopes[0]`).
    static func join(_ base: String, _ relative: String) -> String {
        relative.hasPrefix("[") ? base + relative : "\(base).\(relative)"
    }
}

extension ConfigValidator.FieldOutcome {
    var isInvalid: Bool { if case .invalid = self { return true }; return false }
}
