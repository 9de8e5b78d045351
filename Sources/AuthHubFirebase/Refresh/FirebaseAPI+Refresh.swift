import AuthHub
import Foundation

extension FirebaseAPI {
    // MARK: - Secure Token (AuthHubFirebase docs, FirebaseEndpoints: “Secure Token refresh”)

    /// Exchanges a refresh token for a new ID token: `POST /v1/token?key=…` with the form body
    /// `grant_type=refresh_token&refresh_token=…`.
    /// - Throws: ``AuthErrorCode/refreshTokenInvalid`` for `INVALID_REFRESH_TOKEN`, `TOKEN_EXPIRED`,
    ///   `USER_DISABLED`, `USER_NOT_FOUND` and `INVALID_ID_TOKEN` (the session is over); network,
    ///   429 and 5xx errors as they are.
    package func refresh(refreshToken: Secret<String>) async throws -> FirebaseSecureTokenResponse {
        let request = APIRequest(.post, "token", query: keyQuery,
                                 body: .form([("grant_type", "refresh_token"), ("refresh_token", refreshToken.revealed())]),
                                 operation: .refresh)
        return try await secureToken.send(request, as: FirebaseSecureTokenResponse.self)
    }
}
