import enum AuthHub.JSONValue
import struct AuthHub.Secret
import AuthHubFactors
import Foundation
import Hummingbird

/// Identity Platform v2 second factors (TOTP), as ``FirebaseMFA`` lists the facts.
extension FirebaseService {
    /// The `mfaInfo` entry of a TOTP factor: `{mfaEnrollmentId, displayName?, totpInfo: {}, enrolledAt}`.
    static func totpInfoEntry(id: String, displayName: String?, enrolledAt: Date) -> JSONValue {
        var entry: [String: JSONValue] = [
            "mfaEnrollmentId": .string(id), "totpInfo": [:], "enrolledAt": .string(FirebaseUser.rfc3339(enrolledAt)),
        ]
        if let displayName { entry["displayName"] = .string(displayName) }
        return .object(entry)
    }

    /// The code in `info.verificationCode`: `MISSING_CODE` when absent, `INVALID_CODE` when longer
    /// than ``FirebaseMFA/maximumCodeLength`` (never run through the generator).
    static func verificationCode(_ info: FirebaseRequestBody?) throws -> Secret<String> {
        guard let code = try info?.string("verificationCode") else { throw FirebaseFailure.code("MISSING_CODE") }
        guard code.count <= FirebaseMFA.maximumCodeLength else { throw FirebaseFailure.code("INVALID_CODE") }
        return Secret(code)
    }

    /// `POST /v2/accounts/mfaEnrollment:start {idToken, totpEnrollmentInfo: {}, tenantId?}` →
    /// `{totpSessionInfo: {sharedSecretKey, verificationCodeLength: 6, hashingAlgorithm: "SHA1",
    /// periodSec: 30, sessionInfo, finalizeEnrollmentTime}}`.
    ///
    /// Checks in order: `MISSING_ID_TOKEN` and the ID-token checks, the tenant
    /// (`TENANT_ID_MISMATCH`), `phoneEnrollmentInfo` → 501 (phone factors are not served),
    /// no `totpEnrollmentInfo` → `400 INVALID_ARGUMENT`, `UNVERIFIED_EMAIL` (Identity Platform
    /// enrolls second factors only for verified emails), `SECOND_FACTOR_LIMIT_EXCEEDED` (5).
    /// The secret is 20 random bytes, sent as unpadded base32; `sessionInfo` is a random opaque
    /// value bound to the account; `finalizeEnrollmentTime` (RFC 3339) is 10 minutes away.
    func startMFAEnrollment(_ call: Call) async throws -> JSONValue {
        let project = await state.get(FirebaseProject.key)
        let (user, _) = try caller(call, in: project)
        try checkTenant(call.body, account: user.tenantId, in: project)
        if call.body["phoneEnrollmentInfo"] != nil { throw FirebaseFailure.notImplemented("Phone second factors") }
        guard try call.body.object("totpEnrollmentInfo") != nil else {
            throw FirebaseFailure.invalidArgument("totpEnrollmentInfo is required (only TOTP second factors are served)")
        }
        guard user.emailVerified else { throw FirebaseFailure.code("UNVERIFIED_EMAIL", "Need to verify email first before enrolling second factors.") }
        guard user.mfaInfo.count < FirebaseMFA.maximumFactors else { throw FirebaseFailure.code("SECOND_FACTOR_LIMIT_EXCEEDED") }

        let secret = environment.random.bytes(FirebaseMFA.secretBytes)
        let totp = try FirebaseMFA.totp(secret: secret)
        let sessionInfo = newOobCode()
        let deadline = now.addingTimeInterval(FirebaseMFA.enrollmentLifetime)
        let started = now
        await state.update(FirebaseProject.key) { project in
            project.totpEnrollments = project.totpEnrollments.filter { $0.value.expiresAt > started }
            project.totpEnrollments[sessionInfo] = FirebaseTOTPEnrollment(localId: user.localId, totp: totp, expiresAt: deadline)
        }
        return [
            "totpSessionInfo": [
                "sharedSecretKey": .string(Base32.encode(secret)),
                "verificationCodeLength": .number(Double(FirebaseMFA.codeLength)),
                "hashingAlgorithm": .string(FirebaseMFA.hashingAlgorithm),
                "periodSec": .number(Double(FirebaseMFA.period)),
                "sessionInfo": .string(sessionInfo),
                "finalizeEnrollmentTime": .string(FirebaseUser.rfc3339(deadline)),
            ]
        ]
    }

