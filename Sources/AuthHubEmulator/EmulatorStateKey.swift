/// Names one value a module keeps in ``EmulatorState``, with the value it starts from.
///
/// A module declares its keys as static constants, e.g.
/// <!-- example: members -->
/// ```swift
/// struct Auth0Users: Sendable { var idsByEmail: [String: String] = [:] }
/// static let users = EmulatorStateKey(module: "auth0", name: "users", initial: Auth0Users())
/// ```
/// Keys with the same module and name address the same slot, so a key must always be declared
/// with the same `Value` type.
public struct EmulatorStateKey<Value: Sendable>: Sendable, CustomStringConvertible {
    /// The module that owns the value (used by ``EmulatorState/reset(module:)``).
    public let module: String
    /// The name of the value inside the module.
    public let name: String
    /// Produces the value a slot has before anything was stored and after a reset.
    public let initial: @Sendable () -> Value

    /// Creates a key.
    /// - Parameters:
    ///   - module: the owning module's name (e.g. `"auth0"`).
    ///   - name: the value's name inside the module.
    ///   - initial: the value before the first write and after a reset.
    public init(module: String, name: String, initial: @autoclosure @escaping @Sendable () -> Value) {
        self.module = module
        self.name = name
        self.initial = initial
    }

    /// `module.name`.
    public var description: String { "\(module).\(name)" }

    var slot: String { description }
}
