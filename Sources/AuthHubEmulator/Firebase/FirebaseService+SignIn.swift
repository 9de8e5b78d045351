import enum AuthHub.JSONValue
import Foundation
import Hummingbird

extension FirebaseService {
    /// A new email/password account, checked but not stored yet.
    struct NewAccount: Sendable {
        var email: String
        var password: String
        var displayName: String?
        var photoUrl: String?
        var emailVerified = false
        var disabled = false
        var mfaInfo: [JSONValue] = []
        /// The tenant the account is created in (nil: the project).
        var tenantId: String?
    }

    /// Checks sign-up fields in the emulator's order (AuthHubFirebase docs, FirebaseEndpoints: “Sign-up”) up to `EMAIL_EXISTS`, which
    /// ``store(_:)`` checks atomically: `MISSING_EMAIL` → `MISSING_PASSWORD` →
    /// (`OPERATION_NOT_ALLOWED`: never, password sign-up is always enabled) → `INVALID_EMAIL`.
    /// A body with neither email nor password is an anonymous sign-up, which this emulator does
    /// not offer: `ADMIN_ONLY_OPERATION`, Firebase's answer when anonymous sign-in is disabled.
    func newAccount(_ body: FirebaseRequestBody) throws -> NewAccount {
        let email = try body.string("email")
        let password = try body.string("password")
        if email == nil && password == nil { throw FirebaseFailure.code("ADMIN_ONLY_OPERATION") }
        guard let email else { throw FirebaseFailure.code("MISSING_EMAIL") }
        guard let password else { throw FirebaseFailure.code("MISSING_PASSWORD") }
        guard Self.isValidEmail(email) else { throw FirebaseFailure.code("INVALID_EMAIL") }
        return NewAccount(
            email: email.lowercased(), password: password, displayName: try body.string("displayName"),
            photoUrl: try body.string("photoUrl")
        )
    }

    /// ``newAccount(_:)`` in the tenant the body names (`INVALID_TENANT_ID` for an unknown one).
    func newAccount(_ body: FirebaseRequestBody, in project: FirebaseProject) throws -> NewAccount {
        let tenant = try requestedTenant(body, in: project)
        var account = try newAccount(body)
        account.tenantId = tenant
        return account
    }

    /// Stores `account`: `EMAIL_EXISTS` when the address is taken (unless the project allows
    /// duplicates), then `WEAK_PASSWORD : Password should be at least 6 characters`.
    func store(_ account: NewAccount) async throws -> FirebaseUser {
        let weak = account.password.count < Self.minimumPasswordLength
        let hash = weak ? nil : try EmulatorPasswordHash(password: account.password, random: environment.random)
        let created = now
        let user = FirebaseUser(
            localId: newLocalId(), email: account.email, passwordHash: hash, emailVerified: account.emailVerified,
            displayName: account.displayName, photoUrl: account.photoUrl, disabled: account.disabled,
            validSince: FirebaseUser.seconds(created), createdAt: created, passwordUpdatedAt: created, mfaInfo: account.mfaInfo,
            tenantId: account.tenantId
        )
        try await state.update(FirebaseProject.key) { project in
            if project.emailTaken(account.email, tenant: account.tenantId) { throw FirebaseFailure.code("EMAIL_EXISTS") }
            if weak { throw FirebaseFailure.code("WEAK_PASSWORD", Self.weakPasswordDetail) }
            project.users[user.localId] = user
        }
        return user
    }

    /// `accounts:signUp` (AuthHubFirebase docs, FirebaseEndpoints: “Sign-up”) → `{kind, localId, email, displayName?, idToken, refreshToken,
    /// expiresIn}`. Upgrading an anonymous user (`idToken` in the body) is not served (501).
    func signUp(_ call: Call) async throws -> JSONValue {
        if try call.body.string("idToken") != nil { throw FirebaseFailure.notImplemented("Linking with accounts:signUp") }
        var user = try await store(try newAccount(call.body, in: await state.get(FirebaseProject.key)))
        user.lastLoginAt = now
        let signedIn = user
        await state.update(FirebaseProject.key) { $0.users[signedIn.localId]?.lastLoginAt = signedIn.lastLoginAt }
        var reply = tokens(for: user)
        reply["kind"] = "identitytoolkit#SignupNewUserResponse"
        reply["localId"] = .string(user.localId)
        reply["email"] = .string(user.email ?? "")
        if let name = user.displayName { reply["displayName"] = .string(name) }
        return .object(reply)
    }

