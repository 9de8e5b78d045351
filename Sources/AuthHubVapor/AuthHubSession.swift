import AuthHub

/// AuthHub's `Session`, under a name that does not collide with Vapor's own `Session` (the
/// server-side session of Vapor's `SessionsMiddleware`): in a file that imports both Vapor and
/// AuthHub, write `AuthHubSession`, or add `import struct AuthHub.Session`.
public typealias AuthHubSession = Session
