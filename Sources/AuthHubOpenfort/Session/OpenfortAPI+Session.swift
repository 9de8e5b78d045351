import AuthHub
import Foundation

extension OpenfortAPI {
    // MARK: - Session

    /// Validates (and extends) a session: `GET /get-session?disableCookieCache=true`.
    /// - Returns: nil when the server answers `null` (no valid session), or an object that names
    ///   neither a session nor a user.
    /// - Throws: ``AuthErrorCode/refreshTokenInvalid`` for a 401 (mapped with the `refresh`
    ///   operation); ``AuthErrorCode/invalidRequest`` naming the field for a reply of the wrong
    ///   shape, or for an empty body; transient errors as they are.
    package func getSession(bearer: Secret<String>) async throws -> OpenfortSessionInfo? {
        let info = try await sendRequired(.get, "get-session", query: [("disableCookieCache", "true")], bearer: bearer,
                                          operation: .refresh, as: OpenfortSessionInfo?.self)
        guard let info, !info.isEmpty else { return nil }
        return info
    }

    /// Ends the session at the server: `POST /sign-out {}`.
    package func signOut(bearer: Secret<String>) async throws {
        _ = try await send(.post, "sign-out", body: OpenfortEmptyBody(), bearer: bearer, retry: .never, operation: .signOut,
                           as: OpenfortAcknowledgement.self)
    }

    /// The current user with linked accounts: `GET /iam/v2/me`.
    package func me(bearer: Secret<String>) async throws -> OpenfortAuthUser {
        try await sendRequired(.get, Self.mePath, bearer: bearer, operation: .userInfo, as: OpenfortAuthUser.self)
    }
}
