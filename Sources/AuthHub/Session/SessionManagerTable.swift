/// The session managers of one ``AuthHub``, one per key, bounded: beyond ``capacity`` managers,
/// creating one drops the least recently used *idle* managers that nobody else holds
/// (``SessionManager/isIdle``: nothing running, nothing unsaved, no background revocation, no event
/// listener) down to half of it. Their sessions stay in the store, and the next use of their key
/// reads it again. A manager in use is never dropped, so one key never has two managers at once.
///
/// Not thread-safe by itself: the hub keeps it in a `Mutex`, and the uniqueness check below relies on
/// that lock being held (nobody can take a manager out while the table is locked).
struct SessionManagerTable {
    private struct Slot {
        var manager: SessionManager
        var lastUse: UInt64
    }
    private var slots: [SessionKey: Slot] = [:]
    private var tick: UInt64 = 0
    /// The most managers kept before idle ones are dropped.
    let capacity: Int
    private var sweepAbove: Int

    init(capacity: Int) {
        self.capacity = capacity
        sweepAbove = capacity
    }

    /// The manager of `key`, made by `make` on first use (and marked used either way).
    mutating func manager(for key: SessionKey, make: () -> SessionManager) -> SessionManager {
        tick &+= 1
        if let index = slots.index(forKey: key) {
            slots.values[index].lastUse = tick
            return slots.values[index].manager
        }
        let manager = make()
        slots[key] = Slot(manager: manager, lastUse: tick)
        if slots.count > sweepAbove { dropIdleManagers() }
        return manager
    }

    /// The manager of `key`, if the table has one, marked used (none is made).
    mutating func use(_ key: SessionKey) -> SessionManager? {
        guard let index = slots.index(forKey: key) else { return nil }
        tick &+= 1
        slots.values[index].lastUse = tick
        return slots.values[index].manager
    }

    /// The manager of `key`, if the table has one (not marked used).
    func existing(_ key: SessionKey) -> SessionManager? { slots[key]?.manager }

    /// Every manager the table holds.
    var managers: [SessionManager] { slots.values.map(\.manager) }

    /// How many managers the table holds.
    var count: Int { slots.count }

    /// Drops the least recently used idle managers that only the table holds, down to half of
    /// ``capacity``; the next sweep waits until the table has doubled (or reached the capacity), so a
    /// hub whose managers are all in use does not sweep at every call.
    private mutating func dropIdleManagers() {
        var idle: [(key: SessionKey, lastUse: UInt64)] = []
        // Walked by hand: `indices` holds a copy of the dictionary, and with it every manager would
        // look shared (the in-place access below would copy the storage).
        var index = slots.startIndex
        while index != slots.endIndex {
            // Only the table holds it: no caller is in the middle of using it, and none can get it
            // while the table's lock is held.
            if isKnownUniquelyReferenced(&slots.values[index].manager), slots.values[index].manager.isIdle {
                idle.append((slots.keys[index], slots.values[index].lastUse))
            }
            slots.formIndex(after: &index)
        }
        let excess = slots.count - capacity / 2
        for entry in idle.sorted(by: { $0.lastUse < $1.lastUse }).prefix(max(excess, 0)) {
            slots[entry.key] = nil
        }
        sweepAbove = max(capacity, slots.count * 2)
    }
}
