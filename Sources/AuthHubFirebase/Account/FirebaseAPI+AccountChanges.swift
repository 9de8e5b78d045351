import AuthHub
import Foundation

extension FirebaseAPI {
    // MARK: - Account changes (AuthHubFirebase docs, FirebaseEndpoints: “Account update”)

    /// Applies an email-verification (or email-change) code: `accounts:update {oobCode}`.
    @discardableResult
    package func applyActionCode(_ code: Secret<String>) async throws -> FirebaseAccountUpdate {
        try await accounts("update", FirebaseAccountUpdateRequest(oobCode: code.revealed(), tenantId: tenant),
                           as: FirebaseAccountUpdate.self, operation: .emailVerification, retry: .never)
    }

    /// Changes the signed-in user's password: `accounts:update {idToken, password, returnSecureToken}`.
    /// The reply's new tokens (``FirebaseAccountUpdate/tokens``) replace the old ones, whose
    /// refresh token no longer works.
    package func updatePassword(idToken: Secret<String>, newPassword: Secret<String>) async throws -> FirebaseAccountUpdate {
        try await accounts("update", FirebaseAccountUpdateRequest(idToken: idToken.revealed(), password: newPassword.revealed(),
                                                                  returnSecureToken: true, tenantId: tenant),
                           as: FirebaseAccountUpdate.self, operation: .management, retry: .never)
    }

    /// Changes the signed-in user's email: `accounts:update {idToken, email, returnSecureToken}`
    /// (new tokens in the reply).
    package func updateEmail(idToken: Secret<String>, newEmail: String) async throws -> FirebaseAccountUpdate {
        try await accounts("update", FirebaseAccountUpdateRequest(idToken: idToken.revealed(), email: newEmail,
                                                                  returnSecureToken: true, tenantId: tenant),
                           as: FirebaseAccountUpdate.self, operation: .management, retry: .never)
    }

    /// Changes the display name and photo URL: set values are sent as `displayName`/`photoUrl`,
    /// removed ones in `deleteAttribute` (`DISPLAY_NAME`, `PHOTO_URL`).
    package func updateProfile(idToken: Secret<String>, displayName: FirebaseProfileChange = .unchanged,
                              photoURL: FirebaseProfileChange = .unchanged) async throws -> FirebaseAccountUpdate {
        var body = FirebaseAccountUpdateRequest(idToken: idToken.revealed(), returnSecureToken: true, tenantId: tenant)
        var deleted: [String] = []
        switch displayName {
        case .unchanged: break
        case .set(let value): body.displayName = value
        case .remove: deleted.append("DISPLAY_NAME")
        }
        switch photoURL {
        case .unchanged: break
        case .set(let value): body.photoUrl = value
        case .remove: deleted.append("PHOTO_URL")
        }
        if !deleted.isEmpty { body.deleteAttribute = deleted }
        return try await accounts("update", body, as: FirebaseAccountUpdate.self, operation: .management)
    }
}
