import enum AuthHub.JSONValue
import Foundation
import Hummingbird

extension OpenfortService {
    /// The `message` of a password-reset request (better-auth's wording; the same for unknown emails).
    static let resetRequestMessage = "If this email exists in our system, check your email for the reset link"

    /// `POST /iam/v2/auth/send-verification-email` `{email, callbackURL?}` → `{status: true}`. Issues
    /// a verification token for an existing unverified user (unknown emails get the same answer);
    /// an already verified user → `400 EMAIL_ALREADY_VERIFIED`.
    func sendVerificationEmail(_ request: Request) async throws -> JSONValue {
        let body = try await Self.body(request)
        let email = try Self.email(body)
        return try await state.update(OpenfortProject.key) { project -> JSONValue in
            guard let user = project.user(email: email) else { return ["status": true] }
            if user.emailVerified { throw OpenfortFailure.emailAlreadyVerified }
            issueLinkToken(.verification, for: user, in: &project)
            return ["status": true]
        }
    }

    /// `GET /iam/v2/auth/verify-email?token=…[&callbackURL=…]` → `{status: true, user}`, or a 302 to
    /// `callbackURL` when one is given. Bad token → `400 INVALID_TOKEN`, expired → `400
    /// TOKEN_EXPIRED` (with a `callbackURL`: a 302 to it with `?error=INVALID_TOKEN` /
    /// `TOKEN_EXPIRED`). The token is single-use; the user becomes verified.
    func verifyEmail(_ request: Request) async throws -> Response {
        let query = request.queryValues
        let callbackURL = query["callbackURL"].flatMap { $0.isEmpty ? nil : $0 }
        let outcome = await use([.verification, .changeEmail], token: query["token"] ?? "")
        switch outcome {
        case .failure(let failure):
            if let callbackURL { return Self.redirect(Self.appending([("error", failure.code)], to: callbackURL)) }
            throw failure
        case .success(let link):
            let user: OpenfortUser? = await state.update(OpenfortProject.key) { project in
                guard var user = project.users[link.userId] else { return nil }
                if link.kind == .changeEmail {
                    // The new address, unless another user took it meanwhile.
                    guard project.user(email: link.email) == nil else { return nil }
                    for index in user.accounts.indices where user.accounts[index].accountId == user.email {
                        user.accounts[index].accountId = link.email
                    }
                    user.email = link.email
                } else {
                    guard user.email == link.email else { return nil }
                }
                user.emailVerified = true
                user.updatedAt = now
                project.users[user.id] = user
                return user
            }
            guard let user else {
                if let callbackURL { return Self.redirect(Self.appending([("error", "USER_NOT_FOUND")], to: callbackURL)) }
                throw OpenfortFailure.userNotFound
            }
            if let callbackURL { return Self.redirect(callbackURL) }
            return EmulatorResponse.json(["status": true, "user": user.json])
        }
    }

    /// `POST /iam/v2/auth/change-email` (Bearer) `{newEmail, callbackURL?}` → `{status: true,
    /// message}` (AuthHubOpenfort docs, OpenfortEndpoints: “Change email”): a user whose address is
    /// not verified gets the new one at once (`"Email updated"`); a verified user gets a link at the
    /// new address (`verify-email`, the emulator's `tokens?email=<new>` hook as `change_email_token`)
    /// and keeps the old address until it is followed (`"Verification email sent"`). The same
    /// address, or one another user has → `400 EMAIL_CAN_NOT_BE_UPDATED`; an anonymous user →
    /// `400 EMAIL_CAN_NOT_BE_UPDATED` too.
    func changeEmail(_ request: Request) async throws -> JSONValue {
        let body = try await Self.body(request)
        let newEmail = try Self.email(body, "newEmail")
        _ = try Self.optionalString(body, "callbackURL")
        return try await state.update(OpenfortProject.key) { project -> JSONValue in
            guard var user = currentUser(request, in: project) else { throw OpenfortFailure.unauthorized }
            guard !user.isAnonymous, user.email != newEmail, project.user(email: newEmail) == nil else {
                throw OpenfortFailure.emailCanNotBeUpdated
            }
            if user.emailVerified {
                issueLinkToken(.changeEmail, for: user, email: newEmail, in: &project)
                return ["status": true, "message": "Verification email sent"]
            }
            for index in user.accounts.indices where user.accounts[index].accountId == user.email {
                user.accounts[index].accountId = newEmail
            }
            user.email = newEmail
            user.updatedAt = now
            project.users[user.id] = user
            return ["status": true, "message": "Email updated"]
        }
    }

    /// `POST /iam/v2/auth/request-password-reset` (and `/forget-password`) `{email, redirectTo?}` →
    /// `{status: true, message}`; issues a reset token when the user exists.
    func requestPasswordReset(_ request: Request) async throws -> JSONValue {
        let body = try await Self.body(request)
        let email = try Self.email(body)
        await state.update(OpenfortProject.key) { project in
            guard let user = project.user(email: email) else { return }
            issueLinkToken(.reset, for: user, in: &project)
        }
        return ["status": true, "message": .string(Self.resetRequestMessage)]
    }

    /// `GET /iam/v2/auth/reset-password/{token}?callbackURL=…` (the emailed link) → 302 to
    /// `callbackURL?token=<token>`, or `callbackURL?error=INVALID_TOKEN` for an unknown or expired
    /// token. The token is not used up here. No `callbackURL` → `CALLBACK_URL_REQUIRED`.
    func resetPasswordLanding(_ request: Request, token: String) async throws -> Response {
        guard let callbackURL = request.queryValues["callbackURL"], !callbackURL.isEmpty else {
            throw OpenfortFailure.callbackURLRequired
        }
        let project = await state.get(OpenfortProject.key)
        let valid = project.linkTokens.contains { $0.kind == .reset && $0.token == token && $0.expiresAt > now }
        return Self.redirect(Self.appending([valid ? ("token", token) : ("error", "INVALID_TOKEN")], to: callbackURL))
    }

    /// `POST /iam/v2/auth/reset-password` `{newPassword, token}` → `{status: true}`. Unknown, used
    /// or expired token → `400 INVALID_TOKEN`; password length checks first. Sessions are kept
    /// (better-auth's `revokeSessionsOnPasswordReset: false`).
    func resetPassword(_ request: Request) async throws -> JSONValue {
        let body = try await Self.body(request)
        let password = try Self.string(body, "newPassword")
        let token = try Self.optionalString(body, "token") ?? request.queryValues["token"] ?? ""
        try Self.checkPassword(password)
        let hash = try EmulatorPasswordHash(password: password, random: environment.random)
        switch await use([.reset], token: token) {
        case .failure:
            throw OpenfortFailure.invalidToken
        case .success(let link):
            await state.update(OpenfortProject.key) { project in
                setPassword(hash, for: link.userId, in: &project)
            }
            return ["status": true]
        }
    }

    /// Uses up a link token of `kind`: `INVALID_TOKEN` when unknown, `TOKEN_EXPIRED` when expired.
    private func use(_ kinds: Set<OpenfortLinkToken.Kind>, token: String) async -> Result<OpenfortLinkToken, OpenfortFailure> {
        let now = self.now
        return await state.update(OpenfortProject.key) { project in
            guard !token.isEmpty, let index = project.linkTokens.firstIndex(where: { kinds.contains($0.kind) && $0.token == token }) else {
                return .failure(.invalidToken)
            }
            let link = project.linkTokens.remove(at: index)
            return link.expiresAt > now ? .success(link) : .failure(.tokenExpired)
        }
    }
}
