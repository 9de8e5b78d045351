import AuthHub
import Foundation

/// The Secure Token service's refresh reply (<doc:FirebaseEndpoints>: “Secure Token refresh”), in snake_case: `id_token` (equal to the
/// deprecated `access_token`), `refresh_token` (may be unchanged), `expires_in` as a STRING of
/// seconds, `token_type`, `user_id`, `project_id` (the numeric project number).
package struct FirebaseSecureTokenResponse: Sendable, Codable {
    /// The new Firebase ID token (`id_token`, else `access_token`).
    package var idToken: Secret<String>
    /// The refresh token to store from now on; nil when the reply has none (keep the old one).
    package var refreshToken: Secret<String>?
    /// `expires_in`, in seconds.
    package var expiresIn: TimeInterval
    /// `token_type` (`Bearer`).
    package var tokenType: String
    /// `user_id`: the uid.
    package var userID: String?
    /// `project_id`: the project number.
    package var projectNumber: String?

    /// Creates a reply from values.
    package init(idToken: Secret<String>, refreshToken: Secret<String>?, expiresIn: TimeInterval, tokenType: String = "Bearer",
                userID: String? = nil, projectNumber: String? = nil) {
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
        self.tokenType = tokenType
        self.userID = userID
        self.projectNumber = projectNumber
    }

    /// Reads a reply; camelCase names are accepted too (the emulator's and the iOS SDK's).
    /// `id_token` (else `access_token`) is required and non-empty; `expires_in`, when sent, must be
    /// a positive number of seconds (else Firebase's one hour is assumed); the rest is optional.
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: FirebaseWireKey.self)
        func key(_ snake: String, _ camel: String) -> FirebaseWireKey? {
            [FirebaseWireKey(snake), FirebaseWireKey(camel)].first { c.contains($0) && (try? c.decodeNil(forKey: $0)) == false }
        }
        guard let idKey = key("id_token", "idToken") ?? key("access_token", "accessToken") else {
            throw DecodingError.keyNotFound(FirebaseWireKey("id_token"), .init(codingPath: c.codingPath, debugDescription: "missing"))
        }
        idToken = Secret(try c.requiredToken(idKey))
        refreshToken = key("refresh_token", "refreshToken").flatMap { c.looseString($0) }.flatMap { $0.isEmpty ? nil : Secret($0) }
        expiresIn = try key("expires_in", "expiresIn").map { try c.requiredLifetime($0) } ?? FirebaseTokenResponse.defaultLifetime
        tokenType = key("token_type", "tokenType").flatMap { c.looseString($0) } ?? "Bearer"
        userID = key("user_id", "userId").flatMap { c.firebaseString($0) }
        projectNumber = key("project_id", "projectId").flatMap { c.firebaseString($0) }
    }

    /// Writes the reply in the Secure Token service's snake_case.
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: FirebaseWireKey.self)
        try c.encode(idToken, forKey: FirebaseWireKey("id_token"))
        try c.encodeIfPresent(refreshToken, forKey: FirebaseWireKey("refresh_token"))
        try c.encode(FirebaseTokenResponse.wireSeconds(expiresIn), forKey: FirebaseWireKey("expires_in"))
        try c.encode(tokenType, forKey: FirebaseWireKey("token_type"))
        try c.encodeIfPresent(userID, forKey: FirebaseWireKey("user_id"))
        try c.encodeIfPresent(projectNumber, forKey: FirebaseWireKey("project_id"))
    }
}
