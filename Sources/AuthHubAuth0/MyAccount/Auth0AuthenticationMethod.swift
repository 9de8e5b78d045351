import AuthHub

/// An authentication method of the signed-in user (<doc:Auth0Endpoints>: “Response models”), with every member the API
/// returned in ``json``.
public struct Auth0AuthenticationMethod: Sendable, Hashable, Decodable {
    /// The method id (`totp|dev_…`, `phone|dev_…`, a passkey's id, …).
    public var id: String
    /// `passkey`, `totp`, `phone`, `email`, `push-notification`, `recovery-code`, `password`, …
    public var type: String?
    /// Whether the enrollment was confirmed.
    public var confirmed: Bool?
    /// The name shown to the user.
    public var name: String?
    /// `primary` and/or `secondary`.
    public var usage: [String]
    /// The whole object as returned.
    public var json: JSONValue

    enum CodingKeys: String, CodingKey { case id, type, confirmed, name, usage }

    /// Decodes an AuthenticationMethod object: `id` is required; the other members read as absent
    /// when missing or of another type, and the whole object (open by nature: each method type has
    /// its own members) is kept in ``json``.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        type = (try? container.decodeIfPresent(String.self, forKey: .type)) ?? nil
        confirmed = (try? container.decodeIfPresent(Bool.self, forKey: .confirmed)) ?? nil
        name = (try? container.decodeIfPresent(String.self, forKey: .name)) ?? nil
        usage = ((try? container.decodeIfPresent([JSONValue].self, forKey: .usage)) ?? nil)?.compactMap(\.stringValue) ?? []
        json = try decoder.singleValueContainer().decode(JSONValue.self)
    }
}
