import AuthHub
import Foundation

/// The account API (``AccountProvider``) over Firebase Authentication (<doc:FirebaseEndpoints>):
/// the user's methods as `accounts:lookup` lists them (the password, linked identity providers, a
/// phone number, second factors), TOTP second factors (`mfaEnrollment:start`/`finalize`/`withdraw`),
/// the password, the display name, the email address (a verification link first:
/// `VERIFY_AND_CHANGE_EMAIL`) and the account's deletion — each through ``FirebaseAuth``, so new
/// tokens in a reply are stored and a dead user ends the session as everywhere else.
///
/// Firebase wants a recent sign-in for the sensitive ones (`CREDENTIAL_TOO_OLD_LOGIN_AGAIN`):
/// ``AuthErrorCode/requiresRecentLogin``, for which ``AuthError/requiresReauthentication`` holds.
extension FirebaseProvider: AccountProvider {
    public var accountCapabilities: Set<AccountCapability> {
        [.listMethods, .enrollTOTP, .deleteMethod, .changePassword, .changeName, .changeEmail, .deleteAccount]
    }

    public func accountMethods(_ manager: SessionManager) async throws -> [AccountMethod] {
        guard let user = try await FirebaseAuth(manager: manager).currentUser() else {
            throw AuthError(.noSession, message: "Not signed in.", provider: id)
        }
        return Self.methods(of: user)
    }

    /// The methods of a looked-up user: the password (not removable here: Firebase has no "remove
    /// password"), each linked provider and a phone number (primary; unlinking is not offered),
    /// then each second factor (removable).
    static func methods(of user: FirebaseUser) -> [AccountMethod] {
        var methods: [AccountMethod] = []
        for info in user.providers {
            switch info.providerID {
            case "password":
                methods.append(AccountMethod(id: "password", kind: .password, detail: info.email ?? user.email,
                                             lastUsedAt: user.passwordUpdatedAt, usage: [.primary], isDeletable: false))
            case "phone":
                methods.append(AccountMethod(id: "phone", kind: .smsCode, detail: info.phoneNumber ?? user.phoneNumber,
                                             usage: [.primary], isDeletable: false))
            case let other:
                methods.append(AccountMethod(id: "provider:" + other, kind: .linkedAccount, name: info.displayName,
                                             detail: info.email.map { "\(other) (\($0))" } ?? other, usage: [.primary], isDeletable: false))
            }
        }
        for enrollment in user.mfaEnrollments {
            let kind: FactorKind = enrollment.factor == "totp" ? .totp : enrollment.factor == "phone" ? .smsCode : FactorKind(rawValue: enrollment.factor)
            methods.append(AccountMethod(id: enrollment.enrollmentID, kind: kind, name: enrollment.displayName, detail: enrollment.phoneInfo,
                                         createdAt: enrollment.enrolledAt.flatMap(RFC3339.date), usage: [.secondary]))
        }
        return methods
    }

    public func startMethodEnrollment(_ request: MethodEnrollmentRequest, options: MethodEnrollmentOptions,
                                      manager: SessionManager) async throws -> MethodEnrollmentChallenge {
        guard case .totp = request else { throw unsupported("enrolling \(request.kind)") }
        let challenge = try await FirebaseAuth(manager: manager).startTOTPEnrollment(issuer: options.issuer, account: options.accountName)
        let continuation = FirebaseEnrollmentContinuation(sessionInfo: challenge.sessionInfo.revealed(), name: options.name)
        return try MethodEnrollmentChallenge(kind: .totp, prompt: .totp(uri: challenge.uri.string, secret: challenge.base32Secret),
                                             expiresAt: challenge.finalizeBy.flatMap(RFC3339.date), state: continuation)
    }

    public func confirmMethodEnrollment(_ challenge: MethodEnrollmentChallenge, response: MethodEnrollmentResponse,
                                        manager: SessionManager) async throws -> AccountMethod? {
        guard challenge.kind == .totp, case .code(let code) = response else {
            throw AuthError(.invalidRequest, message: "A TOTP enrollment is confirmed with a code.", provider: id)
        }
        let continuation = try challenge.state(as: FirebaseEnrollmentContinuation.self, provider: id)
        _ = try await FirebaseAuth(manager: manager).finalizeTOTPEnrollment(sessionInfo: Secret(continuation.sessionInfo), code: code,
                                                                            displayName: continuation.name ?? "Authenticator app")
        return nil
    }

    public func deleteMethod(_ method: AccountMethod, manager: SessionManager) async throws {
        guard method.usage.contains(.secondary) else { throw unsupported("removing a \(method.kind) sign-in method") }
        _ = try await FirebaseAuth(manager: manager).withdrawMFA(enrollmentID: method.id)
    }

    public func changePassword(current: Secret<String>?, new: Secret<String>, manager: SessionManager) async throws {
        _ = try await FirebaseAuth(manager: manager).updatePassword(new)
    }

    public func changeProfile(_ change: AccountProfileChange, manager: SessionManager) async throws -> AccountProfileChangeResult {
        let auth = try FirebaseAuth(manager: manager)
        switch change {
        case .name(let name):
            try await auth.updateProfile(displayName: .set(name))
            return .changed
        case .email(let email):
            try await auth.verifyBeforeUpdateEmail(email)
            return .verificationSent(to: email)
        }
    }
}

/// What `mfaEnrollment:finalize` needs from `mfaEnrollment:start`: its `sessionInfo` (secret), and
/// the name the user chose.
struct FirebaseEnrollmentContinuation: Codable {
    var sessionInfo: String
    var name: String?
}
