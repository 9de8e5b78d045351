import AuthHub

/// `stampLoginResult` of a completed `stamp_login`: the session JWT, required and non-empty.
struct TurnkeyStampLoginResult: TurnkeyActivityResult {
    static let resultKeys = ["stampLoginResult"]

    var session: String

    enum CodingKeys: String, CodingKey { case session }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        session = try c.decode(String.self, forKey: .session)
        guard !session.isEmpty else { throw DecodingError.dataCorruptedError(forKey: .session, in: c, debugDescription: "empty") }
    }
}
