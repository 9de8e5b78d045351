import enum AuthHub.JSONValue
import Foundation
import Hummingbird

extension FirebaseService {
    /// The account a call acts on: the owner of the `idToken` (checked as AuthHubFirebase docs, FirebaseEndpoints: “Emulator tokens” says), or, for a
    /// privileged call without one, the account `localId` (`USER_NOT_FOUND` when unknown).
    /// Neither: `MISSING_ID_TOKEN`.
    /// - Returns: the account and the `auth_time` of the presented ID token (nil for admin calls).
    func caller(_ call: Call, in project: FirebaseProject) throws -> (user: FirebaseUser, authTime: Int?) {
        if let idToken = try call.body.string("idToken") {
            let (user, claims) = try verify(idToken: idToken, in: project)
            return (user, claims.authTime)
        }
        if call.privileged, let localId = try call.body.strings("localId").first {
            guard let user = project.users[localId] else { throw FirebaseFailure.code("USER_NOT_FOUND") }
            return (user, nil)
        }
        throw FirebaseFailure.code("MISSING_ID_TOKEN")
    }

    /// The body of `accounts:update` replies without tokens.
    func accountReply(_ user: FirebaseUser) -> [String: JSONValue] {
        var reply: [String: JSONValue] = [
            "kind": "identitytoolkit#SetAccountInfoResponse",
            "localId": .string(user.localId),
            "emailVerified": .bool(user.emailVerified),
            "providerUserInfo": .array(user.providerUserInfo),
        ]
        if let email = user.email { reply["email"] = .string(email) }
        if let name = user.displayName { reply["displayName"] = .string(name) }
        if let photo = user.photoUrl { reply["photoUrl"] = .string(photo) }
        if user.passwordHash != nil { reply["passwordHash"] = .string(FirebaseUser.redactedPasswordHash) }
        return reply
    }

    /// `accounts:update` (AuthHubFirebase docs, FirebaseEndpoints: “Account update”).
    ///
    /// - `{oobCode}` applies a `VERIFY_EMAIL` or `VERIFY_AND_CHANGE_EMAIL` code (`MISSING_OOB_CODE`,
    ///   `INVALID_OOB_CODE`, `EXPIRED_OOB_CODE`, `EMAIL_NOT_FOUND` when the account is gone,
    ///   `USER_DISABLED`); other fields are ignored.
    /// - Otherwise the caller is the `idToken`'s account (or, privileged, `localId`). Checks in
    ///   order: the ID-token checks, `CREDENTIAL_TOO_OLD_LOGIN_AGAIN` (a password change or a
    ///   change to another email by an `idToken` caller whose sign-in is too old or marked, see
    ///   ``requireRecentLogin(_:authTime:)``), `INVALID_EMAIL`, `OPERATION_NOT_ALLOWED` (email change with
    ///   improved email privacy, non-privileged), `EMAIL_EXISTS`, `WEAK_PASSWORD : …`.
    ///   `displayName`/`photoUrl` set, `deleteAttribute` (`DISPLAY_NAME`, `PHOTO_URL`) clears;
    ///   `emailVerified` and `disableUser` are honoured for privileged calls only and ignored
    ///   otherwise; `deleteProvider` is not served (501).
    /// - A new email (marked unverified) or password bumps `validSince`; then, for an `idToken`
    ///   caller, the reply carries fresh `idToken`, `refreshToken`, `expiresIn` (`auth_time` kept
    ///   from the presented token). A profile-only change returns no tokens.
    func update(_ call: Call) async throws -> JSONValue {
        let body = call.body
        if body["oobCode"] != nil { return .object(try await applyEmailCode(try body.string("oobCode"), body: body)) }
        if try !body.strings("deleteProvider").isEmpty { throw FirebaseFailure.notImplemented("deleteProvider") }
        let project = await state.get(FirebaseProject.key)
        let (caller, authTime) = try caller(call, in: project)
        if !call.privileged { try checkTenant(body, account: caller.tenantId, in: project) }

        let rawEmail = try body.string("email")
        if try body.string("password") != nil || (rawEmail.map { $0.lowercased() != caller.email } ?? false) {
            try requireRecentLogin(caller, authTime: authTime)
        }
        var newEmail: String?
        if let raw = rawEmail {
            guard Self.isValidEmail(raw) else { throw FirebaseFailure.code("INVALID_EMAIL") }
            let email = raw.lowercased()
            if email != caller.email {
                if project.config.enableImprovedEmailPrivacy && !call.privileged {
                    throw FirebaseFailure.code("OPERATION_NOT_ALLOWED")
                }
                if project.emailTaken(email, tenant: caller.tenantId, except: caller.localId) { throw FirebaseFailure.code("EMAIL_EXISTS") }
                newEmail = email
            }
        }
        var hash: EmulatorPasswordHash?
        if let password = try body.string("password") {
            guard password.count >= Self.minimumPasswordLength else {
                throw FirebaseFailure.code("WEAK_PASSWORD", Self.weakPasswordDetail)
            }
            hash = try EmulatorPasswordHash(password: password, random: environment.random)
        }
        let deletions = try body.strings("deleteAttribute")
        for attribute in deletions where !["DISPLAY_NAME", "PHOTO_URL"].contains(attribute) {
            throw FirebaseFailure.invalidArgument("Invalid value at 'delete_attribute' (TYPE_ENUM), \"\(attribute)\"")
        }
        let displayName = try body.string("displayName")
        let photoUrl = try body.string("photoUrl")
        let emailVerified = call.privileged ? try body.bool("emailVerified") : nil
        let disable = call.privileged ? try body.bool("disableUser") : nil
        let changedAt = now
        let newHash = hash
        let email = newEmail

        let (user, bumped) = try await state.update(FirebaseProject.key) { project -> (FirebaseUser, Bool) in
            guard var user = project.users[caller.localId] else { throw FirebaseFailure.code("USER_NOT_FOUND") }
            if let email {
                if project.emailTaken(email, tenant: user.tenantId, except: user.localId) { throw FirebaseFailure.code("EMAIL_EXISTS") }
                user.email = email
                user.emailVerified = false
            }
            if let newHash {
                user.passwordHash = newHash
                user.passwordUpdatedAt = changedAt
            }
            if let displayName { user.displayName = displayName }
            if let photoUrl { user.photoUrl = photoUrl }
            if deletions.contains("DISPLAY_NAME") { user.displayName = nil }
            if deletions.contains("PHOTO_URL") { user.photoUrl = nil }
            if let emailVerified { user.emailVerified = emailVerified }
            if let disable { user.disabled = disable }
            let bumped = email != nil || newHash != nil
            if bumped { user.validSince = FirebaseUser.seconds(changedAt) }
            project.users[user.localId] = user
            return (user, bumped)
        }
        var reply = accountReply(user)
        if bumped, let authTime { reply.merge(tokens(for: user, authTime: authTime)) { _, new in new } }
        return .object(reply)
    }