    /// `POST /v2/accounts/mfaEnrollment:finalize {idToken, displayName?, totpVerificationInfo:
    /// {sessionInfo, verificationCode}, tenantId?}` → `{idToken, refreshToken}`.
    ///
    /// Checks in order: the ID-token checks, the tenant, `phoneVerificationInfo` → 501,
    /// `MISSING_SESSION_INFO`, `INVALID_SESSION_INFO` (unknown, used, or another account's),
    /// `SESSION_EXPIRED` (past `finalizeEnrollmentTime`), `MISSING_CODE`, `INVALID_CODE` (wrong
    /// code at the emulator's clock, ±1 step of 30 s), `400 INVALID_ARGUMENT` for a `displayName`
    /// over 256 characters, `SECOND_FACTOR_LIMIT_EXCEEDED`. On success the session is used up,
    /// the factor joins `mfaInfo` as `{mfaEnrollmentId, displayName?, totpInfo: {}, enrolledAt}`
    /// with the code's time step recorded (that code cannot sign in afterwards), and fresh tokens
    /// are returned (`auth_time` kept from the presented token; `validSince` is not bumped, so
    /// other sessions stay valid).
    func finalizeMFAEnrollment(_ call: Call) async throws -> JSONValue {
        let project = await state.get(FirebaseProject.key)
        let (user, authTime) = try caller(call, in: project)
        try checkTenant(call.body, account: user.tenantId, in: project)
        if call.body["phoneVerificationInfo"] != nil { throw FirebaseFailure.notImplemented("Phone second factors") }
        let info = try call.body.object("totpVerificationInfo")
        guard let sessionInfo = try info?.string("sessionInfo") else { throw FirebaseFailure.code("MISSING_SESSION_INFO") }
        guard let pending = project.totpEnrollments[sessionInfo], pending.localId == user.localId else {
            throw FirebaseFailure.code("INVALID_SESSION_INFO")
        }
        guard pending.expiresAt > now else { throw FirebaseFailure.code("SESSION_EXPIRED") }
        let code = try Self.verificationCode(info)
        let displayName = try call.body.string("displayName")
        if let displayName, displayName.count > FirebaseMFA.maximumDisplayNameLength {
            throw FirebaseFailure.invalidArgument("displayName is longer than \(FirebaseMFA.maximumDisplayNameLength) characters")
        }
        let at = now
        let enrollmentId = newOobCode()
        let updated = try await state.update(FirebaseProject.key) { project -> FirebaseUser in
            guard let current = project.totpEnrollments[sessionInfo], current.localId == user.localId else {
                throw FirebaseFailure.code("INVALID_SESSION_INFO")
            }
            guard var account = project.users[user.localId] else { throw FirebaseFailure.code("USER_NOT_FOUND") }
            guard let step = try? current.totp.verify(code, at: at) else { throw FirebaseFailure.code("INVALID_CODE") }
            guard account.mfaInfo.count < FirebaseMFA.maximumFactors else { throw FirebaseFailure.code("SECOND_FACTOR_LIMIT_EXCEEDED") }
            account.mfaInfo.append(Self.totpInfoEntry(id: enrollmentId, displayName: displayName, enrolledAt: at))
            account.totpFactors[enrollmentId] = FirebaseTOTPFactor(totp: current.totp, lastUsedStep: step)
            project.users[account.localId] = account
            project.totpEnrollments[sessionInfo] = nil
            return account
        }
        let tokens = tokens(for: updated, authTime: authTime)
        return ["idToken": tokens["idToken"] ?? .null, "refreshToken": tokens["refreshToken"] ?? .null]
    }

