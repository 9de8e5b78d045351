import Foundation
import Logging

/// The one place where a sign-in meets a stored session (see ``SignInPolicy``): the ``AuthHub``
/// facade, the provider facades (`FirebaseAuth`, `OpenfortAuth`, `Auth0CredentialsManager`), the web
/// layer and the CLI all sign in through these calls, so storing, replacing, revoking, upgrading a
/// guest, events and telemetry follow one rule whichever entry point a user took.
extension SessionManager {
    /// What a sign-in found when it began: the stored session, and the guest it upgrades (if any).
    package struct SignInStart: Sendable {
        /// The session stored when the sign-in began (nil when signed out or unreadable).
        package var previous: Session?
        /// The stored guest session this sign-in upgrades: the provider's user stays the same.
        package var guest: Session?
    }

    /// Signs in under this manager's key by the one rule (``SignInPolicy``): checks the stored
    /// session (refusing under ``SignInPolicy/refusing(providerCode:)``), runs `obtain` — handed the
    /// stored guest session when `upgradesGuest` and the provider's ``GuestUpgradingProvider`` says
    /// it is a guest's —, stores the result (publishing `signedIn`), and revokes the session it
    /// replaced in the background. Counted and traced as `authhub.sign_in` with `method`.
    ///
    /// <!-- example: context manager: SessionManager, provider: any AuthProvider -->
    /// ```swift
    /// let session = try await manager.signIn(method: "password") { _ in
    ///     try await provider.signIn(.password(identifier: email, password: Secret(password)))
    /// }
    /// ```
    /// - Parameters:
    ///   - method: the sign-in method, for metrics and spans (`password`, `browser`, `device`, …).
    ///   - policy: what happens to a stored session.
    ///   - upgradesGuest: whether this method upgrades a stored guest (sign-up, an emailed code, OAuth).
    ///   - obtain: signs in at the provider; its argument is the guest being upgraded, if any.
    /// - Throws: ``AuthErrorCode/conflict`` when the policy refuses; `obtain`'s error (wrapped as an
    ///   ``AuthError`` of this provider; nothing is stored); ``AuthErrorCode/invalidRequest`` for a
    ///   token that fails ``Session/checkTokenSyntax(operation:)``; storage errors.
    @discardableResult
    public func signIn(method: String, policy: SignInPolicy = .replace, upgradesGuest: Bool = false,
                                   isolation: isolated (any Actor)? = #isolation,
                                   _ obtain: (_ guest: Session?) async throws -> Session) async throws -> Session {
        let telemetry = self.telemetry
        return try await telemetry.observed(AuthTelemetry.SpanName.signIn, counter: AuthTelemetry.MetricName.signIns,
                                            provider: key.provider, dimensions: [("method", method)]) { span in
            let start = try await beginSignIn(policy: policy, upgradesGuest: upgradesGuest)
            let session = try await wrappingErrors { try await obtain(start.guest) }
            let stored = try await finishSignIn(session, after: start, policy: policy)
            if telemetry.recordsUserIDs, let user = stored.userID { span.attributes["enduser.id"] = user }
            return stored
        }
    }

    /// Creates an account by the same rule as ``signIn(method:policy:upgradesGuest:isolation:_:)``:
    /// a stored guest is upgraded by default; a session the sign-up signs in replaces a stored one
    /// (revoked in the background). Counted and traced as `authhub.sign_up`.
    /// - Parameter method: a `method` dimension for metrics and spans (none when nil).
    @discardableResult
    public func signUp(method: String? = nil, policy: SignInPolicy = .replace, upgradesGuest: Bool = true,
                                   isolation: isolated (any Actor)? = #isolation,
                                   _ obtain: (_ guest: Session?) async throws -> SignUpResult) async throws -> SignUpResult {
        try await telemetry.observed(AuthTelemetry.SpanName.signUp, counter: AuthTelemetry.MetricName.signUps,
                                     provider: key.provider, dimensions: method.map { [("method", $0)] } ?? []) { _ in
            let start = try await beginSignIn(policy: policy, upgradesGuest: upgradesGuest)
            let result = try await wrappingErrors { try await obtain(start.guest) }
            guard case .signedIn(let session) = result else { return result }
            return .signedIn(try await finishSignIn(session, after: start, policy: policy))
        }
    }

    /// The first half of a sign-in, for flows that obtain the session elsewhere and count it
    /// themselves (the device flow): reads the stored session and applies the policy's refusal.
    package func beginSignIn(policy: SignInPolicy, upgradesGuest: Bool) async throws -> SignInStart {
        let previous: Session?
        do {
            previous = try await current()
        } catch {
            // A stored session that cannot be read does not block a sign-in: the new one overwrites it.
            logger.notice("the stored session cannot be read; a sign-in will replace it",
                          metadata: ["error": "\(AuthError.wrap(error, provider: key.provider).code)"])
            previous = nil
        }
        var guest: Session?
        if upgradesGuest, let previous, let upgrading = provider as? any GuestUpgradingProvider, upgrading.isGuest(previous) {
            guest = previous
        }
        if previous != nil, guest == nil, case .refuse(let code) = policy.whileSignedIn {
            throw AuthError(.conflict, message: "Already signed in; sign out first.", provider: key.provider, providerCode: code)
        }
        return SignInStart(previous: previous, guest: guest)
    }

