import enum AuthHub.JSONValue
import Foundation
import Hummingbird

extension FirebaseService {
    /// `accounts:sendOobCode` (AuthHubFirebase docs, FirebaseEndpoints: “Email action codes”). Nothing is mailed: the code is kept for the `oobCodes`
    /// helper. Checks: `MISSING_REQ_TYPE`; an unknown type is `INVALID_REQ_TYPE : Unsupported
    /// request type`; a `continueUrl` that is not an absolute URL is `INVALID_CONTINUE_URI`.
    /// - `PASSWORD_RESET {email}`: `MISSING_EMAIL` → `INVALID_EMAIL` → `EMAIL_NOT_FOUND` (with
    ///   improved email privacy an unknown email answers 200 and no code is made).
    /// - `VERIFY_EMAIL {idToken}`: `MISSING_ID_TOKEN`, the ID-token checks, `MISSING_EMAIL` for an
    ///   account without email; the body's `email` is ignored.
    /// - `VERIFY_AND_CHANGE_EMAIL {idToken, newEmail}`: the ID-token checks, `MISSING_NEW_EMAIL`,
    ///   `INVALID_EMAIL`, `EMAIL_EXISTS`; the code goes to the new address.
    /// - `EMAIL_SIGNIN {email}`: `MISSING_EMAIL` → `INVALID_EMAIL` (signing in with the link is not
    ///   served).
    ///
    /// Reply `{kind, email}`; a privileged call with `returnOobLink: true` also gets `oobCode` and
    /// `oobLink`.
    func sendOobCode(_ call: Call, request: Request) async throws -> JSONValue {
        let body = call.body
        guard let requestType = try body.string("requestType") else { throw FirebaseFailure.code("MISSING_REQ_TYPE") }
        let continueUrl = try body.string("continueUrl")
        if let continueUrl, URLComponents(string: continueUrl)?.scheme == nil {
            throw FirebaseFailure.code("INVALID_CONTINUE_URI", "The continue URL is not a valid URL.")
        }
        let project = await state.get(FirebaseProject.key)
        var code = FirebaseOobCode(
            code: newOobCode(), requestType: requestType, email: "", localId: nil, newEmail: nil,
            continueUrl: continueUrl, expiresAt: now.addingTimeInterval(Self.oobCodeLifetime)
        )
        switch requestType {
        case "PASSWORD_RESET", "EMAIL_SIGNIN":
            guard let raw = try body.string("email") else { throw FirebaseFailure.code("MISSING_EMAIL") }
            guard Self.isValidEmail(raw) else { throw FirebaseFailure.code("INVALID_EMAIL") }
            let email = raw.lowercased()
            code.email = email
            code.tenantId = try requestedTenant(body, in: project)
            let user = project.user(email: email, tenant: code.tenantId)
            code.localId = user?.localId
            if requestType == "PASSWORD_RESET" && user == nil {
                if project.config.enableImprovedEmailPrivacy {
                    return ["kind": "identitytoolkit#GetOobConfirmationCodeResponse", "email": .string(email)]
                }
                throw FirebaseFailure.code("EMAIL_NOT_FOUND")
            }
        case "VERIFY_EMAIL", "VERIFY_AND_CHANGE_EMAIL":
            guard let idToken = try body.string("idToken") else { throw FirebaseFailure.code("MISSING_ID_TOKEN") }
            let (user, _) = try verify(idToken: idToken, in: project)
            try checkTenant(body, account: user.tenantId, in: project)
            code.localId = user.localId
            code.tenantId = user.tenantId
            if requestType == "VERIFY_EMAIL" {
                guard let email = user.email else { throw FirebaseFailure.code("MISSING_EMAIL") }
                code.email = email
            } else {
                guard let raw = try body.string("newEmail") else { throw FirebaseFailure.code("MISSING_NEW_EMAIL") }
                guard Self.isValidEmail(raw) else { throw FirebaseFailure.code("INVALID_EMAIL") }
                let newEmail = raw.lowercased()
                if project.emailTaken(newEmail, tenant: user.tenantId, except: user.localId) { throw FirebaseFailure.code("EMAIL_EXISTS") }
                code.email = newEmail
                code.newEmail = newEmail
            }
        default:
            throw FirebaseFailure.code("INVALID_REQ_TYPE", "Unsupported request type")
        }
        let stored = code
        await state.update(FirebaseProject.key) { $0.oobCodes.append(stored) }
        var reply: [String: JSONValue] = ["kind": "identitytoolkit#GetOobConfirmationCodeResponse", "email": .string(code.email)]
        if call.privileged, try body.bool("returnOobLink") == true {
            reply["oobCode"] = .string(code.code)
            reply["oobLink"] = .string(oobLink(code, base: await baseURL(for: request)))
        }
        return .object(reply)
    }

