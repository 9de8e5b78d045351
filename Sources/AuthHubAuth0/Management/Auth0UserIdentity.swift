import AuthHub

/// One identity linked to an Auth0 user (an element of the Management API user's `identities`,
/// <doc:Auth0Endpoints>: “Management API users”), with every member the API returned in ``json``.
///
/// `description` leaves out ``json``: with the `read:user_idp_tokens` scope an identity carries the
/// identity provider's `access_token` and `refresh_token`.
public struct Auth0UserIdentity: Sendable, Hashable, Decodable, CustomStringConvertible {
    /// The identity provider: `auth0` (database), `google-oauth2`, `github`, `samlp`, `email`, …
    public var provider: String
    /// The user's id at that provider, without the `provider|` prefix of Auth0 user ids
    /// (a number in the JSON for some social providers; kept as its decimal text).
    public var userID: String
    /// The connection name.
    public var connection: String?
    /// Whether the provider is a social one.
    public var isSocial: Bool?
    /// The whole object as returned.
    public var json: JSONValue

    enum CodingKeys: String, CodingKey { case provider, userID = "user_id", connection, isSocial }

    /// Decodes an identity object (kept whole in ``json``: with `read:user_idp_tokens` it carries
    /// the identity provider's own members, open by nature).
    /// - Throws: a `DecodingError` naming the field when it is not an object with a string
    ///   `provider` and a string or integer `user_id`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        provider = try container.decode(String.self, forKey: .provider)
        if let text = try? container.decode(String.self, forKey: .userID) {
            userID = text
        } else {
            let number = try container.decode(Double.self, forKey: .userID)
            guard number.rounded() == number, abs(number) < 9.007_199_254_740_992e15 else {
                throw DecodingError.dataCorruptedError(forKey: .userID, in: container, debugDescription: "not an integer id")
            }
            userID = String(Int64(number))
        }
        connection = (try? container.decodeIfPresent(String.self, forKey: .connection)) ?? nil
        isSocial = (try? container.decodeIfPresent(Bool.self, forKey: .isSocial)) ?? nil
        json = try decoder.singleValueContainer().decode(JSONValue.self)
    }

    /// The provider, user id, connection and social flag, never the identity provider's tokens.
    public var description: String {
        "Auth0UserIdentity(provider: \(provider), userID: \(userID), connection: \(connection ?? "nil"), "
            + "isSocial: \(isSocial.map(String.init) ?? "nil"))"
    }
}
