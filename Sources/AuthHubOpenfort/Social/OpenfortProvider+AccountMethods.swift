import AuthHub
import Foundation

/// The account API (``AccountProvider``) over Openfort's user API (<doc:OpenfortEndpoints>): the
/// user's linked accounts from `/iam/v2/me` as their sign-in methods (the password is the
/// `credential` account, email codes the `email` one, a wallet, Google, …), unlinking one
/// (`/unlink-account`; never the last: Openfort refuses it, and so does the list), and a new email
/// address (`/change-email`: changed at once, or a verification link first). Through
/// ``OpenfortAuth``, so a 401 ends the session as everywhere else.
///
/// Openfort has no second factors of its own: AuthHub-held factors cover them.
extension OpenfortProvider: AccountProvider {
    public var accountCapabilities: Set<AccountCapability> { [.listMethods, .deleteMethod, .changeEmail] }

    public func accountMethods(_ manager: SessionManager) async throws -> [AccountMethod] {
        let user = try await OpenfortAuth(manager: manager).currentUser()
        let removable = user.linkedAccounts.count > 1
        return user.linkedAccounts.map { linked in
            let kind: FactorKind, detail: String?
            switch linked.provider {
            case "credential": (kind, detail) = (.password, user.email)
            case "email": (kind, detail) = (.emailCode, user.email)
            default: (kind, detail) = (.linkedAccount, linked.provider)
            }
            return AccountMethod(id: Self.methodID(provider: linked.provider, accountID: linked.accountID), kind: kind, detail: detail,
                                 createdAt: linked.createdAt, usage: [.primary], isDeletable: removable)
        }
    }

    public func deleteMethod(_ method: AccountMethod, manager: SessionManager) async throws {
        let (providerID, accountID) = Self.linkedAccount(ofMethodID: method.id)
        try await OpenfortAuth(manager: manager).unlink(provider: providerID, accountID: accountID)
    }

    public func changeProfile(_ change: AccountProfileChange, manager: SessionManager) async throws -> AccountProfileChangeResult {
        guard case .email(let email) = change else { throw unsupported("changing the name") }
        let message = try await OpenfortAuth(manager: manager).changeEmail(email)
        // "Email updated" or "Verification email sent" (<doc:OpenfortEndpoints>: “Change email”).
        return message?.localizedCaseInsensitiveContains("verification") == true ? .verificationSent(to: email) : .changed
    }

    /// A linked account's method id: its provider, and `|` and its account id when it has one.
    static func methodID(provider: String, accountID: String?) -> String {
        accountID.map { provider + "|" + $0 } ?? provider
    }

    static func linkedAccount(ofMethodID id: String) -> (provider: String, accountID: String?) {
        guard let bar = id.firstIndex(of: "|") else { return (id, nil) }
        return (String(id[..<bar]), String(id[id.index(after: bar)...]))
    }
}