    /// The second half: stores `session` and revokes, in the background, whatever it replaced —
    /// read again now, so a session another sign-in stored meanwhile is revoked too — unless it is
    /// the guest this sign-in upgraded or the same grant.
    ///
    /// When the hub's AuthHub-held factors cover the provider and the user holds one, the session is
    /// not stored: it waits for its second step (``HeldFactorGate``), and this throws
    /// ``AuthErrorCode/mfaRequired``; `secondStepPassed` is set by the call that stores it after.
    package func finishSignIn(_ session: Session, after start: SignInStart, policy: SignInPolicy,
                              secondStepPassed: Bool = false) async throws -> Session {
        if !secondStepPassed, let heldFactorGate {
            try await heldFactorGate.requireSecondStep(session, key: key, provider: provider, start: start, policy: policy)
        }
        let replaced = (try? await current()) ?? nil
        let stored = try await store(session)
        var revoked: [Session] = []
        for old in [start.previous, replaced].compactMap({ $0 }) {
            if Self.sameGrant(old, session) || revoked.contains(where: { Self.sameGrant($0, old) }) { continue }
            if let guest = start.guest, Self.sameGrant(old, guest) { continue }
            revoked.append(old)
            revokeInBackground(old, timeout: policy.revocationTimeout)
        }
        return stored
    }

    /// Ends the stored session at once — removed from the store, `signedOut` published — and revokes
    /// it at the provider in the background (bounded by `timeout`, counted as a revocation): for a
    /// session a newer sign-in made obsolete under another key (the web layer's browser sessions).
    public func retire(timeout: Duration = SignInPolicy.replace.revocationTimeout) async throws {
        let stored = (try? await current()) ?? nil
        try await clear()
        if let stored { revokeInBackground(stored, timeout: timeout) }
    }

    /// Waits until every background revocation this manager started has ended (each is bounded by
    /// its policy's ``SignInPolicy/revocationTimeout``). A program that exits right after a sign-in
    /// calls it (``AuthHub/finishBackgroundWork()``) so that the replaced session is still revoked.
    public func backgroundRevocationsFinished() async {
        await revocations.finished()
    }

    /// Whether two sessions hold the same grant (the same refresh token, or without one the same
    /// access token).
    static func sameGrant(_ a: Session, _ b: Session) -> Bool {
        if let ra = a.refreshToken, let rb = b.refreshToken { return ra == rb }
        return a.accessToken == b.accessToken && a.refreshToken == b.refreshToken
    }

    nonisolated func revokeInBackground(_ session: Session, timeout: Duration) {
        let provider = self.provider, telemetry = self.telemetry, logger = self.logger, id = key.provider
        revocations.start {
            // A provider without the `revoke` capability has nothing to revoke remotely (its
            // sign-out is local): counted as `notRevocable`, not as a revocation that happened.
            var outcome = provider.capabilities.contains(.revoke) ? "success" : "notRevocable"
            do {
                try await BackgroundRevocations.bounded(timeout, provider: id) { try await provider.signOut(session) }
            } catch {
                let wrapped = AuthError.wrap(error, provider: id)
                outcome = wrapped.code.rawValue
                logger.notice("a replaced session could not be revoked", metadata: ["error": "\(wrapped.code)"])
            }
            telemetry.increment(AuthTelemetry.MetricName.revocations, [("provider", id), ("reason", "replaced"), ("outcome", outcome)])
        }
    }

    private func wrappingErrors<T>(isolation: isolated (any Actor)? = #isolation,
                                               _ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch { throw AuthError.wrap(error, provider: key.provider) }
    }
}

/// The revocations of replaced sessions one ``SessionManager`` runs in the background.
final class BackgroundRevocations: Sendable {
    private struct State {
        var next: UInt64 = 0
        var tasks: [UInt64: Task<Void, Never>] = [:]
    }
    private let state = Mutex(State())

    /// Whether none is running.
    var isEmpty: Bool { state.withLock { $0.tasks.isEmpty } }

    /// Starts `body` in a detached task: it does not inherit the caller's cancellation, so a sign-in
    /// whose caller goes away still revokes what it replaced.
    func start(_ body: @escaping @Sendable () async -> Void) {
        state.withLock { state in
            let id = state.next
            state.next &+= 1
            state.tasks[id] = Task.detached { [weak self] in
                await body()
                self?.state.withLock { _ = $0.tasks.removeValue(forKey: id) }
            }
        }
    }

    /// Returns when every task started so far, and every one started meanwhile, has ended.
    func finished() async {
        while let task = state.withLock({ $0.tasks.values.first }) {
            await task.value
            // The task also removes itself; whichever comes first.
            state.withLock { $0.tasks = $0.tasks.filter { $0.value != task } }
        }
    }

    /// Runs `body`, abandoning it (cancelled) with ``AuthErrorCode/timeout`` after `timeout`.
    static func bounded(_ timeout: Duration, provider: String, _ body: @escaping @Sendable () async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask { try await body(); return true }
            group.addTask { try await Task.sleep(for: timeout); return false }
            defer { group.cancelAll() }
            guard try await group.next() == true else {
                throw AuthError(.timeout, message: "The revocation took longer than \(timeout).", provider: provider)
            }
        }
    }
}
