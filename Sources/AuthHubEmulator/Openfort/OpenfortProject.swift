import Foundation

/// The emulator-only project settings (`/openfort/__emulator/config`).
struct OpenfortConfig: Sendable, Equatable {
    /// better-auth `requireEmailVerification`: sign-up answers `token: null` and password sign-in
    /// of an unverified user is `403 EMAIL_NOT_VERIFIED`. Off by default.
    var requireEmailVerification = false
}

/// Everything the Openfort module keeps: users (with their accounts), sessions, OTPs, link tokens,
/// OAuth states and settings.
///
/// Stored in ``EmulatorState`` under ``key``; every check-then-write happens inside one
/// ``EmulatorState/update(_:_:)`` call.
struct OpenfortProject: Sendable {
    /// The state slot of the project.
    static let key = EmulatorStateKey(module: "openfort", name: "project", initial: OpenfortProject())

    var users: [String: OpenfortUser] = [:]
    /// By token.
    var sessions: [String: OpenfortSession] = [:]
    /// Pending OTPs, oldest first.
    var otps: [OpenfortOTP] = []
    /// Pending link tokens, oldest first.
    var linkTokens: [OpenfortLinkToken] = []
    /// By state.
    var oauthStates: [String: OpenfortOAuthState] = [:]
    var config = OpenfortConfig()

    /// The user with `email` (lower-cased).
    func user(email: String) -> OpenfortUser? {
        users.values.first { $0.email == email }
    }

    /// The user holding the `provider` account `accountId`.
    func user(provider: String, accountId: String) -> OpenfortUser? {
        users.values.first { $0.accounts.contains { $0.provider == provider && $0.accountId == accountId } }
    }

    /// The session of `token` when it exists and has not expired at `now`.
    func session(token: String, now: Date) -> OpenfortSession? {
        guard let session = sessions[token], session.expiresAt > now else { return nil }
        return session
    }
}
