import AuthHub

/// The reply of `GET /me/v1/factors`: the tenant's factor types and their usage. An entry without a
/// string `type` is skipped, as a factor AuthHub cannot name.
struct Auth0FactorList: Decodable, Sendable {
    struct Factor: Decodable, Sendable {
        var type: String?
        var usage: [String]

        enum CodingKeys: String, CodingKey { case type, usage }

        init(from decoder: any Decoder) throws {
            let container = try? decoder.container(keyedBy: CodingKeys.self)
            type = (try? container?.decodeIfPresent(String.self, forKey: .type)) ?? nil
            usage = ((try? container?.decodeIfPresent([JSONValue].self, forKey: .usage)) ?? nil)?.compactMap(\.stringValue) ?? []
        }
    }

    var factors: [Factor]?
}
