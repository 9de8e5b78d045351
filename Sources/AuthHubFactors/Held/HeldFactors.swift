import AuthHub
import Foundation

/// AuthHub's own second factors for providers that have none (generic OpenID Connect, Openfort,
/// Turnkey): TOTP, passkeys (verified by AuthHub's ``WebAuthnRelyingParty``) and recovery codes,
/// kept in a ``HeldFactorStore`` (the session store's: memory, file or PostgreSQL; sealed where it
/// seals) and bound to the provider's user id. Install it on the hub:
///
/// <!-- example: context hub: AuthHub -->
/// ```swift
/// hub.useHeldFactors(try HeldFactors(store: hub.heldFactorStore, providers: ["openfort"], issuer: "Example",
///                                    relyingParty: WebAuthnRelyingParty(id: "app.example.com")))
/// ```
///
/// Then the account API lists and enrolls them beside the provider's methods, and a sign-in at a
/// covered provider whose user holds a confirmed factor throws `mfaRequired` until
/// `AuthHub.completeHeldSecondStep(token:response:)` is answered (see <doc:HeldFactors>).
///
/// Every change is a compare-and-swap on the owner's record: a TOTP code or a recovery code is
/// accepted once even when two requests present it at the same moment, on any replica sharing the
/// store.
public struct HeldFactors: HeldFactorService {
    /// The factors offered.
    public let kinds: Set<FactorKind>
    /// The provider ids whose users may hold factors here.
    public let providers: Set<String>
    /// The issuer an authenticator app shows.
    public let issuer: String
    /// Verifies passkeys; nil turns passkeys off.
    public let relyingParty: WebAuthnRelyingParty?
    /// How many recovery codes a set has.
    public let recoveryCodeCount: Int
    private let store: any HeldFactorStore
    private let clock: any AuthClock
    private let random: any RandomSource

    /// How long an enrollment waits for its confirmation (then it is dropped at the next change).
    public static let enrollmentLifetime: TimeInterval = 15 * 60

    /// Configures AuthHub-held factors.
    /// - Parameters:
    ///   - store: where the factors live (`hub.heldFactorStore`); nil is refused.
    ///   - providers: the provider ids (from providers.json) whose users get them.
    ///   - kinds: any of ``FactorKind/totp``, ``FactorKind/passkey``, ``FactorKind/recoveryCode``.
    ///   - issuer: the name an authenticator app shows.
    ///   - relyingParty: AuthHub's WebAuthn relying party (its id and origins); required for passkeys.
    /// - Throws: ``AuthErrorCode/invalidConfiguration`` for no store, an unknown kind, passkeys
    ///   without a relying party, or a count out of 1…50.
    public init(store: (any HeldFactorStore)?, providers: Set<String>, kinds: Set<FactorKind> = [.totp, .passkey, .recoveryCode],
                issuer: String, relyingParty: WebAuthnRelyingParty? = nil, recoveryCodeCount: Int = RecoveryCode.defaultCount,
                clock: any AuthClock = SystemClock(), random: any RandomSource = SystemRandom()) throws {
        guard let store else {
            throw AuthError(.invalidConfiguration, message: "AuthHub-held factors need a store: this session store keeps none.")
        }
        let known: Set<FactorKind> = [.totp, .passkey, .recoveryCode]
        if let unknown = kinds.subtracting(known).first {
            throw AuthError(.invalidConfiguration, message: "AuthHub holds TOTP, passkeys and recovery codes, not \(unknown).")
        }
        if kinds.contains(.passkey), relyingParty == nil {
            throw AuthError(.invalidConfiguration, message: "AuthHub-held passkeys need a WebAuthn relying party (its id and origins).")
        }
        guard (1...50).contains(recoveryCodeCount) else {
            throw AuthError(.invalidConfiguration, message: "A recovery-code set has 1 to 50 codes.")
        }
        self.store = store
        self.providers = providers
        self.kinds = kinds
        self.issuer = issuer
        self.relyingParty = relyingParty
        self.recoveryCodeCount = recoveryCodeCount
        self.clock = clock
        self.random = random
    }

    public func covers(_ provider: any AuthProvider) -> Bool { providers.contains(provider.id) }

    public var accountCapabilities: Set<AccountCapability> {
        Set(kinds.compactMap(AccountCapability.enroll)).union([.listMethods, .deleteMethod])
    }

    // MARK: Listing and removing

