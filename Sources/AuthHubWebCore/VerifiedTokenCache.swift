import AuthHub
import AuthHubOIDC
import Crypto
import Foundation

/// The access tokens a bearer middleware has verified, so that a client sending the same token
/// again (every request of its session, until it renews) skips the signature check and the
/// decoding.
///
/// - **Keyed by the token's SHA-256**, so the cache holds no token; a hit needs the whole token to
///   match, byte for byte.
/// - **Only verified tokens** are kept, never a refusal: a hostile client cannot fill it with
///   garbage, only with tokens the issuer really signed.
/// - **Rechecked on every hit** (``AccessTokenVerifier/recheck(_:requiredScopes:)``): `exp` and `nbf`
///   against the verifier's clock, the scopes, and that the issuer's JWKS kept now is the very one
///   whose key verified the token; when the keys were fetched again since (rotation), the token is
///   verified again from scratch, so a key withdrawn from the JWKS stops its tokens as before.
/// - **Bounded**: at most `capacity` tokens; the oldest insertion goes first (a ring of digests).
package final class VerifiedTokenCache: Sendable {
    struct Entry: Sendable {
        let issuer: TrustedIssuer
        let claims: AccessTokenVerifier.Claims
    }

    private struct State {
        var entries: [SHA256Digest: Entry] = [:]
        /// The digests in insertion order, grown up to `capacity`, then overwritten from `next`.
        var ring: [SHA256Digest] = []
        var next = 0
        var hits = 0
    }

    package let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int) {
        self.capacity = capacity
    }

    static func key(_ token: String) -> SHA256Digest {
        var token = token
        return token.withUTF8 { SHA256.hash(data: UnsafeRawBufferPointer($0)) }
    }

    func entry(_ key: SHA256Digest) -> Entry? {
        state.withLock { $0.entries[key] }
    }

    /// Counts a request served from the cache (a kept entry that passed its recheck).
    func countHit() {
        state.withLock { $0.hits += 1 }
    }

    func insert(_ key: SHA256Digest, _ entry: Entry) {
        state.withLock { state in
            if state.entries.updateValue(entry, forKey: key) != nil { return }
            guard state.ring.count == capacity else { return state.ring.append(key) }
            state.entries[state.ring[state.next]] = nil
            state.ring[state.next] = key
            state.next = (state.next + 1) % capacity
        }
    }

    func remove(_ key: SHA256Digest) {
        _ = state.withLock { $0.entries.removeValue(forKey: key) }
    }

    /// Tokens kept now, and requests served from the cache since the start (for tests).
    package var count: Int { state.withLock { $0.entries.count } }
    package var hits: Int { state.withLock { $0.hits } }
}
