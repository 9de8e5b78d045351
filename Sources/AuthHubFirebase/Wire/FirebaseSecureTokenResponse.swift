import AuthHub
import Foundation

/// The Secure Token service's refresh reply (<doc:FirebaseEndpoints>: “Secure Token refresh”), in snake_case: `id_token` (equal to the
/// deprecated `access_token`), `refresh_token` (may be unchanged), `expires_in` as a STRING of
/// seconds, `token_type`, `user_id`, `project_id` (the numeric project number).
public struct FirebaseSecureTokenResponse: Sendable {
    /// The new Firebase ID token (`id_token`, else `access_token`).
    public var idToken: Secret<String>
    /// The refresh token to store from now on; nil when the reply has none (keep the old one).
    public var refreshToken: Secret<String>?
    /// `expires_in`, in seconds.
    public var expiresIn: TimeInterval
    /// `token_type` (`Bearer`).
    public var tokenType: String
    /// `user_id`: the uid.
    public var userID: String?
    /// `project_id`: the project number.
    public var projectNumber: String?

    /// Creates a reply from values.
    public init(idToken: Secret<String>, refreshToken: Secret<String>?, expiresIn: TimeInterval, tokenType: String = "Bearer",
                userID: String? = nil, projectNumber: String? = nil) {
        self.idToken = idToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
        self.tokenType = tokenType
        self.userID = userID
        self.projectNumber = projectNumber
    }

    /// Reads a reply object; camelCase names are accepted too (the emulator's and the iOS SDK's).
    static func read(_ object: [String: JSONValue], provider: String) throws -> FirebaseSecureTokenResponse {
        func member(_ snake: String, _ camel: String) -> JSONValue? { object[snake] ?? object[camel] }
        guard let id = (member("id_token", "idToken") ?? member("access_token", "accessToken"))?.stringValue, !id.isEmpty else {
            throw AuthError(.invalidRequest, message: "The token refresh reply from '\(provider)' has no id_token.", provider: provider)
        }
        let refresh = member("refresh_token", "refreshToken")?.stringValue
        return FirebaseSecureTokenResponse(
            idToken: Secret(id), refreshToken: refresh.flatMap { $0.isEmpty ? nil : Secret($0) },
            expiresIn: member("expires_in", "expiresIn")?.firebaseNumber ?? FirebaseTokenResponse.defaultLifetime,
            tokenType: member("token_type", "tokenType")?.stringValue ?? "Bearer",
            userID: member("user_id", "userId")?.firebaseString, projectNumber: member("project_id", "projectId")?.firebaseString)
    }
}
