import Foundation

/// Where sessions live between process runs.
///
/// Stores are shared by every ``SessionManager`` of an app and possibly by several processes, so
/// writes are compare-and-swap on ``Session/version``:
/// - `expectedVersion == nil`: write unconditionally (a fresh sign-in replaces whatever was there);
/// - `expectedVersion == 0`: write only if nothing is stored under the key;
/// - `expectedVersion == n`: write only if the stored session has version `n`.
/// A failed expectation throws ``AuthError`` with code ``AuthErrorCode/conflict``. A successful write
/// stores and returns the session with `version = previous + 1` (1 for a new key).
///
/// Run `SessionStoreConformance` from AuthHubTesting against any implementation.
public protocol SessionStore: Sendable {
    /// The session stored under `key`, or nil. A stored entry that cannot be read (corrupted, wrong
    /// encryption key) throws ``AuthErrorCode/storageFailure`` — it is never reported as "no session".
    func load(_ key: SessionKey) async throws -> Session?
    /// Stores `session` under `key` if `expectedVersion` holds; returns the stored session.
    @discardableResult
    func save(_ session: Session, for key: SessionKey, expectedVersion: UInt64?) async throws -> Session
    /// Removes the session under `key`; removing a missing key is not an error.
    func remove(_ key: SessionKey) async throws
    /// Every key that has a stored session, sorted.
    func keys() async throws -> [SessionKey]
    /// A lock that serialises refreshes of one key among every user of this store. Called once per
    /// hub; an in-process store returns an in-process lock, a file store a file lock.
    func makeRefreshLock() -> any RefreshLock
}

extension SessionStore {
    public func makeRefreshLock() -> any RefreshLock { InProcessRefreshLock() }
}

extension Session {
    /// The compare-and-swap step every store performs (see ``SessionStore``): checks
    /// `expectedVersion` against the version currently stored (0 when nothing is) and returns the
    /// copy to write — keyed to `key`, at version `current + 1`.
    /// - Throws: ``AuthErrorCode/conflict`` when the expectation does not hold.
    public func storedCopy(for key: SessionKey, currentVersion current: UInt64, expectedVersion: UInt64?) throws -> Session {
        if let expectedVersion, expectedVersion != current {
            throw AuthError.storeConflict(key: key, expected: expectedVersion, found: current)
        }
        guard current < UInt64.max else { throw AuthError.versionExhausted(key: key, version: current) }
        var stored = self
        stored.providerID = key.provider
        stored.accountKey = key.account
        stored.version = current + 1
        return stored
    }
}

extension AuthError {
    /// The error of a write to a session whose version cannot be advanced (a hostile or corrupt
    /// store holding the largest version the store can keep): a ``AuthErrorCode/storageFailure``,
    /// not retryable, never a wrap-around or a trap. Signing out removes the session; a sign-in then
    /// starts again at version 1.
    public static func versionExhausted(key: SessionKey, version: UInt64) -> AuthError {
        AuthError(.storageFailure,
                  message: "Session \(key) is at version \(version), the largest this store keeps, so it cannot be written again; sign out and in again.",
                  isRetryable: false, details: ["foundVersion": String(version), "reason": "versionExhausted"])
    }

    /// The conflict error of a failed compare-and-swap.
    public static func storeConflict(key: SessionKey, expected: UInt64, found: UInt64) -> AuthError {
        AuthError(.conflict,
                  message: "Session \(key) is at version \(found), expected \(expected): another writer changed it.",
                  details: ["expectedVersion": String(expected), "foundVersion": String(found)])
    }
}
