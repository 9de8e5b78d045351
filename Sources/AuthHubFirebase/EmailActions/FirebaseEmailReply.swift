import AuthHub

/// A reply that names, at most, an email address (`accounts:sendOobCode`).
struct FirebaseEmailReply: Codable, Sendable {
    var email: String?

    enum CodingKeys: String, CodingKey { case email }

    init(from decoder: any Decoder) throws {
        email = try decoder.container(keyedBy: CodingKeys.self).looseString(.email)
    }
}