    /// `POST /v2/accounts/mfaEnrollment:withdraw {idToken, mfaEnrollmentId, tenantId?}` →
    /// `{idToken, refreshToken}`: removes the factor from `mfaInfo`. Checks: the ID-token checks,
    /// the tenant, `MISSING_MFA_ENROLLMENT_ID`, `MFA_ENROLLMENT_NOT_FOUND`.
    ///
    /// Both tokens of the reply are optional in Identity Platform's `WithdrawMfaResponse`: for an
    /// account marked by the `:endSessionsOnMFAWithdraw` hook, the factor is removed, `validSince`
    /// is bumped (every token issued before now is `TOKEN_EXPIRED`) and the reply is `{}`.
    func withdrawMFA(_ call: Call) async throws -> JSONValue {
        let project = await state.get(FirebaseProject.key)
        let (user, authTime) = try caller(call, in: project)
        try checkTenant(call.body, account: user.tenantId, in: project)
        guard let enrollmentId = try call.body.string("mfaEnrollmentId") else { throw FirebaseFailure.code("MISSING_MFA_ENROLLMENT_ID") }
        let at = now
        let updated = try await state.update(FirebaseProject.key) { project -> FirebaseUser in
            guard var account = project.users[user.localId] else { throw FirebaseFailure.code("USER_NOT_FOUND") }
            let before = account.mfaInfo.count
            account.mfaInfo.removeAll { $0["mfaEnrollmentId"]?.stringValue == enrollmentId }
            guard account.mfaInfo.count < before else { throw FirebaseFailure.code("MFA_ENROLLMENT_NOT_FOUND") }
            account.totpFactors[enrollmentId] = nil
            if account.mfaWithdrawEndsSessions { account.validSince = FirebaseUser.seconds(at) }
            project.users[account.localId] = account
            return account
        }
        if updated.mfaWithdrawEndsSessions { return [:] }
        let tokens = tokens(for: updated, authTime: authTime)
        return ["idToken": tokens["idToken"] ?? .null, "refreshToken": tokens["refreshToken"] ?? .null]
    }

    /// `POST /v2/accounts/mfaSignIn:finalize {mfaPendingCredential, mfaEnrollmentId,
    /// totpVerificationInfo: {verificationCode}, tenantId?}` → `{idToken, refreshToken}`.
    ///
    /// Checks in order: `MISSING_MFA_PENDING_CREDENTIAL`; `INVALID_MFA_PENDING_CREDENTIAL` (not
    /// one the emulator issued, used already, older than 10 minutes, its account gone, or the
    /// account's password/email changed since); the tenant; `USER_DISABLED`;
    /// `phoneVerificationInfo` → 501; `MISSING_MFA_ENROLLMENT_ID`; `MFA_ENROLLMENT_NOT_FOUND` (not
    /// a TOTP factor of that account); `MISSING_CODE`; `INVALID_CODE` (wrong, outside ±1 step of
    /// 30 s at the emulator's clock, or a code whose time step was already accepted for this
    /// factor: a replay). A wrong code leaves the credential usable; success uses it up.
    ///
    /// The ID token has `auth_time` = now, `firebase.sign_in_provider: "password"`,
    /// `firebase.sign_in_second_factor: "totp"` and `firebase.second_factor_identifier` = the
    /// enrollment id (kept by refreshes). The sign-in clears the `:requireRecentLogin` mark.
    func finalizeMFASignIn(_ call: Call) async throws -> JSONValue {
        guard let credential = try call.body.string("mfaPendingCredential") else {
            throw FirebaseFailure.code("MISSING_MFA_PENDING_CREDENTIAL")
        }
        let project = await state.get(FirebaseProject.key)
        guard let pending = project.pendingMFA[credential], pending.expiresAt > now,
              let user = project.users[pending.localId], pending.issuedAt >= user.validSince
        else { throw FirebaseFailure.code("INVALID_MFA_PENDING_CREDENTIAL") }
        try checkTenant(call.body, account: user.tenantId, in: project)
        guard !user.disabled else { throw FirebaseFailure.code("USER_DISABLED") }
        if call.body["phoneVerificationInfo"] != nil { throw FirebaseFailure.notImplemented("Phone second factors") }
        guard let enrollmentId = try call.body.string("mfaEnrollmentId") else { throw FirebaseFailure.code("MISSING_MFA_ENROLLMENT_ID") }
        guard user.totpFactors[enrollmentId] != nil else { throw FirebaseFailure.code("MFA_ENROLLMENT_NOT_FOUND") }
        let code = try Self.verificationCode(try call.body.object("totpVerificationInfo"))
        let at = now
        let signedIn = try await state.update(FirebaseProject.key) { project -> FirebaseUser in
            guard project.pendingMFA[credential] != nil, var account = project.users[pending.localId],
                  var factor = account.totpFactors[enrollmentId]
            else { throw FirebaseFailure.code("INVALID_MFA_PENDING_CREDENTIAL") }
            guard let step = try? factor.totp.verify(code, at: at, after: factor.lastUsedStep) else {
                throw FirebaseFailure.code("INVALID_CODE")
            }
            factor.lastUsedStep = step
            account.totpFactors[enrollmentId] = factor
            account.lastLoginAt = at
            account.recentLoginRequired = false
            project.users[account.localId] = account
            project.pendingMFA[credential] = nil
            return account
        }
        let tokens = tokens(for: signedIn, secondFactor: FirebaseTokens.SecondFactor(provider: "totp", identifier: enrollmentId))
        return ["idToken": tokens["idToken"] ?? .null, "refreshToken": tokens["refreshToken"] ?? .null]
    }