    public func methods(of owner: HeldFactorOwner) async throws -> [AccountMethod] {
        let record = try await store.load(owner)
        let now = clock.now
        return (record?.factors ?? []).filter { $0.isConfirmed || !isStale($0, now) }.map { factor in
            var detail: String?
            if factor.kind == .recoveryCode, let set = try? decode(RecoveryCodeSet.self, factor) {
                detail = set.remaining == 1 ? "1 code left" : "\(set.remaining) codes left"
            }
            return AccountMethod(id: factor.id, kind: factor.kind, name: factor.name, detail: detail, createdAt: factor.createdAt,
                                 lastUsedAt: factor.lastUsedAt, isConfirmed: factor.isConfirmed, usage: [.secondary],
                                 isDeletable: true, source: .authHub)
        }
    }

    public func deleteMethod(id: String, owner: HeldFactorOwner) async throws {
        try await change(owner) { record in
            guard let index = record.factors.firstIndex(where: { $0.id == id }) else {
                throw AuthError(.invalidRequest, message: "There is no sign-in method with that id.")
            }
            record.factors.remove(at: index)
        }
    }

    // MARK: Enrolling

    public func startEnrollment(_ request: MethodEnrollmentRequest, options: MethodEnrollmentOptions,
                                owner: HeldFactorOwner) async throws -> MethodEnrollmentChallenge {
        guard kinds.contains(request.kind) else {
            throw AuthError(.unsupported, message: "AuthHub does not hold \(request.kind) factors here.")
        }
        let id = try newID(), now = clock.now
        let name = options.name.map { String($0.prefix(64)) }
        switch request {
        case .totp:
            let enrollment = try TOTPEnrollment(account: String((options.accountName ?? owner.user).prefix(128)),
                                                issuer: options.issuer ?? issuer, clock: clock, random: random)
            let challenge = try await enrollment.start()
            let pending = TOTPEnrollment.Credential(totp: challenge.totp, account: challenge.uri.account, issuer: challenge.uri.issuer,
                                                    lastUsedStep: 0, enrolledAt: now)
            try await addPending(HeldFactor(id: id, kind: .totp, name: name, createdAt: now, isConfirmed: false,
                                            material: try encode(pending)), owner: owner)
            return MethodEnrollmentChallenge(kind: .totp, prompt: .totp(uri: challenge.uri.string, secret: challenge.base32Secret),
                                             expiresAt: now.addingTimeInterval(Self.enrollmentLifetime), continuation: Secret(id), source: .authHub)
        case .recoveryCodes:
            let (codes, set) = try RecoveryCodeSet.generate(count: recoveryCodeCount, random: random)
            try await addPending(HeldFactor(id: id, kind: .recoveryCode, name: name, createdAt: now, isConfirmed: false,
                                            material: try encode(set)), owner: owner)
            return MethodEnrollmentChallenge(kind: .recoveryCode, prompt: .recoveryCodes(codes),
                                             expiresAt: now.addingTimeInterval(Self.enrollmentLifetime), continuation: Secret(id), source: .authHub)
        case .passkey:
            guard let relyingParty else { throw AuthError(.unsupported, message: "AuthHub-held passkeys are off.") }
            let challengeBytes = random.bytes(32)
            guard challengeBytes.count == 32 else { throw AuthError(.invalidConfiguration, message: "The random source returned too few bytes.") }
            let existing = try await confirmedPasskeys(owner).map(\.record.id)
            try await addPending(HeldFactor(id: id, kind: .passkey, name: name, createdAt: now, isConfirmed: false,
                                            material: try encode(PendingPasskey(challenge: challengeBytes))), owner: owner)
            let label = String((options.accountName ?? owner.user).prefix(64))
            let origin = options.origin ?? relyingParty.origins.sorted().first
            if let origin, !relyingParty.origins.contains(origin) {
                throw AuthError(.invalidRequest, message: "That origin is not one of AuthHub's relying party's.")
            }
            let creation = PasskeyRegistrationOptions(relyingParty: PasskeyRelyingParty(id: relyingParty.id, name: options.issuer ?? issuer),
                                                      user: PasskeyUser(id: Self.userHandle(owner), name: label, displayName: label),
                                                      challenge: challengeBytes, origin: origin, userVerification: relyingParty.userVerification,
                                                      residentKey: .preferred, excludeCredentials: existing)
            return MethodEnrollmentChallenge(kind: .passkey, prompt: .passkey(creation),
                                             expiresAt: now.addingTimeInterval(Self.enrollmentLifetime), continuation: Secret(id), source: .authHub)
        case .emailCode, .phoneCode:
            throw AuthError(.unsupported, message: "AuthHub does not hold \(request.kind) factors.")
        }
    }