    /// `accounts:signInWithPassword` (AuthHubFirebase docs, FirebaseEndpoints: “Password sign-in”), in the emulator's order: (`PASSWORD_LOGIN_DISABLED`:
    /// never) → `MISSING_EMAIL` → `INVALID_EMAIL` → `MISSING_PASSWORD` → `EMAIL_NOT_FOUND` →
    /// `USER_DISABLED` → `INVALID_PASSWORD`; with improved email privacy the unknown email and the
    /// wrong password are both `INVALID_LOGIN_CREDENTIALS`.
    ///
    /// Reply: `{kind, localId, email, displayName ("" when unset), idToken, registered: true,
    /// refreshToken, expiresIn, profilePicture?}`, or for a user with second factors
    /// `{kind, localId, email, mfaPendingCredential, mfaInfo}` and no tokens (the credential is
    /// kept for ``FirebaseMFA/pendingCredentialLifetime`` for `mfaSignIn:finalize`). A sign-in
    /// with tokens clears the `:requireRecentLogin` mark.
    func signInWithPassword(_ call: Call) async throws -> JSONValue {
        guard let rawEmail = try call.body.string("email") else { throw FirebaseFailure.code("MISSING_EMAIL") }
        guard Self.isValidEmail(rawEmail) else { throw FirebaseFailure.code("INVALID_EMAIL") }
        guard let password = try call.body.string("password") else { throw FirebaseFailure.code("MISSING_PASSWORD") }
        let project = await state.get(FirebaseProject.key)
        let tenant = try requestedTenant(call.body, in: project)
        let privacy = project.config.enableImprovedEmailPrivacy
        guard let found = project.user(email: rawEmail.lowercased(), tenant: tenant) else {
            throw FirebaseFailure.code(privacy ? "INVALID_LOGIN_CREDENTIALS" : "EMAIL_NOT_FOUND")
        }
        guard !found.disabled else { throw FirebaseFailure.code("USER_DISABLED") }
        guard let hash = found.passwordHash, hash.matches(password) else {
            throw FirebaseFailure.code(privacy ? "INVALID_LOGIN_CREDENTIALS" : "INVALID_PASSWORD")
        }
        var reply: [String: JSONValue] = [
            "kind": "identitytoolkit#VerifyPasswordResponse",
            "localId": .string(found.localId),
            "email": .string(found.email ?? ""),
        ]
        if !found.mfaInfo.isEmpty {
            let credential = FirebaseTokens.mfaPendingCredential(localId: found.localId, projectId: projectId, nonce: newOobCode())
            let pending = FirebasePendingMFA(localId: found.localId, issuedAt: nowSeconds,
                                             expiresAt: now.addingTimeInterval(FirebaseMFA.pendingCredentialLifetime))
            let issuedAt = now
            await state.update(FirebaseProject.key) { project in
                project.pendingMFA = project.pendingMFA.filter { $0.value.expiresAt > issuedAt }
                project.pendingMFA[credential] = pending
            }
            reply["mfaPendingCredential"] = .string(credential)
            reply["mfaInfo"] = .array(found.mfaInfo)
            return .object(reply)
        }
        let loginAt = now
        let user = await state.update(FirebaseProject.key) { project -> FirebaseUser in
            project.users[found.localId]?.lastLoginAt = loginAt
            project.users[found.localId]?.recentLoginRequired = false
            return project.users[found.localId] ?? found
        }
        reply.merge(tokens(for: user)) { _, new in new }
        reply["displayName"] = .string(user.displayName ?? "")
        reply["registered"] = true
        if let picture = user.photoUrl { reply["profilePicture"] = .string(picture) }
        return .object(reply)
    }
}
