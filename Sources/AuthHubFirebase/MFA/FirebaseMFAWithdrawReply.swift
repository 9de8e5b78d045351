import AuthHub
import Foundation

/// The reply of `v2/accounts/mfaEnrollment:withdraw` (Identity Platform's
/// `WithdrawMfaResponse`): `{idToken?, refreshToken?}`. Both tokens are optional on the wire:
/// when the backend revoked the user's sessions while removing the factor, it answers without
/// them. firebase-ios-sdk reads them as optional too and signs the user out when they are missing.
struct FirebaseMFAWithdrawReply: Decodable, Sendable {
    /// The renewed tokens, when the reply carries both an `idToken` and a `refreshToken`; nil when
    /// either is missing, null or empty (the factor was removed and the session ended).
    var tokens: FirebaseMFATokens?

    enum CodingKeys: String, CodingKey { case idToken, refreshToken }

    /// Reads the reply: with both tokens present, the whole reply must be a valid
    /// ``FirebaseMFATokens`` (see ``FirebaseMFATokens/init(from:)``); otherwise ``tokens`` is nil.
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func present(_ key: CodingKeys) -> Bool {
            guard let value = try? c.decodeIfPresent(String.self, forKey: key) else { return false }
            return !value.isEmpty
        }
        tokens = present(.idToken) && present(.refreshToken) ? try FirebaseMFATokens(from: decoder) : nil
    }
}
