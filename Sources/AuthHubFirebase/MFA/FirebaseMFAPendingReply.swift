import AuthHub
import Foundation

/// A sign-in reply that asks for a second factor: `mfaPendingCredential`, the enrolled factors
/// (`mfaInfo[]`, read tolerantly), and the account's `email` and `localId` when sent.
struct FirebaseMFAPendingReply: Codable, Sendable {
    var mfaPendingCredential: String
    var mfaInfo: [FirebaseMFAEnrollment]
    var email: String?
    var localId: String?

    enum CodingKeys: String, CodingKey { case mfaPendingCredential, mfaInfo, email, localId }

    init(mfaPendingCredential: String, mfaInfo: [FirebaseMFAEnrollment] = [], email: String? = nil, localId: String? = nil) {
        self.mfaPendingCredential = mfaPendingCredential
        self.mfaInfo = mfaInfo
        self.email = email
        self.localId = localId
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        mfaPendingCredential = try c.requiredToken(.mfaPendingCredential)
        mfaInfo = (try? c.decodeIfPresent([FirebaseMFAEnrollment].self, forKey: .mfaInfo)) ?? []
        email = c.looseString(.email)
        localId = c.firebaseString(.localId)
    }
}
