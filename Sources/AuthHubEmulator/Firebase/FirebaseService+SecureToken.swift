import enum AuthHub.JSONValue
import Foundation
import Hummingbird

extension FirebaseService {
    /// Secure Token `POST /v1/token` (AuthHubFirebase docs, FirebaseEndpoints: “Secure Token refresh”): a form or JSON body, snake_case or camelCase
    /// names. Checks in order: `MISSING_GRANT_TYPE`, `INVALID_GRANT_TYPE` (anything but
    /// `refresh_token`), `MISSING_REFRESH_TOKEN`, `INVALID_REFRESH_TOKEN` (undecodable, another
    /// project, or the account is gone), `TOKEN_EXPIRED` (issued before the account's
    /// `validSince`: the password or email changed since), `USER_DISABLED`.
    ///
    /// Reply (snake_case): `{access_token, expires_in: "3600", token_type: "Bearer", refresh_token,
    /// id_token, user_id, project_id}` with `id_token == access_token`, the same refresh token
    /// back, a new ID token whose `auth_time` (and second-factor claims) are the original sign-in's, and `project_id` the
    /// project number (``FirebaseTokens/projectNumber(for:)``).
    func token(_ call: Call) async throws -> JSONValue {
        let body = call.body
        guard let grantType = try body.string("grantType") else { throw FirebaseFailure.code("MISSING_GRANT_TYPE") }
        guard grantType == "refresh_token" else { throw FirebaseFailure.code("INVALID_GRANT_TYPE") }
        guard let refreshToken = try body.string("refreshToken") else { throw FirebaseFailure.code("MISSING_REFRESH_TOKEN") }
        guard let record = FirebaseTokens.decodeRefreshToken(refreshToken), record.projectId == projectId else {
            throw FirebaseFailure.code("INVALID_REFRESH_TOKEN")
        }
        let refreshedAt = now
        let user = try await state.update(FirebaseProject.key) { project -> FirebaseUser in
            guard var user = project.users[record.localId] else { throw FirebaseFailure.code("INVALID_REFRESH_TOKEN") }
            guard record.issuedAt >= user.validSince else { throw FirebaseFailure.code("TOKEN_EXPIRED") }
            guard !user.disabled else { throw FirebaseFailure.code("USER_DISABLED") }
            user.lastRefreshAt = refreshedAt
            project.users[user.localId] = user
            return user
        }
        let idToken = FirebaseTokens.idToken(
            user: user, projectId: projectId, issuedAt: FirebaseUser.seconds(refreshedAt), authTime: record.authTime,
            secondFactor: record.secondFactor
        )
        return [
            "access_token": .string(idToken),
            "id_token": .string(idToken),
            "expires_in": .string(String(FirebaseTokens.lifetime)),
            "token_type": "Bearer",
            "refresh_token": .string(refreshToken),
            "user_id": .string(user.localId),
            "project_id": .string(FirebaseTokens.projectNumber(for: projectId)),
        ]
    }
}
