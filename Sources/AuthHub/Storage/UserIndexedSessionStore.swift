import Crypto
import Foundation

/// A store that finds one user's sessions without reading every session: what "your signed-in
/// sessions", "sign out all other sessions" and "sign out everywhere" need on a store that holds
/// every user's sessions (a server's). The index is kept by the store with each write, by provider
/// and ``Session/userID``; sessions without a user id are not indexed.
///
/// Built in: ``InMemorySessionStore`` (a dictionary beside the sessions), ``FileSessionStore`` (a
/// marker file per session under `.by-user/`, written before the session and checked on reading,
/// so a crash can leave a stale marker but never hide a session), and `PostgresSessionStore` (an
/// indexed column). Run `SessionStoreConformance` from AuthHubTesting: its `userIndex…` checks run
/// for stores that adopt this protocol.
public protocol UserIndexedSessionStore: SessionStore {
    /// The keys of `provider`'s stored sessions whose ``Session/userID`` is `userID`, sorted.
    func keys(provider: String, userID: String) async throws -> [SessionKey]
}

/// What the built-in stores index a session's user by: the SHA-256 of the provider id, a NUL and
/// the user id (a user id may hold any character; the index keeps no user id in the clear).
package enum SessionUserReference {
    package static func digest(provider: String, userID: String) -> [UInt8] {
        Array(SHA256.hash(data: Data((provider + "\u{0}" + userID).utf8)))
    }

    package static func hex(provider: String, userID: String) -> String {
        digest(provider: provider, userID: userID).map { String(format: "%02x", $0) }.joined()
    }
}

extension Session {
    /// The `extras` key of a browser session's device summary ("Firefox on Linux"), written by the
    /// web layer at sign-in and read wherever sessions are listed (the account pages, `authhub account
    /// sessions`).
    package static let browserDeviceExtra = "authhubWebDevice"
}
