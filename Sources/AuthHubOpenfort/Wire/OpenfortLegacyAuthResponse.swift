import AuthHub
import Foundation

/// The v1 `AuthResponse` (<doc:OpenfortEndpoints>: “Legacy v1”): `{ "player": {...}, "token": "<access JWT>", "refreshToken": "…" }`.
public struct OpenfortLegacyAuthResponse: Sendable {
    /// The player id (`player.id`, `pla_…`).
    public var playerID: String
    /// The player object, as sent.
    public var player: [String: JSONValue]
    /// The access token (an ES256 JWT whose `sub` is the player id).
    public var token: Secret<String>
    /// The refresh token.
    public var refreshToken: Secret<String>?

    /// Reads a reply; `{ "action": "verify_email" }` gives nil.
    /// - Throws: ``AuthErrorCode/invalidRequest`` when there is neither an action nor a token and player.
    public static func read(_ json: JSONValue, provider: String) throws -> OpenfortLegacyAuthResponse? {
        if json["action"]?.stringValue == "verify_email" { return nil }
        guard let token = json["token"]?.stringValue, !token.isEmpty, let player = json["player"]?.objectValue,
              let id = player["id"]?.stringValue else {
            throw AuthError(.invalidRequest, message: "The v1 reply from '\(provider)' has no token or player.", provider: provider)
        }
        return OpenfortLegacyAuthResponse(playerID: id, player: player, token: Secret(token),
                                          refreshToken: json["refreshToken"]?.stringValue.map(Secret.init))
    }
}
