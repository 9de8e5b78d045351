import enum AuthHub.JSONValue
import Foundation
import Hummingbird

extension OpenfortService {
    /// `GET /iam/v2/auth/get-session[?disableCookieCache=true]` (Bearer) → `{session, user}`;
    /// JSON `null` (200) when the Bearer is missing, unknown or expired (AuthHubOpenfort docs, OpenfortEndpoints: “Sessions”). A session older
    /// than one day (since its last update) is extended to 7 days from now; the token stays.
    func getSession(_ request: Request) async -> JSONValue {
        guard let token = Self.bearer(request) else { return .null }
        let now = self.now
        return await state.update(OpenfortProject.key) { project -> JSONValue in
            guard var session = project.session(token: token, now: now), let user = project.users[session.userId] else {
                project.sessions[token] = nil
                return .null
            }
            if now.timeIntervalSince(session.updatedAt) >= Self.sessionUpdateAge {
                session.expiresAt = now.addingTimeInterval(Self.sessionLifetime)
                session.updatedAt = now
                project.sessions[token] = session
            }
            return ["session": session.json, "user": user.json]
        }
    }

    /// `POST /iam/v2/auth/sign-out` (Bearer) `{}` → `{success: true}`, ending the session; no valid
    /// session → `400 FAILED_TO_GET_SESSION`.
    func signOut(_ request: Request) async throws -> JSONValue {
        let now = self.now
        return try await state.update(OpenfortProject.key) { project -> JSONValue in
            guard let token = Self.bearer(request), project.session(token: token, now: now) != nil else {
                throw OpenfortFailure.failedToGetSession
            }
            project.sessions[token] = nil
            return ["success": true]
        }
    }

    /// `GET /iam/v2/me` (Bearer) → AuthUserResponse (AuthHubOpenfort docs, OpenfortEndpoints: “Object shapes”); no valid session → `401 UNAUTHORIZED`.
    func me(_ request: Request) async throws -> JSONValue {
        let project = await state.get(OpenfortProject.key)
        guard let user = currentUser(request, in: project) else { throw OpenfortFailure.unauthorized }
        return user.meJSON
    }

    /// `GET /iam/v2/auth/list-accounts` (Bearer) → `[{provider, accountId, createdAt, updatedAt}]`.
    func listAccounts(_ request: Request) async throws -> JSONValue {
        let project = await state.get(OpenfortProject.key)
        guard let user = currentUser(request, in: project) else { throw OpenfortFailure.unauthorized }
        return .array(user.accounts.map(\.listJSON))
    }
}
