import enum AuthHub.JSONValue
import Foundation
import Hummingbird

extension OpenfortService {
    /// `POST /iam/v2/auth/email-otp/send-verification-otp` `{email, type}` (AuthHubOpenfort docs, OpenfortEndpoints: “Endpoints”) → `{success: true}`.
    /// `type` is `sign-in`, `email-verification` or `forget-password` (else `VALIDATION_ERROR`).
    /// A `sign-in` OTP is issued for any address (sign-in creates the user); the other two only
    /// for an existing user (the answer is the same either way).
    func sendVerificationOTP(_ request: Request) async throws -> JSONValue {
        let body = try await Self.body(request)
        let email = try Self.email(body)
        let type = try Self.string(body, "type")
        guard OpenfortOTP.types.contains(type) else { throw OpenfortFailure.validation("type") }
        await issueOTP(email: email, type: type)
        return ["success": true]
    }

    /// `POST /iam/v2/auth/forget-password/email-otp` `{email}` → `{success: true}`; issues a
    /// `forget-password` OTP when the user exists.
    func forgetPasswordOTP(_ request: Request) async throws -> JSONValue {
        let body = try await Self.body(request)
        await issueOTP(email: try Self.email(body), type: "forget-password")
        return ["success": true]
    }

    /// Stores a new OTP, replacing a pending one of the same email and type.
    private func issueOTP(email: String, type: String) async {
        let otp = newOTP()
        await state.update(OpenfortProject.key) { project in
            if type != "sign-in" && project.user(email: email) == nil { return }
            project.otps.removeAll { $0.email == email && $0.type == type }
            project.otps.append(OpenfortOTP(email: email, otp: otp, type: type, expiresAt: now.addingTimeInterval(Self.otpLifetime)))
        }
    }

    /// `POST /iam/v2/auth/sign-in/email-otp` `{email, otp}` → `{token, user}`. Consumes a `sign-in`
    /// OTP (`INVALID_OTP`, `OTP_EXPIRED`, `TOO_MANY_ATTEMPTS`); creates the user (verified) when
    /// new, marks an existing one verified; with a Bearer session of an anonymous user, that user
    /// takes the email instead (upgrade in place).
    func signInWithOTP(_ request: Request) async throws -> JSONValue {
        let body = try await Self.body(request)
        let email = try Self.email(body)
        let otp = try Self.string(body, "otp")
        try await useOTP(email: email, type: "sign-in", otp: otp)
        return await state.update(OpenfortProject.key) { project -> JSONValue in
            var user: OpenfortUser
            if let existing = project.user(email: email) {
                user = existing
            } else if let current = currentUser(request, in: project), current.isAnonymous {
                user = current
                user.email = email
                user.isAnonymous = false
                project.sessions = project.sessions.filter { $0.value.userId != user.id }
            } else {
                user = OpenfortUser(
                    id: newId(), email: email, name: email, image: nil, emailVerified: true, isAnonymous: false,
                    createdAt: now, updatedAt: now
                )
            }
            if !user.emailVerified {
                user.emailVerified = true
                user.updatedAt = now
            }
            project.users[user.id] = user
            let session = startSession(for: user.id, in: &project)
            return ["token": .string(session.token), "user": user.json]
        }
    }

    /// `POST /iam/v2/auth/email-otp/verify-email` `{email, otp}` → `{status: true, token, user}`.
    /// Consumes an `email-verification` OTP, marks the user verified and signs them in (a new
    /// session token). No such user → `400 USER_NOT_FOUND`.
    func verifyEmailOTP(_ request: Request) async throws -> JSONValue {
        let body = try await Self.body(request)
        let email = try Self.email(body)
        let otp = try Self.string(body, "otp")
        guard await state.get(OpenfortProject.key).user(email: email) != nil else { throw OpenfortFailure.userNotFound }
        try await useOTP(email: email, type: "email-verification", otp: otp)
        return try await state.update(OpenfortProject.key) { project -> JSONValue in
            guard var user = project.user(email: email) else { throw OpenfortFailure.userNotFound }
            user.emailVerified = true
            user.updatedAt = now
            project.users[user.id] = user
            let session = startSession(for: user.id, in: &project)
            return ["status": true, "token": .string(session.token), "user": user.json]
        }
    }

    /// `POST /iam/v2/auth/email-otp/check-verification-otp` `{email, type, otp}` → `{success: true}`
    /// without using the code (wrong codes still count as attempts).
    func checkVerificationOTP(_ request: Request) async throws -> JSONValue {
        let body = try await Self.body(request)
        let email = try Self.email(body)
        let type = try Self.string(body, "type")
        let otp = try Self.string(body, "otp")
        guard OpenfortOTP.types.contains(type) else { throw OpenfortFailure.validation("type") }
        try await useOTP(email: email, type: type, otp: otp, keep: true)
        return ["success": true]
    }

    /// `POST /iam/v2/auth/email-otp/reset-password` `{email, otp, password}` → `{status: true}`.
    /// Consumes a `forget-password` OTP and sets the password (adding a `credential` account when
    /// the user had none). Sessions are kept (better-auth's `revokeSessionsOnPasswordReset: false`).
    func resetPasswordWithOTP(_ request: Request) async throws -> JSONValue {
        let body = try await Self.body(request)
        let email = try Self.email(body)
        let otp = try Self.string(body, "otp")
        let password = try Self.string(body, "password")
        try Self.checkPassword(password)
        let hash = try EmulatorPasswordHash(password: password, random: environment.random)
        try await useOTP(email: email, type: "forget-password", otp: otp)
        return try await state.update(OpenfortProject.key) { project -> JSONValue in
            guard let user = project.user(email: email) else { throw OpenfortFailure.userNotFound }
            setPassword(hash, for: user.id, in: &project)
            return ["status": true]
        }
    }

    /// Sets the password of `userId`, adding a `credential` account when there was none.
    func setPassword(_ hash: EmulatorPasswordHash, for userId: String, in project: inout OpenfortProject) {
        guard var user = project.users[userId] else { return }
        user.password = hash
        user.updatedAt = now
        if !user.accounts.contains(where: { $0.provider == "credential" }) {
            user.accounts.append(OpenfortAccount(provider: "credential", accountId: user.id, createdAt: now, updatedAt: now))
        }
        project.users[userId] = user
    }
}
