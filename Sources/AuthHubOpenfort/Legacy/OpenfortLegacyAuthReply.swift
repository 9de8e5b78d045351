import AuthHub

/// A v1 auth reply: tokens, or `{ "action": "verify_email" }`.
enum OpenfortLegacyAuthReply: Decodable, Sendable {
    case tokens(OpenfortLegacyAuthResponse)
    case verifyEmail

    enum CodingKeys: String, CodingKey { case action }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if c.looseString(.action) == "verify_email" {
            self = .verifyEmail
        } else {
            self = .tokens(try OpenfortLegacyAuthResponse(from: decoder))
        }
    }

    /// The tokens, or nil for `verify_email`.
    var response: OpenfortLegacyAuthResponse? {
        if case .tokens(let response) = self { return response }
        return nil
    }
}
