import AuthHub
import Foundation

extension FirebaseAPI {
    // MARK: - Lookup and delete (AuthHubFirebase docs, FirebaseEndpoints: “Lookup” and “Delete”)

    /// The signed-in user (`accounts:lookup {idToken}`, `users[0]`).
    /// - Throws: ``AuthErrorCode/userNotFound`` when the reply lists no user;
    ///   ``AuthErrorCode/invalidRequest`` when `users` is not a list of objects (naming the field).
    package func lookup(idToken: Secret<String>) async throws -> FirebaseUser {
        let reply = try await accounts("lookup", FirebaseIDTokenRequest(idToken: idToken.revealed()), as: FirebaseLookupReply.self,
                                       operation: .userInfo, retry: .idempotent)
        guard let first = reply.users?.first else {
            throw AuthError(.userNotFound, message: "The account no longer exists.", provider: provider,
                            providerCode: "USER_NOT_FOUND", details: ["iosCode": "17011"])
        }
        return first
    }

    /// Deletes the signed-in user (`accounts:delete {idToken}`).
    package func deleteAccount(idToken: Secret<String>) async throws {
        _ = try await accounts("delete", FirebaseIDTokenRequest(idToken: idToken.revealed()), as: FirebaseEmptyReply.self,
                               operation: .accountDeletion, retry: .never)
    }
}
