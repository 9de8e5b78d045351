import AuthHub

extension HTTPField.Name {
    /// `x-project-key`: the project's publishable key, on every v2 request.
    package static let openfortProjectKey = HTTPField.Name.constant("x-project-key")
    /// `x-native-app-identifier`: the native app's identifier, when configured.
    package static let openfortNativeAppIdentifier = HTTPField.Name.constant("x-native-app-identifier")
    /// `x-request-id`: a new random UUID per request.
    package static let openfortRequestID = HTTPField.Name.constant("x-request-id")
    /// `x-player-token`: the player's token on legacy (v1) calls made for a player.
    package static let openfortPlayerToken = HTTPField.Name.constant("x-player-token")
}