    public func confirmEnrollment(_ challenge: MethodEnrollmentChallenge, response: MethodEnrollmentResponse,
                                  owner: HeldFactorOwner) async throws -> AccountMethod? {
        let id = challenge.continuation.revealed()
        let now = clock.now
        let confirmed = try await change(owner) { record -> HeldFactor in
            guard let index = record.factors.firstIndex(where: { $0.id == id && !$0.isConfirmed && $0.kind == challenge.kind }),
                  !isStale(record.factors[index], now) else {
                throw AuthError(.sessionExpired, message: "That enrollment is over; start again.")
            }
            var factor = record.factors[index]
            switch (factor.kind, response) {
            case (.totp, .code(let code)):
                var credential = try decode(TOTPEnrollment.Credential.self, factor)
                try credential.verify(code, at: now)
                factor.material = try encode(credential)
            case (.recoveryCode, .acknowledged):
                // A new set replaces the old one: only the codes just shown work from now on.
                record.factors.removeAll { $0.kind == .recoveryCode && $0.isConfirmed }
            case (.passkey, .passkey(let registration)):
                guard let relyingParty else { throw AuthError(.unsupported, message: "AuthHub-held passkeys are off.") }
                let pending = try decode(PendingPasskey.self, factor)
                let verified = try relyingParty.verifyRegistration(registration, challenge: pending.challenge)
                let others = record.factors.filter { $0.kind == .passkey && $0.isConfirmed }
                if try others.contains(where: { try decode(WebAuthnCredentialRecord.self, $0).id == verified.id }) {
                    throw AuthError(.invalidRequest, message: "That passkey is registered already.")
                }
                factor.material = try encode(verified)
            default:
                throw AuthError(.invalidRequest, message: "That answer does not confirm a \(factor.kind) enrollment.")
            }
            factor.isConfirmed = true
            factor.createdAt = now
            guard let at = record.factors.firstIndex(where: { $0.id == id }) else {
                throw AuthError(.sessionExpired, message: "That enrollment is over; start again.")
            }
            record.factors[at] = factor
            return factor
        }
        return try await methods(of: owner).first { $0.id == confirmed.id }
    }

    // MARK: The second step

    public func secondStep(for owner: HeldFactorOwner) async throws -> HeldSecondStep? {
        guard let record = try await store.load(owner) else { return nil }
        let confirmed = record.confirmed.filter { kinds.contains($0.kind) }
        guard !confirmed.isEmpty else { return nil }
        var passkey: PasskeyAssertionOptions?
        let passkeys = try confirmed.filter { $0.kind == .passkey }.map { try decode(WebAuthnCredentialRecord.self, $0).id }
        if let relyingParty, !passkeys.isEmpty {
            let challenge = random.bytes(32)
            guard challenge.count == 32 else { throw AuthError(.invalidConfiguration, message: "The random source returned too few bytes.") }
            passkey = PasskeyAssertionOptions(relyingPartyID: relyingParty.id, challenge: challenge, origin: relyingParty.origins.sorted().first,
                                              allowCredentials: passkeys, userVerification: relyingParty.userVerification)
        }
        let order: [FactorKind] = [.passkey, .totp, .recoveryCode]
        let present = Set(confirmed.map(\.kind))
        return HeldSecondStep(kinds: order.filter { present.contains($0) && ($0 != .passkey || passkey != nil) },
                              factors: confirmed.map { MFARequirement.EnrolledFactor(id: $0.id, kind: $0.kind.rawValue, displayName: $0.name) },
                              passkey: passkey)
    }

    public func verify(_ response: HeldSecondStepResponse, step: HeldSecondStep, owner: HeldFactorOwner) async throws {
        let now = clock.now
        try await change(owner) { record in
            func use(_ index: Int, _ material: Secret<String>) {
                record.factors[index].material = material
                record.factors[index].lastUsedAt = now
            }
            let candidates = record.factors.indices.filter { record.factors[$0].isConfirmed && kinds.contains(record.factors[$0].kind) }
            switch response {
            case .totp(let code):
                for index in candidates where record.factors[index].kind == .totp {
                    var credential = try decode(TOTPEnrollment.Credential.self, record.factors[index])
                    guard (try? credential.verify(code, at: now)) != nil else { continue }
                    use(index, try encode(credential))
                    return
                }
                throw AuthError(.invalidMFACode, message: "The code is wrong, expired or used already.")
            case .recoveryCode(let code):
                for index in candidates where record.factors[index].kind == .recoveryCode {
                    var set = try decode(RecoveryCodeSet.self, record.factors[index])
                    guard (try? set.consume(code)) != nil else { continue }
                    use(index, try encode(set))
                    return
                }
                throw AuthError(.invalidMFACode, message: "The recovery code is wrong or has already been used.")
            case .passkey(let assertion):
                guard let relyingParty, let options = step.passkey else {
                    throw AuthError(.invalidMFACode, message: "This sign-in does not take a passkey.")
                }
                for index in candidates where record.factors[index].kind == .passkey {
                    let stored = try decode(WebAuthnCredentialRecord.self, record.factors[index])
                    guard stored.id == assertion.credentialID else { continue }
                    let updated: WebAuthnCredentialRecord
                    do {
                        updated = try relyingParty.verifyAssertion(assertion, challenge: options.challenge, credential: stored,
                                                                   allowCredentials: options.allowCredentials,
                                                                   userHandle: Self.userHandle(owner))
                    } catch let error as AuthError {
                        throw AuthError(.invalidMFACode, message: "The passkey was not accepted.", underlying: error)
                    }
                    use(index, try encode(updated))
                    return
                }
                throw AuthError(.invalidMFACode, message: "That passkey is not one of this account's.")
            }
        }
    }

