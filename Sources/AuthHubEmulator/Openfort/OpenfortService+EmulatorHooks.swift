import enum AuthHub.JSONValue
import Foundation
import Hummingbird

/// The emulator-only hooks under `/openfort/__emulator/` (not Openfort; no project key needed).
extension OpenfortService {
    /// `GET /openfort/__emulator/otp?email=…[&type=…]` → `{email, otp, type}` of the newest pending
    /// OTP of that address (optionally of one type), or `404 NOT_FOUND`.
    func pendingOTP(_ request: Request) async throws -> JSONValue {
        let query = request.queryValues
        let email = (query["email"] ?? "").lowercased()
        let type = query["type"]
        let project = await state.get(OpenfortProject.key)
        guard let otp = project.otps.last(where: { $0.email == email && (type == nil || $0.type == type) }) else {
            throw OpenfortFailure.notFound("No pending OTP for that email")
        }
        return ["email": .string(otp.email), "otp": .string(otp.otp), "type": .string(otp.type)]
    }

    /// `GET /openfort/__emulator/tokens?email=…` → `{email, verification_token?, reset_token?}`: the
    /// newest pending link tokens sent to that address, or `404 NOT_FOUND` when there is none.
    func pendingTokens(_ request: Request) async throws -> JSONValue {
        let email = (request.queryValues["email"] ?? "").lowercased()
        let project = await state.get(OpenfortProject.key)
        var reply: [String: JSONValue] = ["email": .string(email)]
        if let token = project.linkTokens.last(where: { $0.email == email && $0.kind == .verification }) {
            reply["verification_token"] = .string(token.token)
        }
        if let token = project.linkTokens.last(where: { $0.email == email && $0.kind == .reset }) {
            reply["reset_token"] = .string(token.token)
        }
        if let token = project.linkTokens.last(where: { $0.email == email && $0.kind == .changeEmail }) {
            reply["change_email_token"] = .string(token.token)
        }
        guard reply.count > 1 else { throw OpenfortFailure.notFound("No pending token for that email") }
        return .object(reply)
    }

    /// `POST /openfort/__emulator/users` `{email, password, name?, emailVerified?}` → the User (AuthHubOpenfort docs, OpenfortEndpoints: “Object shapes”).
    /// Same checks as sign-up (`INVALID_EMAIL`, `PASSWORD_TOO_SHORT`, `422
    /// USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL`); `name` defaults to the email.
    func seedUser(_ request: Request) async throws -> JSONValue {
        let body = try await Self.body(request)
        let email = try Self.email(body)
        let password = try Self.string(body, "password")
        try Self.checkPassword(password)
        let name = try Self.optionalString(body, "name") ?? email
        let verified = body["emailVerified"]?.boolValue ?? false
        let hash = try EmulatorPasswordHash(password: password, random: environment.random)
        return try await state.update(OpenfortProject.key) { project -> JSONValue in
            if project.user(email: email) != nil { throw OpenfortFailure.userAlreadyExists }
            let id = newId()
            let user = OpenfortUser(
                id: id, email: email, name: name, image: nil, emailVerified: verified, isAnonymous: false,
                createdAt: now, updatedAt: now, password: hash,
                accounts: [OpenfortAccount(provider: "credential", accountId: id, createdAt: now, updatedAt: now)]
            )
            project.users[id] = user
            return user.json
        }
    }

    /// `GET /openfort/__emulator/config` → `{requireEmailVerification}`.
    func getConfig() async -> JSONValue {
        ["requireEmailVerification": .bool(await state.get(OpenfortProject.key).config.requireEmailVerification)]
    }

    /// `PATCH /openfort/__emulator/config` `{requireEmailVerification?}` → the new config.
    func patchConfig(_ request: Request) async throws -> JSONValue {
        let body = try await Self.body(request)
        if let value = body["requireEmailVerification"] {
            guard let flag = value.boolValue else { throw OpenfortFailure.validation("requireEmailVerification") }
            await state.update(OpenfortProject.key) { $0.config.requireEmailVerification = flag }
        }
        return await getConfig()
    }
}
