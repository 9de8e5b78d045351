import Foundation

/// The signed-in user's own account, the same for every provider (``AccountProvider``): the
/// headless API the account pages and `authhub account` are clients of.
///
/// Each call names the session by provider and account as the rest of the hub does, reads it
/// through its ``SessionManager`` (renewed when needed), and throws ``AuthErrorCode/unsupported``
/// before any request when the provider lacks the capability (``accountCapabilities(provider:)``).
extension AuthHub {
    /// What the signed-in user can do with their account at provider `id` (empty for a provider
    /// that is no ``AccountProvider``).
    ///
    /// With AuthHub-held factors on for the provider (``useHeldFactors(_:)``), what they add is
    /// included: enrolling the factors the provider lacks, listing and removing methods.
    public func accountCapabilities(provider id: String? = nil) throws -> Set<AccountCapability> {
        let p = try provider(id)
        let own = (p as? any AccountProvider)?.accountCapabilities ?? []
        guard let held = heldFactorGate.service(for: p) else { return own }
        return own.union(held.accountCapabilities)
    }

    /// The user's sign-in methods and factors: the provider's, then AuthHub-held ones
    /// (``AccountMethod/Source/authHub``) when they are on for it.
    public func accountMethods(provider id: String? = nil, account: String = SessionKey.defaultAccount) async throws -> [AccountMethod] {
        let p = try provider(id)
        let manager = try manager(provider: p.id, account: account)
        var methods: [AccountMethod] = []
        if let own = p as? any AccountProvider, own.accountCapabilities.contains(.listMethods) {
            methods = try await mapped(p) { try await own.accountMethods(manager) }
        } else if heldFactorGate.service(for: p) == nil {
            throw AuthError(.unsupported, message: "Provider '\(p.id)' (\(p.type)) does not support \(AccountCapability.listMethods).", provider: p.id)
        }
        if let (held, owner) = try await mapped(p, { try await heldFactorOwner(p, manager) }) {
            methods += try await mapped(p) { try await held.methods(of: owner) }
        }
        return methods
    }

    /// Starts adding a method; show the challenge's prompt, then call
    /// ``confirmMethodEnrollment(_:response:provider:account:)`` with the user's answer.
    public func startMethodEnrollment(_ request: MethodEnrollmentRequest, options: MethodEnrollmentOptions = MethodEnrollmentOptions(),
                                      provider id: String? = nil, account: String = SessionKey.defaultAccount) async throws -> MethodEnrollmentChallenge {
        guard let capability = AccountCapability.enroll(request.kind) else {
            throw AuthError(.unsupported, message: "\(request.kind) cannot be enrolled.")
        }
        try Self.checkEnrollmentRequest(request)
        if let (p, held, owner) = try await heldEnrollment(id, account, capability) {
            return try await mapped(p) { try await held.startEnrollment(request, options: options, owner: owner) }
        }
        return try await withAccount(id, account, capability) { p, manager in
            try await p.startMethodEnrollment(request, options: options, manager: manager)
        }
    }

    /// Finishes adding a method with the user's response to `challenge`; returns the new method when
    /// the provider names it.
    /// - Throws: ``AuthErrorCode/invalidMFACode`` for a wrong code (the challenge stays usable for
    ///   another try while the provider keeps it).
    @discardableResult
    public func confirmMethodEnrollment(_ challenge: MethodEnrollmentChallenge, response: MethodEnrollmentResponse,
                                        provider id: String? = nil, account: String = SessionKey.defaultAccount) async throws -> AccountMethod? {
        guard let capability = AccountCapability.enroll(challenge.kind) else {
            throw AuthError(.unsupported, message: "\(challenge.kind) cannot be enrolled.")
        }
        if challenge.source == .authHub {
            guard let (p, held, owner) = try await heldEnrollment(id, account, capability) else {
                throw AuthError(.unsupported, message: "AuthHub-held factors are off for this provider.")
            }
            return try await mapped(p) { try await held.confirmEnrollment(challenge, response: response, owner: owner) }
        }
        return try await withAccount(id, account, capability) { p, manager in
            try await p.confirmMethodEnrollment(challenge, response: response, manager: manager)
        }
    }

    /// The held-factor service, when enrolling `capability` goes to it: held factors are on for the
    /// provider and the provider does not enroll that kind itself.
    private func heldEnrollment(_ id: String?, _ account: String, _ capability: AccountCapability) async throws
        -> (any AuthProvider, any HeldFactorService, HeldFactorOwner)? {
        let p = try provider(id)
        let own = (p as? any AccountProvider)?.accountCapabilities ?? []
        guard !own.contains(capability), heldFactorGate.service(for: p)?.accountCapabilities.contains(capability) == true else { return nil }
        let manager = try manager(provider: p.id, account: account)
        guard let (service, owner) = try await mapped(p, { try await heldFactorOwner(p, manager) }) else { return nil }
        return (p, service, owner)
    }

    /// Removes the method with this id (one of ``accountMethods(provider:account:)``).
    /// - Throws: ``AuthErrorCode/invalidRequest`` when the user has no such method or it may not be
    ///   removed (``AccountMethod/isDeletable``).
    public func deleteMethod(id methodID: String, provider id: String? = nil, account: String = SessionKey.defaultAccount) async throws {
        if methodID.hasPrefix(HeldFactor.idPrefix) {
            let p = try provider(id)
            let manager = try manager(provider: p.id, account: account)
            guard let (held, owner) = try await mapped(p, { try await heldFactorOwner(p, manager) }) else {
                throw AuthError(.invalidRequest, message: "There is no sign-in method with that id.", provider: p.id)
            }
            try await mapped(p) { try await held.deleteMethod(id: methodID, owner: owner) }
            return
        }
        try await withAccount(id, account, .deleteMethod) { p, manager in
            guard let method = try await p.accountMethods(manager).first(where: { $0.id == methodID }) else {
                throw AuthError(.invalidRequest, message: "There is no sign-in method with that id.")
            }
            guard method.isDeletable else {
                throw AuthError(.invalidRequest, message: "That \(method.kind) method cannot be removed here.")
            }
            try await p.deleteMethod(method, manager: manager)
        }
    }