    // MARK: Storage

    /// Applies `body` to the owner's record and saves it with compare-and-swap, trying again (from
    /// a fresh read) when another request changed it meanwhile; pending enrollments past their
    /// lifetime are dropped on the way.
    @discardableResult
    private func change<T: Sendable>(_ owner: HeldFactorOwner, _ body: (inout HeldFactorRecord) throws -> T) async throws -> T {
        for _ in 0..<5 {
            let loaded = try await store.load(owner)
            var record = loaded ?? HeldFactorRecord(owner: owner)
            let now = clock.now
            record.factors.removeAll { isStale($0, now) }
            let result = try body(&record)
            do {
                if record.factors.isEmpty, loaded != nil {
                    // Nothing left: the record goes (after the check that nobody changed it).
                    try await store.save(record, expectedVersion: loaded?.version)
                    try await store.remove(owner)
                } else {
                    try await store.save(record, expectedVersion: loaded?.version)
                }
                return result
            } catch let error as AuthError where error.code == .conflict {
                continue
            }
        }
        throw AuthError(.conflict, message: "The factors of this account are being changed by other requests; try again.")
    }

    /// Keeps a new enrollment, replacing one of the same kind still waiting for its confirmation (a
    /// page reloaded, an enrollment started again): one pending enrollment per kind.
    private func addPending(_ factor: HeldFactor, owner: HeldFactorOwner) async throws {
        try await change(owner) { record in
            record.factors.removeAll { !$0.isConfirmed && $0.kind == factor.kind }
            guard record.factors.count < HeldFactorRecord.maximumFactors else {
                throw AuthError(.invalidRequest, message: "This account holds as many factors as it may (\(HeldFactorRecord.maximumFactors)).")
            }
            record.factors.append(factor)
        }
    }

    private func confirmedPasskeys(_ owner: HeldFactorOwner) async throws -> [(factor: HeldFactor, record: WebAuthnCredentialRecord)] {
        try (try await store.load(owner)?.confirmed ?? []).filter { $0.kind == .passkey }.map { ($0, try decode(WebAuthnCredentialRecord.self, $0)) }
    }

    private func isStale(_ factor: HeldFactor, _ now: Date) -> Bool {
        !factor.isConfirmed && now.timeIntervalSince(factor.createdAt) > Self.enrollmentLifetime
    }

    private func newID() throws -> String {
        let bytes = random.bytes(16)
        guard bytes.count == 16 else { throw AuthError(.invalidConfiguration, message: "The random source returned too few bytes.") }
        return HeldFactor.idPrefix + Hex.lowercase(bytes)
    }

    /// The WebAuthn user handle of `owner`: the 32-byte digest behind its reference, so the handle
    /// names neither the provider nor the user id.
    static func userHandle(_ owner: HeldFactorOwner) -> [UInt8] {
        SessionUserReference.digest(provider: owner.provider, userID: owner.user)
    }

    private func encode(_ value: some Encodable) throws -> Secret<String> {
        Secret(String(decoding: try JSONEncoder().encode(value), as: UTF8.self))
    }

    private func decode<T: Decodable>(_ type: T.Type, _ factor: HeldFactor) throws -> T {
        guard let value = try? JSONDecoder().decode(T.self, from: Data(factor.material.revealed().utf8)) else {
            throw AuthError(.storageFailure, message: "A held \(factor.kind) factor cannot be read; remove it and enroll again.")
        }
        return value
    }

    /// A passkey enrollment's state: its challenge.
    private struct PendingPasskey: Codable {
        var challenge: [UInt8]
    }
}
