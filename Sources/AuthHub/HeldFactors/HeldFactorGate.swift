import Foundation

/// The hub's second step for AuthHub-held factors: the service in use (``AuthHub/useHeldFactors(_:)``)
/// and the sign-ins waiting for their second step.
///
/// ``SessionManager/finishSignIn(_:after:policy:)`` asks it before storing a new session: when the
/// service covers the provider and the user holds a confirmed factor, the session is kept here —
/// not stored, not returned — and the sign-in throws ``AuthErrorCode/mfaRequired`` whose
/// ``MFARequirement/token`` names it (`authhub-held.…`). ``AuthHub/completeHeldSecondStep(token:response:)``
/// (or `signIn(.mfa(requirement:response:))` with a code) checks the answer and stores it then.
///
/// A waiting sign-in lives for ``lifetime`` (5 minutes), allows ``maximumAttempts`` wrong answers
/// (then it is dropped and the user signs in again), and at most ``capacity`` wait at once in a hub
/// (beyond, a new one is refused with ``AuthErrorCode/rateLimited``). They are kept in this process's
/// memory: the answer must reach the replica that asked for it (the web layer's sign-in state is
/// kept the same way).
package final class HeldFactorGate: Sendable {
    package static let tokenPrefix = "authhub-held."
    static let lifetime: TimeInterval = 300
    static let maximumAttempts = 5
    static let capacity = 10_000

    struct Pending: Sendable {
        let key: SessionKey
        let session: Session
        let start: SessionManager.SignInStart
        let policy: SignInPolicy
        let owner: HeldFactorOwner
        let step: HeldSecondStep
        let expiresAt: Date
        var failures: Int
        /// The provider that signed the session in (it revokes a sign-in that never finishes).
        let provider: any AuthProvider
    }

    private let service = Mutex<(any HeldFactorService)?>(nil)
    private let pending = Mutex<[String: Pending]>([:])
    /// When expired waiting sign-ins were last looked for (at most once a minute).
    private let lastSweep = Mutex<Date?>(nil)
    private let clock: any AuthClock
    private let random: any RandomSource

    package init(clock: any AuthClock, random: any RandomSource) {
        self.clock = clock
        self.random = random
    }

    package var current: (any HeldFactorService)? { service.withLock { $0 } }

    package func use(_ service: (any HeldFactorService)?) { self.service.withLock { $0 = service } }

    /// The service, when it covers `provider`.
    package func service(for provider: any AuthProvider) -> (any HeldFactorService)? {
        guard let service = current, service.covers(provider) else { return nil }
        return service
    }

    /// Throws ``AuthErrorCode/mfaRequired`` (keeping the sign-in) when `session`'s user must pass a
    /// second step; returns when none is due.
    /// `key` is the manager's (a web session's account is its browser session id, not the
    /// provider's account): the session is stored under it once the step is answered.
    func requireSecondStep(_ session: Session, key: SessionKey, provider: any AuthProvider, start: SessionManager.SignInStart,
                           policy: SignInPolicy) async throws {
        guard let service = service(for: provider) else { return }
        guard let owner = HeldFactorOwner(session) else {
            // Fail closed: factors bound to a user cannot be checked for a session that names none.
            throw AuthError(.invalidConfiguration, message: "AuthHub-held factors are on for provider '\(session.providerID)', "
                                + "but its sign-in named no user to check them for.", provider: session.providerID)
        }
        guard let step = try await service.secondStep(for: owner) else { return }
        let bytes = random.bytes(32)
        guard bytes.count == 32 else { throw AuthError(.invalidConfiguration, message: "The random source returned too few bytes.") }
        let token = Self.tokenPrefix + Base64URL.encode(bytes)
        let now = clock.now
        sweepExpired(now: now)
        let refused = pending.withLock { table -> Bool in
            if table.count >= Self.capacity { revoke(Self.dropExpired(&table, now: now)) }
            guard table.count < Self.capacity else { return true }
            table[token] = Pending(key: key, session: session, start: start, policy: policy, owner: owner, step: step,
                                   expiresAt: now.addingTimeInterval(Self.lifetime), failures: 0, provider: provider)
            return false
        }
        if refused {
            revoke([Pending(key: key, session: session, start: start, policy: policy, owner: owner, step: step, expiresAt: now,
                            failures: 0, provider: provider)])
            throw AuthError(.rateLimited, message: "Too many sign-ins are waiting for a second step; try again shortly.",
                            provider: session.providerID)
        }
        throw AuthError(.mfaRequired, message: "A second factor is required.", provider: session.providerID,
                        mfa: MFARequirement(token: Secret(token), challengeTypes: step.kinds.map(\.rawValue), enrolledFactors: step.factors))
    }

    /// The waiting sign-in's step, nil when the token names none (unknown, used or expired).
    package func step(_ token: String) -> HeldSecondStep? {
        let now = clock.now
        return pending.withLock { table in
            guard let found = table[token], found.expiresAt > now else { return nil }
            return found.step
        }
    }

    /// Checks `response` for the sign-in `token` names and hands back what to store; the sign-in is
    /// forgotten once answered right, or after too many wrong answers.
    func answer(_ token: String, response: HeldSecondStepResponse) async throws -> Pending {
        let now = clock.now
        guard let found = pending.withLock({ table -> Pending? in
            guard let found = table[token] else { return nil }
            guard found.expiresAt > now else {
                table[token] = nil
                revoke([found])
                return nil
            }
            return found
        }) else {
            throw AuthError(.sessionExpired, message: "That sign-in is over; sign in again.")
        }
        guard let service = current else {
            throw AuthError(.invalidConfiguration, message: "AuthHub-held factors are off.", provider: found.key.provider)
        }
        do {
            try await service.verify(response, step: found.step, owner: found.owner)
        } catch let error as AuthError where error.code == .invalidMFACode {
            let left = pending.withLock { table -> Int in
                guard var entry = table[token] else { return 0 }
                entry.failures += 1
                if entry.failures >= Self.maximumAttempts {
                    table[token] = nil
                    revoke([entry])
                } else {
                    table[token] = entry
                }
                return Self.maximumAttempts - entry.failures
            }
            throw left > 0 ? error : AuthError(.sessionExpired, message: "Too many wrong answers; sign in again.", provider: found.key.provider)
        }
        // Answered once: a second answer with the same token finds nothing.
        guard pending.withLock({ $0.removeValue(forKey: token) }) != nil else {
            throw AuthError(.sessionExpired, message: "That sign-in is over; sign in again.", provider: found.key.provider)
        }
        return found
    }

    // MARK: Sign-ins that never finish

    /// Drops the expired entries of `table` and returns them.
    private static func dropExpired(_ table: inout [String: Pending], now: Date) -> [Pending] {
        var dropped: [Pending] = []
        table = table.filter { entry in
            guard entry.value.expiresAt > now else {
                dropped.append(entry.value)
                return false
            }
            return true
        }
        return dropped
    }

    /// Looks for expired waiting sign-ins at most once a minute (from the next sign-in that waits)
    /// and revokes them: a sign-in abandoned at its second step leaves no live tokens at the provider.
    private func sweepExpired(now: Date) {
        let due = lastSweep.withLock { last -> Bool in
            guard last.map({ now.timeIntervalSince($0) >= 60 || now < $0 }) ?? true else { return false }
            last = now
            return true
        }
        guard due else { return }
        revoke(pending.withLock { Self.dropExpired(&$0, now: now) })
    }

    /// Revokes, in the background, the sessions of sign-ins that ended without their second step
    /// (too many wrong answers, expired, refused for capacity): the provider's tokens were never
    /// handed to anyone, and are not left live. Best effort; a failure is only logged by the provider.
    private func revoke(_ entries: [Pending]) {
        guard !entries.isEmpty else { return }
        Task {
            for entry in entries { try? await entry.provider.signOut(entry.session) }
        }
    }
}
