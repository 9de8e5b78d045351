import Foundation

/// The DPoP state of one emulated tenant: the nonce mode and the proofs already used.
///
/// - Nonce mode (RFC 9449, sections 8 and 9), off by default and switched by the test hook
///   `POST /auth0/__emulator/dpop`: while on, the tenant has one current nonce, and every proof it
///   checks must carry it (`nonce`); a proof without it, or with an earlier nonce (the hook's
///   `rotate_nonce` replaces the current one), is refused with `use_dpop_nonce` and the current
///   nonce in `DPoP-Nonce`.
/// - Replay (section 11.1): a proof is accepted once per key and `jti`. Accepted proofs are
///   remembered until their `iat` leaves the acceptance window (after that the `iat` check refuses
///   them anyway), at most ``replayLimit`` of them; beyond that the oldest is forgotten first.
struct Auth0DPoPState: Sendable {
    /// The most proofs remembered for the replay check.
    static let replayLimit = 10_000

    /// Whether proofs must carry ``nonce``.
    var nonceRequired = false
    /// The current nonce while ``nonceRequired`` is on.
    var nonce: String?
    /// Accepted proofs (thumbprint and `jti`) with the moment they stop being remembered.
    var seen: [String: Date] = [:]

    /// Turns nonce mode on or off; turning it on, or `rotate`, makes `candidate` the current nonce
    /// (turning it on keeps a current nonce unless `rotate`). Turning it off forgets the nonce.
    mutating func configure(nonceRequired required: Bool, rotate: Bool, candidate: String) {
        nonceRequired = required
        if !required {
            nonce = nil
        } else if rotate || nonce == nil {
            nonce = candidate
        }
    }

    /// Checks `proof` against the nonce and the proofs already used, and remembers it when it
    /// passes.
    /// - Returns: nil when the proof is accepted; otherwise ``Auth0DPoPRefusal/useNonce(_:)`` (the
    ///   nonce is checked first, so a client may retry with the nonce) or
    ///   ``Auth0DPoPRefusal/invalidProof(_:)`` for a replayed proof. A refused proof is not remembered.
    mutating func admit(_ proof: Auth0DPoPProof, now: Date) -> Auth0DPoPRefusal? {
        if nonceRequired, let nonce, proof.nonce != nonce { return .useNonce(nonce) }
        seen = seen.filter { $0.value > now }
        let key = proof.thumbprint + " " + proof.jti
        guard seen[key] == nil else { return .invalidProof("The DPoP proof has already been used.") }
        if seen.count >= Self.replayLimit, let oldest = seen.min(by: { $0.value < $1.value })?.key {
            seen[oldest] = nil
        }
        seen[key] = max(now, proof.issuedAt).addingTimeInterval(Auth0DPoPProof.iatWindow + 1)
        return nil
    }
}
