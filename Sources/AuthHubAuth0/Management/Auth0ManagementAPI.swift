import AuthHub
import Foundation

/// Auth0's Management API v2 user endpoints (<doc:Auth0Endpoints>: “Management API users”): read the user, update its
/// `user_metadata`, and link or unlink identities.
///
/// Auth0.swift 2.x offered these as `Users` and 3.0 removed them, advising apps to call their own
/// backend; they remain useful to a CLI or a server holding a user-scoped token for the audience
/// `https://<domain>/api/v2/`. Every call asks ``tokenProvider`` for a token with the scope its
/// endpoint needs (``Scope``): by default
/// ``Auth0CredentialsManager/apiCredentials(forAudience:scope:minTTL:)``, so tokens are exchanged
/// with the refresh token and cached per scope.
///
/// User ids go into the path as one percent-encoded component (`auth0|123` → `auth0%7C123`).
/// Errors are mapped by the Management API's error mapper (<doc:Auth0Errors>); a 2xx reply that is not the expected JSON
/// throws ``AuthErrorCode/invalidRequest``.
public struct Auth0ManagementAPI: Sendable {
    /// Supplies an access token for the Management API audience with `scope`.
    public typealias TokenProvider = Auth0APITokenProvider

    /// The scope each endpoint asks for (<doc:Auth0Endpoints>: “Management API users”).
    public enum Scope {
        /// Reading the user the token belongs to.
        public static let readCurrentUser = "read:current_user"
        /// Updating that user's `user_metadata`.
        public static let updateCurrentUserMetadata = "update:current_user_metadata"
        /// Linking and unlinking that user's identities with a user token.
        public static let updateCurrentUserIdentities = "update:current_user_identities"
        /// Server-side linking by provider and user id, which Auth0 allows only to machine tokens.
        public static let updateUsers = "update:users"
    }

    /// The audience of Management API tokens: `https://<domain>/api/v2/`.
    public var audience: String { client.audience }
    /// Where tokens come from.
    public var tokenProvider: TokenProvider { client.tokenProvider }
    let client: Auth0BearerClient
    var api: APIClient { client.api }

    /// Creates a client with your own token source.
    public init(provider: Auth0Provider, tokenProvider: @escaping TokenProvider) {
        client = Auth0BearerClient(provider: provider, audiencePath: "api/v2/", errorMapper: Auth0ManagementErrorMapper(),
                                   tokenProvider: tokenProvider)
    }

    /// Creates a client whose tokens come from a credentials manager (exchanged with the refresh token).
    public init(provider: Auth0Provider, credentials: Auth0CredentialsManager) {
        self.init(provider: provider,
                  tokenProvider: Auth0BearerClient.tokens(from: credentials, audience: Auth0BearerClient.audience(provider, "api/v2/")))
    }

    // MARK: - Users

    /// Reads a user: `GET /api/v2/users/{id}`.
    ///
    /// - Parameters:
    ///   - id: the Auth0 user id (`auth0|…`).
    ///   - fields: the fields to include (or exclude); `fields` and `include_fields` are sent only
    ///     when this is non-empty.
    ///   - includeFields: `true` to return only `fields`, `false` to return everything but them.
    /// - Returns: the user.
    /// - Throws: ``AuthError``: ``AuthErrorCode/userNotFound`` for an unknown id, the mapped API
    ///   error otherwise, ``AuthErrorCode/invalidRequest`` for a reply that is not a user object.
    public func user(id: String, fields: [String] = [], includeFields: Bool = true) async throws -> Auth0ManagementUser {
        let query = fields.isEmpty ? [] : [("fields", fields.joined(separator: ",")), ("include_fields", includeFields ? "true" : "false")]
        return try await client.send(.get, Self.userPath(id), scope: Scope.readCurrentUser, query: query, as: Auth0ManagementUser.self)
    }

    /// Merges `metadata` into the user's `user_metadata`: `PATCH /api/v2/users/{id}` with
    /// `{"user_metadata": …}`. Auth0 merges top-level members; a member set to `null` is removed.
    ///
    /// - Returns: the updated user.
    public func updateUserMetadata(id: String, _ metadata: [String: JSONValue]) async throws -> Auth0ManagementUser {
        return try await client.send(.patch, Self.userPath(id), scope: Scope.updateCurrentUserMetadata,
                                     body: Auth0ManagementUserUpdate(userMetadata: metadata), as: Auth0ManagementUser.self)
    }

    // MARK: - Account linking

    /// Links the account of another token to the user: `POST /api/v2/users/{id}/identities` with
    /// `{"link_with": <token>}`.
    ///
    /// The secondary token is the ID token of the other account, signed RS256, whose `aud` is the
    /// `azp` of the calling token.
    ///
    /// - Parameters:
    ///   - userID: the primary user id.
    ///   - token: the secondary account's token.
    /// - Returns: the primary user's identities after linking.
    public func link(userID: String, withToken token: Secret<String>) async throws -> [Auth0UserIdentity] {
        return try await client.send(.post, Self.userPath(userID) + "/identities", scope: Scope.updateCurrentUserIdentities,
                                     body: Auth0IdentityLinkRequest(linkWith: token.revealed()), as: [Auth0UserIdentity].self)
    }

    /// Links an account by provider and id, server side: `POST /api/v2/users/{id}/identities` with
    /// `{"provider", "user_id", "connection_id"?}`.
    ///
    /// Auth0 accepts this body only from a token with `update:users` (a machine token), so this call
    /// asks ``tokenProvider`` for ``Scope/updateUsers``.
    ///
    /// - Parameters:
    ///   - userID: the primary user id.
    ///   - provider: the secondary identity's provider (`google-oauth2`, `auth0`, …).
    ///   - secondaryUserID: the secondary user's id, as the API expects it in `user_id`.
    ///   - connectionID: the secondary identity's connection id (`con_…`), when the provider has several.
    /// - Returns: the primary user's identities after linking.
    public func link(userID: String, provider: String, secondaryUserID: String,
                     connectionID: String? = nil) async throws -> [Auth0UserIdentity] {
        let body = Auth0IdentityLinkRequest(provider: provider, userID: secondaryUserID, connectionID: connectionID)
        return try await client.send(.post, Self.userPath(userID) + "/identities", scope: Scope.updateUsers, body: body,
                                     as: [Auth0UserIdentity].self)
    }

    /// Unlinks an identity: `DELETE /api/v2/users/{id}/identities/{provider}/{secondaryUserID}`.
    ///
    /// - Parameters:
    ///   - userID: the primary user id.
    ///   - provider: the identity's provider.
    ///   - secondaryUserID: the identity's user id; a full Auth0 user id starting with
    ///     `<provider>|` is accepted too, and only the part after that prefix is sent.
    /// - Returns: the primary user's identities after unlinking.
    public func unlink(userID: String, provider: String, secondaryUserID: String) async throws -> [Auth0UserIdentity] {
        let prefix = provider + "|"
        let secondary = secondaryUserID.hasPrefix(prefix) ? String(secondaryUserID.dropFirst(prefix.count)) : secondaryUserID
        let path = Self.userPath(userID) + "/identities/" + FormEncoding.escape(provider) + "/" + FormEncoding.escape(secondary)
        return try await client.send(.delete, path, scope: Scope.updateCurrentUserIdentities, as: [Auth0UserIdentity].self)
    }

    // MARK: - Plumbing

    /// `api/v2/users/<id>`, the id percent-encoded as one path component.
    static func userPath(_ id: String) -> String {
        "api/v2/users/" + FormEncoding.escape(id)
    }
}
