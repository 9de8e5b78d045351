import Foundation

/// The emulator's in-memory state: users, sessions, codes and whatever else the provider modules
/// keep, plus the address the emulator is reachable at.
///
/// Each module stores its values under ``EmulatorStateKey``s in its own namespace. Everything is
/// lost when the emulator stops; `POST /__authhub/reset` (or ``reset()``) brings every slot back to
/// its initial value. Reads and writes are serialised by the actor, so a handler that reads,
/// decides and writes inside one ``update(_:_:)`` call sees no interleaving writer.
public actor EmulatorState {
    private var slots: [String: any Sendable] = [:]
    private var resetCount = 0

    /// The base URL the emulator serves (`http://127.0.0.1:PORT`), known once the server is bound;
    /// modules use it to build issuer URLs and links. Not cleared by a reset.
    public private(set) var baseURL: URL?

    /// Creates empty state.
    public init() {}

    /// The current value for `key`, or its initial value when nothing was stored.
    public func get<Value: Sendable>(_ key: EmulatorStateKey<Value>) -> Value {
        (slots[key.slot] as? Value) ?? key.initial()
    }

    /// Replaces the value for `key`.
    public func set<Value: Sendable>(_ key: EmulatorStateKey<Value>, to value: Value) {
        slots[key.slot] = value
    }

    /// Reads and changes the value for `key` in one step, with no other access in between.
    /// - Parameters:
    ///   - key: the slot.
    ///   - body: changes the value in place and returns a result.
    /// - Returns: what `body` returned.
    /// - Throws: what `body` throws; the value is then left unchanged.
    @discardableResult
    public func update<Value: Sendable, Result: Sendable>(
        _ key: EmulatorStateKey<Value>,
        _ body: @Sendable (inout Value) throws -> Result
    ) rethrows -> Result {
        var value = get(key)
        let result = try body(&value)
        slots[key.slot] = value
        return result
    }

    /// Brings every slot of every module back to its initial value.
    public func reset() {
        slots.removeAll()
        resetCount += 1
    }

    /// Brings every slot of one module back to its initial value.
    public func reset(module: String) {
        let prefix = module + "."
        slots = slots.filter { !$0.key.hasPrefix(prefix) }
    }

    /// How many times ``reset()`` ran; lets tests and tools observe a reset.
    public var resets: Int { resetCount }

    func setBaseURL(_ url: URL) {
        baseURL = url
    }
}
