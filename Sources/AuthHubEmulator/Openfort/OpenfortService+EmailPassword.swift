import enum AuthHub.JSONValue
import Foundation
import Hummingbird

extension OpenfortService {
    /// `POST /iam/v2/auth/sign-up/email` `{email, password, name, callbackURL?, image?}` (AuthHubOpenfort docs, OpenfortEndpoints: “Endpoints”,
    /// AuthHubOpenfort docs, OpenfortEndpoints: “Examples”). Checks in order: fields (`VALIDATION_ERROR`), `INVALID_EMAIL`, `PASSWORD_TOO_SHORT` /
    /// `PASSWORD_TOO_LONG`, `422 USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL`. With a Bearer session of an
    /// anonymous user that user is upgraded in place (same id). Replies `{token, user}`; `token` is
    /// `null` (and a verification token is issued) when the project requires verification.
    func signUp(_ request: Request) async throws -> JSONValue {
        let body = try await Self.body(request)
        let email = try Self.email(body)
        let password = try Self.string(body, "password")
        let name = try Self.string(body, "name")
        let image = try Self.optionalString(body, "image")
        try Self.checkPassword(password)
        let hash = try EmulatorPasswordHash(password: password, random: environment.random)
        return try await state.update(OpenfortProject.key) { project -> JSONValue in
            if project.user(email: email) != nil { throw OpenfortFailure.userAlreadyExists }
            var user: OpenfortUser
            if let current = currentUser(request, in: project), current.isAnonymous {
                user = current
                user.email = email
                user.isAnonymous = false
                user.updatedAt = now
                project.sessions = project.sessions.filter { $0.value.userId != user.id }
            } else {
                user = OpenfortUser(
                    id: newId(), email: email, name: nil, image: nil, emailVerified: false, isAnonymous: false,
                    createdAt: now, updatedAt: now
                )
            }
            user.name = name
            user.image = image ?? user.image
            user.password = hash
            user.accounts.append(OpenfortAccount(provider: "credential", accountId: user.id, createdAt: now, updatedAt: now))
            project.users[user.id] = user
            if project.config.requireEmailVerification {
                issueLinkToken(.verification, for: user, in: &project)
                return ["token": .null, "user": user.json]
            }
            let session = startSession(for: user.id, in: &project)
            return ["token": .string(session.token), "user": user.json]
        }
    }

    /// `POST /iam/v2/auth/sign-in/email` `{email, password}` (AuthHubOpenfort docs, OpenfortEndpoints: “Endpoints” and “Examples”) →
    /// `{redirect: false, token, url: null, user}`. Unknown email, no password or a wrong one →
    /// `401 INVALID_EMAIL_OR_PASSWORD`; an unverified user while the project requires verification
    /// → `403 EMAIL_NOT_VERIFIED` (and a fresh verification token is issued, as better-auth resends).
    func signInWithPassword(_ request: Request) async throws -> JSONValue {
        let body = try await Self.body(request)
        let email = try Self.string(body, "email").lowercased()
        let password = try Self.string(body, "password")
        guard Self.isValidEmail(email) else { throw OpenfortFailure.invalidEmail }
        let project = await state.get(OpenfortProject.key)
        guard let user = project.user(email: email), let hash = user.password, hash.matches(password) else {
            throw OpenfortFailure.invalidEmailOrPassword
        }
        return try await state.update(OpenfortProject.key) { project -> JSONValue in
            guard let current = project.users[user.id] else { throw OpenfortFailure.invalidEmailOrPassword }
            if project.config.requireEmailVerification && !current.emailVerified {
                issueLinkToken(.verification, for: current, in: &project)
                throw OpenfortFailure.emailNotVerified
            }
            let session = startSession(for: current.id, in: &project)
            return ["redirect": false, "token": .string(session.token), "url": .null, "user": current.json]
        }
    }

    /// `POST /iam/v2/auth/sign-in/anonymous` (no body) → `{token, user}` with `isAnonymous: true`,
    /// `email` `temp@<id>.com`, `name` `Anonymous`. With a Bearer session of an anonymous user →
    /// `400 ANONYMOUS_USERS_CANNOT_SIGN_IN_AGAIN_ANONYMOUSLY`.
    func signInAnonymously(_ request: Request) async throws -> JSONValue {
        try await state.update(OpenfortProject.key) { project -> JSONValue in
            if let current = currentUser(request, in: project), current.isAnonymous { throw OpenfortFailure.anonymousAgain }
            let id = newId()
            let user = OpenfortUser(
                id: id, email: "temp@\(id.lowercased()).com", name: "Anonymous", image: nil, emailVerified: false,
                isAnonymous: true, createdAt: now, updatedAt: now
            )
            project.users[id] = user
            let session = startSession(for: id, in: &project)
            return ["token": .string(session.token), "user": user.json]
        }
    }
}
