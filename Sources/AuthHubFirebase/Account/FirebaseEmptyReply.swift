import AuthHub

/// A reply whose content AuthHub does not use (`accounts:delete`); it must still be a JSON object.
struct FirebaseEmptyReply: Codable, Sendable {}
