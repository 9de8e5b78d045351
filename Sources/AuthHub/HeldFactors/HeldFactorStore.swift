import Foundation

/// Where AuthHub keeps the factors it holds itself (``HeldFactorRecord``, one per owner), beside the
/// sessions: the memory, file and PostgreSQL session stores each have one
/// (``HeldFactorStoring``), sealed with the session store's key where it seals.
///
/// A plugin author's seam, like ``SessionStore``; `AuthHubTesting`'s
/// `HeldFactorStoreConformance` holds an implementation to this contract:
/// - ``load(_:)`` returns nil for an owner with no record;
/// - ``save(_:expectedVersion:)`` is a compare-and-swap: it stores the record when the stored
///   version is `expectedVersion` (nil: when none is stored), and returns it with the next version;
///   otherwise it throws ``AuthErrorCode/conflict`` and stores nothing — two second steps using the
///   same recovery code at once, or an enrollment racing a removal, cannot both win;
/// - ``remove(_:)`` forgets the owner's record (no error when there is none).
public protocol HeldFactorStore: Sendable {
    /// The owner's record, nil when there is none.
    func load(_ owner: HeldFactorOwner) async throws -> HeldFactorRecord?
    /// Stores `record` if the stored version is `expectedVersion`; returns it with its new version.
    @discardableResult
    func save(_ record: HeldFactorRecord, expectedVersion: UInt64?) async throws -> HeldFactorRecord
    /// Forgets the owner's record.
    func remove(_ owner: HeldFactorOwner) async throws
}

/// A ``SessionStore`` that keeps AuthHub-held factors beside its sessions.
public protocol HeldFactorStoring {
    /// The held-factor store that lives with this session store.
    var heldFactorStore: any HeldFactorStore { get }
}

extension HeldFactorRecord {
    /// `self` with the version a store writes after `found` (the stored version, nil when none),
    /// or ``AuthErrorCode/conflict`` when `expectedVersion` does not hold — the check every store
    /// makes the same way.
    package func storedCopy(found: UInt64?, expectedVersion: UInt64?) throws -> HeldFactorRecord {
        guard found == expectedVersion else {
            throw AuthError(.conflict, message: "The factors of \(owner) were changed by another request; try again.")
        }
        guard factors.count <= Self.maximumFactors else {
            throw AuthError(.invalidRequest, message: "At most \(Self.maximumFactors) factors may be kept for one user.")
        }
        var stored = self
        stored.version = (found ?? 0) &+ 1
        return stored
    }
}
