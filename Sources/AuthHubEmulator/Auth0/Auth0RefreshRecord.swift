import Foundation

/// One refresh token of a family.
struct Auth0RefreshRecord: Sendable {
    var familyId: String
    /// Set once the token was exchanged for a newer one; presenting it again is reuse.
    var rotated: Bool
    /// The token this one was issued for (its digest); nil for the token of a login.
    var parent: String? = nil
    /// When the token was first exchanged.
    var rotatedAt: Date? = nil
    /// Set once a token issued from this one was exchanged: this one is no longer the previous token,
    /// so the reuse interval no longer covers it.
    var superseded = false
    /// When the token was issued (committed), on the emulator's clock; fault tests compare it with
    /// the moment they killed a client.
    var issuedAt: Date? = nil
}
