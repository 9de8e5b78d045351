import Foundation

extension AuthHub {
    /// Loads providers.json, validates it and builds the selected environment's providers.
    ///
    /// ```swift
    /// let hub = try AuthHub.load(registry: .builtIn)              // ./providers.json
    /// let staging = try AuthHub.load(configPath: "config/providers.json", environment: "staging",
    ///                                registry: ProviderRegistry.builtIn.registering(MyPlugin()))
    /// ```
    ///
    /// A relative `sessionStore.path` is resolved against the configuration file's directory, so
    /// the same file works whatever the current directory is.
    /// - Parameters:
    ///   - configPath: the providers.json file.
    ///   - environment: the environment; nil selects `AUTHHUB_ENV`, then the file's `defaultEnvironment`.
    ///   - registry: the provider types known to the app.
    ///   - context: transport, clock, randomness and logger handed to every provider.
    ///   - environmentVariables: what `${VAR}` and `AUTHHUB_ENV` read.
    ///   - signInPolicy: signing in while signed in (``SignInPolicy/replace`` by default).
    ///   - wrapTransport: wraps the transport the providers use (see ``init(environment:registry:context:store:baseDirectory:signInPolicy:wrapTransport:)``).
    /// - Throws: ``AuthError`` ``AuthErrorCode/invalidConfiguration`` whose ``AuthError/underlying``
    ///   is the ``ConfigurationError`` listing every problem; or the error of building a provider or
    ///   the session store.
    public static func load(
        configPath: String = "providers.json",
        environment: String? = nil,
        registry: ProviderRegistry,
        context: ProviderContext = ProviderContext(),
        environmentVariables: [String: String] = ProcessInfo.processInfo.environment,
        signInPolicy: SignInPolicy = .replace,
        wrapTransport: ((any HTTPTransport) -> any HTTPTransport)? = nil
    ) throws -> AuthHub {
        let loader = ConfigLoader(registry: registry, environmentVariables: environmentVariables)
        let configuration: EnvironmentConfiguration
        do {
            configuration = try loader.load(contentsOf: configPath, environment: environment)
        } catch let error as ConfigurationError {
            throw error.authError
        }
        let baseDirectory = URL(fileURLWithPath: configPath).deletingLastPathComponent()
        return try AuthHub(environment: configuration, registry: registry, context: context, baseDirectory: baseDirectory,
                           signInPolicy: signInPolicy, wrapTransport: wrapTransport)
    }
}