    /// Changes the password (`current` where the provider asks for it).
    ///
    /// With `current`, a provider that wants a recent sign-in for the change (Firebase:
    /// ``AuthErrorCode/requiresRecentLogin``) gets one first: the user is signed in again with their
    /// email and `current` (``reauthenticate(_:provider:account:)``, the same user only), then the
    /// change is made.
    public func changePassword(current: Secret<String>? = nil, new: Secret<String>, provider id: String? = nil,
                               account: String = SessionKey.defaultAccount) async throws {
        guard !new.revealed().isEmpty else { throw AuthError(.weakPassword, message: "The new password is empty.") }
        do {
            try await withAccount(id, account, .changePassword) { p, manager in
                try await p.changePassword(current: current, new: new, manager: manager)
            }
        } catch let error as AuthError where error.code == .requiresRecentLogin {
            let p = try provider(id)
            guard let current, p.capabilities.contains(.passwordSignIn),
                  let email = try await manager(provider: p.id, account: account).current()?.claims["email"]?.stringValue else { throw error }
            try await reauthenticate(.password(identifier: email, password: current), provider: p.id, account: account)
            try await withAccount(p.id, account, .changePassword) { p, manager in
                try await p.changePassword(current: current, new: new, manager: manager)
            }
        }
    }

    /// Signs the signed-in user in again (a step-up before a sensitive change: Firebase's recent
    /// sign-in, a fresh `auth_time`), and stores the new session in place of the old one — only when
    /// it is the same user: a sign-in as anyone else is revoked at once and refused with
    /// ``AuthErrorCode/accessDenied``, and the stored session stays. AuthHub-held factors ask for
    /// their second step as for any sign-in (``AuthErrorCode/mfaRequired``).
    /// - Throws: ``AuthErrorCode/noSession`` when nobody is signed in; the provider's errors (a wrong
    ///   password is ``AuthErrorCode/invalidCredentials``, and the session stays).
    @discardableResult
    public func reauthenticate(_ request: SignInRequest, provider id: String? = nil, account: String = SessionKey.defaultAccount) async throws -> Session {
        let p = try provider(id)
        let manager = try manager(provider: p.id, account: account)
        guard let current = try await manager.current(), let user = current.userID else {
            throw AuthError(.noSession, message: "Nobody is signed in to provider '\(p.id)' to sign in again.", provider: p.id)
        }
        let fresh = try await mapped(p) { try await p.signIn(request) }
        guard fresh.userID == user else {
            try? await p.signOut(fresh)
            throw AuthError(.accessDenied, message: "That sign-in is another user's; you stay signed in as before.", provider: p.id)
        }
        return try await manager.signIn(method: "reauthentication", policy: signInPolicy) { _ in fresh }
    }

    /// Changes the display name or the email address; a change made at once renews the session,
    /// so its claims show it.
    @discardableResult
    public func changeProfile(_ change: AccountProfileChange, provider id: String? = nil,
                              account: String = SessionKey.defaultAccount) async throws -> AccountProfileChangeResult {
        let capability: AccountCapability
        switch change {
        case .name(let name):
            capability = .changeName
            guard !name.trimmingCharacters(in: .whitespaces).isEmpty, name.count <= 256, !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw AuthError(.invalidRequest, message: "A name is 1 to 256 characters, without control characters.")
            }
        case .email(let email):
            capability = .changeEmail
            if let problem = ContactInput.emailProblem(email) { throw problem }
        }
        let result = try await withAccount(id, account, capability) { p, manager in try await p.changeProfile(change, manager: manager) }
        // The session's claims (the ID token's `name`, `email`) follow the change at once, where the
        // provider's next token carries it; a renewal that fails now leaves the change made.
        if result == .changed { _ = try? await refresh(provider: id, account: account) }
        return result
    }

    /// Runs `body` with the account provider `id` and the manager of `account`, after checking the
    /// capability; errors carry the provider's id.
    func withAccount<T>(_ id: String?, _ account: String, _ capability: AccountCapability,
                        _ body: (any AccountProvider, SessionManager) async throws -> T) async throws -> T {
        let p = try provider(id)
        guard let accountProvider = p as? any AccountProvider, accountProvider.accountCapabilities.contains(capability) else {
            throw AuthError(.unsupported, message: "Provider '\(p.id)' (\(p.type)) does not support \(capability).", provider: p.id)
        }
        let manager = try manager(provider: p.id, account: account)
        return try await mapped(p) { try await body(accountProvider, manager) }
    }

    /// Refuses what no provider would accept before a request: a malformed address or phone number.
    static func checkEnrollmentRequest(_ request: MethodEnrollmentRequest) throws {
        switch request {
        case .emailCode(let email): if let problem = ContactInput.emailProblem(email) { throw problem }
        case .phoneCode(let phone): if let problem = ContactInput.phoneProblem(phone) { throw problem }
        case .totp, .passkey, .recoveryCodes: break
        }
    }
}
