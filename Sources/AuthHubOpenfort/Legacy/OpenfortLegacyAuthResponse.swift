import AuthHub
import Foundation

/// The v1 `AuthResponse` (<doc:OpenfortEndpoints>: “Legacy v1”): `{ "player": {...}, "token": "<access JWT>", "refreshToken": "…" }`.
package struct OpenfortLegacyAuthResponse: Sendable, Codable {
    /// The player id (`player.id`, `pla_…`).
    package var playerID: String
    /// The player object, as sent.
    package var player: [String: JSONValue]
    /// The access token (an ES256 JWT whose `sub` is the player id).
    package var token: Secret<String>
    /// The refresh token.
    package var refreshToken: Secret<String>?

    /// Creates a response from values.
    package init(playerID: String, player: [String: JSONValue], token: Secret<String>, refreshToken: Secret<String>?) {
        self.playerID = playerID
        self.player = player
        self.token = token
        self.refreshToken = refreshToken
    }

    enum CodingKeys: String, CodingKey { case player, token, refreshToken }
    enum PlayerKeys: String, CodingKey { case id }

    /// Reads a reply with tokens (``OpenfortLegacyAuthReply`` tells it from `{action: "verify_email"}`).
    /// - Throws: a decoding error naming `token` (missing, not a string, empty), `player` (missing,
    ///   not an object) or `player.id`.
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        token = Secret(try c.requiredString(.token))
        let ids = try c.nestedContainer(keyedBy: PlayerKeys.self, forKey: .player)
        playerID = try ids.decode(String.self, forKey: .id)
        // The player object is open: its members (linked accounts, metadata) are kept as claims.
        player = try c.decode([String: JSONValue].self, forKey: .player)
        refreshToken = c.looseString(.refreshToken).map(Secret.init)
    }

    /// Writes the reply (`player` as read, with its id).
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        var player = player
        player["id"] = .string(playerID)
        try c.encode(player, forKey: .player)
        try c.encode(token, forKey: .token)
        try c.encodeIfPresent(refreshToken, forKey: .refreshToken)
    }
}
