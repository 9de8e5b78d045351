import AuthHub

/// One identity linked to an Auth0 user (an element of the Management API user's `identities`,
/// <doc:Auth0Endpoints>: “Management API users”), with every member the API returned in ``json``.
///
/// `description` leaves out ``json``: with the `read:user_idp_tokens` scope an identity carries the
/// identity provider's `access_token` and `refresh_token`.
public struct Auth0UserIdentity: Sendable, Hashable, CustomStringConvertible {
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

    /// Reads an identity object.
    /// - Throws: ``AuthError`` with ``AuthErrorCode/invalidRequest`` when it is not an object with a
    ///   string `provider` and a string or integer `user_id`.
    public init(json: JSONValue) throws {
        guard let provider = json["provider"]?.stringValue, let userID = Self.identifier(json["user_id"]) else {
            throw AuthError(.invalidRequest, message: "An identity from the Management API has no provider or user_id.")
        }
        self.provider = provider
        self.userID = userID
        self.connection = json["connection"]?.stringValue
        self.isSocial = json["isSocial"]?.boolValue
        self.json = json
    }

    /// A string id, or an integral number as decimal text.
    static func identifier(_ value: JSONValue?) -> String? {
        if let text = value?.stringValue { return text }
        if let number = value?.doubleValue, number.rounded() == number, abs(number) < 9.007_199_254_740_992e15 {
            return String(Int64(number))
        }
        return nil
    }

    /// The provider, user id, connection and social flag, never the identity provider's tokens.
    public var description: String {
        "Auth0UserIdentity(provider: \(provider), userID: \(userID), connection: \(connection ?? "nil"), "
            + "isSocial: \(isSocial.map(String.init) ?? "nil"))"
    }
}
