import AuthHub
import Foundation

/// The reply of `accounts:signInWithPassword`: tokens, or — without an `idToken` but with a
/// non-empty `mfaPendingCredential` — a request for a second factor.
enum FirebasePasswordSignInReply: Decodable, Sendable {
    case tokens(FirebaseTokenResponse)
    case mfaRequired(FirebaseMFAPendingReply)

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: FirebaseWireKey.self)
        let hasIDToken = c.contains(FirebaseWireKey("idToken")) && (try? c.decodeNil(forKey: FirebaseWireKey("idToken"))) == false
        if !hasIDToken, let pending = c.looseString(FirebaseWireKey("mfaPendingCredential")), !pending.isEmpty {
            self = .mfaRequired(try FirebaseMFAPendingReply(from: decoder))
        } else {
            self = .tokens(try FirebaseTokenResponse(from: decoder))
        }
    }
}