    /// `http://HOST:PORT/emulator/action?mode=…&lang=en&oobCode=…&apiKey=fake-api-key[&continueUrl=…]`
    /// (AuthHubFirebase docs, FirebaseEndpoints: “Emulator”).
    func oobLink(_ code: FirebaseOobCode, base: String) -> String {
        var items = [
            URLQueryItem(name: "mode", value: code.mode), URLQueryItem(name: "lang", value: "en"),
            URLQueryItem(name: "oobCode", value: code.code), URLQueryItem(name: "apiKey", value: "fake-api-key"),
        ]
        if let continueUrl = code.continueUrl { items.append(URLQueryItem(name: "continueUrl", value: continueUrl)) }
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let query = items.map { "\($0.name)=\(($0.value ?? "").addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }
        return base + "/emulator/action?" + query.joined(separator: "&")
    }

    /// The pending code `code` of one of `types`: `MISSING_OOB_CODE`, `INVALID_OOB_CODE` (unknown,
    /// used, or of another request type), `EXPIRED_OOB_CODE`.
    func pendingCode(_ code: String?, types: Set<String>, in project: FirebaseProject) throws -> FirebaseOobCode {
        guard let code else { throw FirebaseFailure.code("MISSING_OOB_CODE") }
        guard let pending = project.oobCode(code), types.contains(pending.requestType) else {
            throw FirebaseFailure.code("INVALID_OOB_CODE")
        }
        guard pending.expiresAt > now else { throw FirebaseFailure.code("EXPIRED_OOB_CODE") }
        return pending
    }

    /// `accounts:resetPassword` (AuthHubFirebase docs, FirebaseEndpoints: “Reset password”). `{oobCode}` only checks the code; `{oobCode,
    /// newPassword}` sets the password. Order: `MISSING_OOB_CODE` → `INVALID_OOB_CODE` →
    /// `EXPIRED_OOB_CODE` → `WEAK_PASSWORD : …` → `INVALID_OOB_CODE` (account gone) →
    /// `USER_DISABLED`. Setting the password marks the email verified, bumps `validSince` and
    /// deletes the code. Reply `{kind, email, requestType: "PASSWORD_RESET"}`, no tokens.
    func resetPassword(_ call: Call) async throws -> JSONValue {
        let codeText = try call.body.string("oobCode")
        let newPassword = try call.body.string("newPassword")
        let project = await state.get(FirebaseProject.key)
        let pending = try pendingCode(codeText, types: ["PASSWORD_RESET"], in: project)
        try checkTenant(call.body, account: pending.tenantId, in: project)
        let reply: JSONValue = [
            "kind": "identitytoolkit#ResetPasswordResponse", "email": .string(pending.email), "requestType": "PASSWORD_RESET",
        ]
        guard let newPassword else { return reply }
        guard newPassword.count >= Self.minimumPasswordLength else {
            throw FirebaseFailure.code("WEAK_PASSWORD", Self.weakPasswordDetail)
        }
        let hash = try EmulatorPasswordHash(password: newPassword, random: environment.random)
        let changedAt = now
        try await state.update(FirebaseProject.key) { project in
            let pending = try pendingCode(codeText, types: ["PASSWORD_RESET"], in: project)
            guard let localId = pending.localId, var user = project.users[localId], user.email == pending.email else {
                throw FirebaseFailure.code("INVALID_OOB_CODE")
            }
            guard !user.disabled else { throw FirebaseFailure.code("USER_DISABLED") }
            user.passwordHash = hash
            user.passwordUpdatedAt = changedAt
            user.emailVerified = true
            user.validSince = FirebaseUser.seconds(changedAt)
            project.users[localId] = user
            project.removeOobCode(pending.code)
        }
        return reply
    }
}