    /// Applies a `VERIFY_EMAIL` or `VERIFY_AND_CHANGE_EMAIL` code: marks the email verified (after
    /// moving the account to the new address, which bumps `validSince`), deletes the code.
    /// With `body` (an `accounts:update` call), a project with tenants checks its `tenantId`
    /// against the code's account (``checkTenant(_:account:in:)``); the action link has none to check.
    func applyEmailCode(_ codeText: String?, body: FirebaseRequestBody? = nil) async throws -> [String: JSONValue] {
        let types: Set<String> = ["VERIFY_EMAIL", "VERIFY_AND_CHANGE_EMAIL"]
        let project = await state.get(FirebaseProject.key)
        let found = try pendingCode(codeText, types: types, in: project)
        if let body { try checkTenant(body, account: found.tenantId, in: project) }
        let changedAt = now
        let user = try await state.update(FirebaseProject.key) { project -> FirebaseUser in
            let pending = try pendingCode(codeText, types: types, in: project)
            guard let localId = pending.localId, var user = project.users[localId] else {
                throw FirebaseFailure.code("EMAIL_NOT_FOUND")
            }
            guard !user.disabled else { throw FirebaseFailure.code("USER_DISABLED") }
            if let newEmail = pending.newEmail {
                if project.emailTaken(newEmail, tenant: user.tenantId, except: localId) { throw FirebaseFailure.code("EMAIL_EXISTS") }
                user.email = newEmail
                user.validSince = FirebaseUser.seconds(changedAt)
            } else if user.email != pending.email {
                throw FirebaseFailure.code("INVALID_OOB_CODE")
            }
            user.emailVerified = true
            project.users[localId] = user
            project.removeOobCode(pending.code)
            return user
        }
        return accountReply(user)
    }

    /// `accounts:lookup` (AuthHubFirebase docs, FirebaseEndpoints: “Lookup”) → `{kind, users?: [UserInfo]}`. A caller sends `idToken`
    /// (`MISSING_ID_TOKEN` without it, then the ID-token checks); a privileged call may instead send
    /// `localId[]`, `email[]` or `phoneNumber[]` and gets the accounts that exist (`users` is left
    /// out when none do).
    func lookup(_ call: Call) async throws -> JSONValue {
        let project = await state.get(FirebaseProject.key)
        var found: [FirebaseUser] = []
        if let idToken = try call.body.string("idToken") {
            found = [try verify(idToken: idToken, in: project).0]
        } else if call.privileged {
            var seen = Set<String>()
            let byId = try call.body.strings("localId").compactMap { project.users[$0] }
            let byEmail = try call.body.strings("email").flatMap { email in
                project.users.values.filter { $0.email == email.lowercased() }.sorted { $0.createdAt < $1.createdAt }
            }
            _ = try call.body.strings("phoneNumber")  // no account of this emulator has a phone number
            found = (byId + byEmail).filter { seen.insert($0.localId).inserted }
        } else {
            throw FirebaseFailure.code("MISSING_ID_TOKEN")
        }
        var reply: [String: JSONValue] = ["kind": "identitytoolkit#GetAccountInfoResponse"]
        if !found.isEmpty { reply["users"] = .array(found.map(\.userInfo)) }
        return .object(reply)
    }

    /// `accounts:delete` (AuthHubFirebase docs, FirebaseEndpoints: “Delete”) → `{kind}`: the `idToken`'s account (`MISSING_ID_TOKEN`, then
    /// the ID-token checks, then `CREDENTIAL_TOO_OLD_LOGIN_AGAIN` when the sign-in is older than
    /// ``recentLoginWindow`` or the account is marked by `:requireRecentLogin`), or privileged,
    /// `localId` (`USER_NOT_FOUND` when unknown). Pending oob codes, TOTP enrollments and MFA
    /// pending credentials of the account go with it.
    func delete(_ call: Call) async throws -> JSONValue {
        let project = await state.get(FirebaseProject.key)
        let (user, authTime) = try caller(call, in: project)
        try requireRecentLogin(user, authTime: authTime)
        try await state.update(FirebaseProject.key) { project in
            guard project.users.removeValue(forKey: user.localId) != nil else { throw FirebaseFailure.code("USER_NOT_FOUND") }
            project.oobCodes.removeAll { $0.localId == user.localId }
            project.totpEnrollments = project.totpEnrollments.filter { $0.value.localId != user.localId }
            project.pendingMFA = project.pendingMFA.filter { $0.value.localId != user.localId }
        }
        return ["kind": "identitytoolkit#DeleteAccountResponse"]
    }
}
