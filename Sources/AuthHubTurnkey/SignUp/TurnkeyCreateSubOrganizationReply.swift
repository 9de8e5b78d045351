import AuthHub

/// The proxy's `createSubOrg` reply: `subOrganizationId`, required, 1 to 128 characters.
struct TurnkeyCreateSubOrganizationReply: Codable, Sendable {
    var subOrganizationId: String

    enum CodingKeys: String, CodingKey { case subOrganizationId }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        subOrganizationId = try c.decode(String.self, forKey: .subOrganizationId)
        guard (1...128).contains(subOrganizationId.count) else {
            throw DecodingError.dataCorruptedError(forKey: .subOrganizationId, in: c, debugDescription: "empty or longer than 128 characters")
        }
    }
}
