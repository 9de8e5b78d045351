/// Something that holds resources to release before a program stops — a store's connection pool
/// and change feed, a transport's own HTTP client. ``AuthHub/shutdown()`` shuts down the ones the
/// hub made from its configuration.
public protocol Shutdownable: Sendable {
    /// Releases the resources; the value must not be used afterwards.
    func shutdown() async throws
}
