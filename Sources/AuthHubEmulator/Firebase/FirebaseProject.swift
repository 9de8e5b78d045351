import Foundation

/// An out-of-band code "sent" by `accounts:sendOobCode`, listed by the `oobCodes` helper.
struct FirebaseOobCode: Sendable {
    var code: String
    /// `PASSWORD_RESET`, `VERIFY_EMAIL`, `EMAIL_SIGNIN` or `VERIFY_AND_CHANGE_EMAIL`.
    var requestType: String
    /// Where the mail went: the account's email, or the new email of `VERIFY_AND_CHANGE_EMAIL`.
    var email: String
    /// The account the code acts on (nil for `EMAIL_SIGNIN` of an unknown address).
    var localId: String?
    /// For `VERIFY_AND_CHANGE_EMAIL`: the address the account changes to.
    var newEmail: String?
    var continueUrl: String?
    var expiresAt: Date
    /// The Identity Platform tenant of the account the code acts on (nil: the project itself).
    var tenantId: String? = nil

    /// The `mode` of the code's action link.
    var mode: String {
        switch requestType {
        case "PASSWORD_RESET": "resetPassword"
        case "VERIFY_EMAIL": "verifyEmail"
        case "EMAIL_SIGNIN": "signIn"
        case "VERIFY_AND_CHANGE_EMAIL": "verifyAndChangeEmail"
        default: "recoverEmail"
        }
    }
}

/// The project settings of the `config` helper (AuthHubFirebase docs, FirebaseEndpoints: “Emulator”).
struct FirebaseConfig: Sendable, Equatable {
    /// `signIn.allowDuplicateEmails`: sign-up and email changes may reuse an address.
    var allowDuplicateEmails = false
    /// `emailPrivacyConfig.enableImprovedEmailPrivacy`: password sign-in answers
    /// `INVALID_LOGIN_CREDENTIALS` for both an unknown email and a wrong password, a
    /// `PASSWORD_RESET` for an unknown email answers 200, and `accounts:update` refuses email
    /// changes (`OPERATION_NOT_ALLOWED`). Off by default.
    var enableImprovedEmailPrivacy = false
    /// Identity Platform tenants (AuthHub's `tenants` field of the `config` helper; Firebase keeps
    /// them elsewhere). A request's `tenantId` must name one of them (`INVALID_TENANT_ID`); each
    /// tenant has its own accounts, so the same email can exist once per tenant and once in the
    /// project. Empty by default: no tenants, and `tenantId` is refused.
    var tenants: [String] = []
}

/// Everything the Firebase module keeps: the project's accounts, pending oob codes and settings.
///
/// Stored in ``EmulatorState`` under ``key``; every check-then-write happens inside one
/// ``EmulatorState/update(_:_:)`` call.
struct FirebaseProject: Sendable {
    /// The state slot of the project.
    static let key = EmulatorStateKey(module: "firebase", name: "project", initial: FirebaseProject())

    var users: [String: FirebaseUser] = [:]
    /// Pending codes, oldest first (the order the `oobCodes` helper lists them in).
    var oobCodes: [FirebaseOobCode] = []
    var config = FirebaseConfig()
    /// TOTP enrollments started and not yet finalized, by `sessionInfo`.
    var totpEnrollments: [String: FirebaseTOTPEnrollment] = [:]
    /// `mfaPendingCredential`s issued by password sign-in and not yet used, by credential.
    var pendingMFA: [String: FirebasePendingMFA] = [:]

    /// The account with `email` (already lower-cased) in `tenant` (nil: the project's own
    /// accounts); with duplicates allowed, the oldest one.
    func user(email: String, tenant: String?) -> FirebaseUser? {
        users.values.filter { $0.email == email && $0.tenantId == tenant }.min { $0.createdAt < $1.createdAt }
    }

    /// Whether an account of `tenant` other than `localId` uses `email` and duplicates are not allowed.
    func emailTaken(_ email: String, tenant: String?, except localId: String? = nil) -> Bool {
        !config.allowDuplicateEmails && users.values.contains { $0.email == email && $0.tenantId == tenant && $0.localId != localId }
    }

    /// The pending code `code`.
    func oobCode(_ code: String) -> FirebaseOobCode? {
        oobCodes.first { $0.code == code }
    }

    /// Removes the code `code`.
    mutating func removeOobCode(_ code: String) {
        oobCodes.removeAll { $0.code == code }
    }
}
