import AuthHub

/// A reply listing organization ids (`list_suborgs`, the proxy's `sub-org-ids` lookup):
/// `organizationIds`, absent or null when there are none. Entries that are not strings are skipped.
struct TurnkeyOrganizationIDs: Codable, Sendable {
    var organizationIds: [String]

    enum CodingKeys: String, CodingKey { case organizationIds }

    init(organizationIds: [String]) { self.organizationIds = organizationIds }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let entries = (try? c.decodeIfPresent([TurnkeyLossyString].self, forKey: .organizationIds)) ?? nil
        organizationIds = entries?.compactMap(\.value) ?? []
    }
}

/// A list entry kept when it is a string.
struct TurnkeyLossyString: Decodable, Sendable {
    var value: String?
    init(from decoder: any Decoder) throws { value = try? decoder.singleValueContainer().decode(String.self) }
}
