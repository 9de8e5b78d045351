import AuthHub

/// The reply of `get_authenticators`: `{authenticators: […]}` (a missing list is empty, as protobuf's
/// JSON leaves out an empty repeated field).
struct TurnkeyAuthenticatorsReply: Decodable, Sendable {
    var authenticators: [TurnkeyAuthenticator]

    enum CodingKeys: String, CodingKey { case authenticators }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        authenticators = try c.decodeIfPresent([TurnkeyAuthenticator].self, forKey: .authenticators) ?? []
    }
}
