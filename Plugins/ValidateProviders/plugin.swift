import PackagePlugin
@main struct ValidateProviders: CommandPlugin { func performCommand(context: PluginContext, arguments: [String]) async throws {} }
