import AuthHub

/// The reply of `accounts:lookup`: `users[]` (absent or null when the account is gone).
struct FirebaseLookupReply: Codable, Sendable {
    var users: [FirebaseUser]?
}