    /// AuthHub's hooks, not part of Firebase, `POST /emulator/v1/projects/{projectId}/accounts/{localId}:<action>`:
    /// - `:requireRecentLogin` with an optional body `{"required": bool}` (default `true`) →
    ///   `{localId, recentLoginRequired}`. While set, the account's `accounts:delete` and
    ///   password/email changes answer `CREDENTIAL_TOO_OLD_LOGIN_AGAIN` whatever the token's
    ///   `auth_time`, until the user signs in again (which clears it) or the hook is called with
    ///   `{"required": false}`.
    /// - `:endSessionsOnMFAWithdraw` with an optional body `{"enabled": bool}` (default `true`) →
    ///   `{localId, mfaWithdrawEndsSessions}`. While set, `mfaEnrollment:withdraw` answers without
    ///   tokens and ends the account's sessions (see ``withdrawMFA(_:)``).
    ///
    /// Unknown account → `404 NOT_FOUND`; another action after the colon → `404`.
    func accountAction(_ request: Request, context: EmulatorRequestContext) async throws -> Response {
        try await helper(request, context: context, readBody: true) { body in
            let segment = context.parameters.get("accountAction") ?? ""
            guard let colon = segment.lastIndex(of: ":") else { throw FirebaseFailure.notFound("Unknown account action \(segment).") }
            let localId = String(segment[..<colon])
            let action = String(segment[segment.index(after: colon)...])
            let (bodyField, replyField): (String, String)
            switch action {
            case "requireRecentLogin": (bodyField, replyField) = ("required", "recentLoginRequired")
            case "endSessionsOnMFAWithdraw": (bodyField, replyField) = ("enabled", "mfaWithdrawEndsSessions")
            default: throw FirebaseFailure.notFound("Unknown account action \(segment).")
            }
            let value = try body.bool(bodyField) ?? true
            try await state.update(FirebaseProject.key) { project in
                guard var account = project.users[localId] else { throw FirebaseFailure.notFound("No account \(localId).") }
                if action == "requireRecentLogin" { account.recentLoginRequired = value } else { account.mfaWithdrawEndsSessions = value }
                project.users[localId] = account
            }
            return ["localId": .string(localId), replyField: .bool(value)]
        }
    }
}
