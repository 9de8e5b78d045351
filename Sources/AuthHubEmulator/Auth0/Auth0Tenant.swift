import enum AuthHub.Base64URL
import AuthHubFactors
import Crypto
import Foundation

/// Everything the Auth0 module keeps for one emulator: users, clients, codes and tokens.
///
/// Tokens and codes are stored under their SHA-256 digest (``digest(_:)``), never in clear.
/// All changes happen inside one ``EmulatorState/update(_:_:)`` call, so checks and writes
/// (e.g. refresh-token rotation) are atomic.
struct Auth0Tenant: Sendable {
    /// The state slot of the tenant.
    static let key = EmulatorStateKey(module: "auth0", name: "tenant", initial: Auth0Tenant())

    /// The database connection used when a request names none.
    static let defaultConnection = "Username-Password-Authentication"

    var users: [String: Auth0User] = [:]
    var clients: [String: Auth0ClientSettings] = [:]
    var codes: [String: Auth0AuthorizationCode] = [:]
    var logins: [String: Auth0LoginTransaction] = [:]
    var accessTokens: [String: Auth0AccessGrant] = [:]
    var refreshTokens: [String: Auth0RefreshRecord] = [:]
    /// Refresh grants being answered right now (checked, not yet committed or refused): fault tests wait
    /// for zero before "the next command", since a server keeps answering a client that died.
    var refreshesInProgress = 0
    /// Refresh-token grants received (answered or not), for tests that count refreshes.
    var refreshGrants = 0
    /// How long a refresh-token grant takes to answer (a test hook: an identity provider under load,
    /// so that a refresh can be caught in flight). Zero by default.
    var refreshLatency = Duration.zero
    var families: [String: Auth0RefreshFamily] = [:]
    var mfaTokens: [String: Auth0MFATransaction] = [:]
    var passwordlessCodes: [String: Auth0PasswordlessCode] = [:]
    var passkeySessions: [String: Auth0PasskeySession] = [:]
    /// DB-connection OTP sessions (`/otp/challenge`) by digest of `auth_session`.
    var otpSessions: [String: Auth0OTPSession] = [:]
    /// Pending out-of-band MFA codes (`/mfa/associate` and `/mfa/challenge`) by digest of `oob_code`.
    var oobCodes: [String: Auth0OOBCode] = [:]
    /// Subject tokens accepted by the token-exchange grant, registered through
    /// `POST /auth0/__emulator/token-exchange`, by ``exchangeKey(type:token:)``.
    var exchangeSubjects: [String: Auth0ExchangeSubject] = [:]
    /// Every `subject_token_type` a token was registered for.
    var exchangeTypes: Set<String> = []
    /// Pending My Account enrollments by digest of `auth_session`.
    var enrollments: [String: Auth0Enrollment] = [:]
    /// Every code the My Account email and phone enrollments "sent", oldest first.
    var outbox: [Auth0OutboxMessage] = []
    /// The largest number of outbox messages kept; older ones are dropped.
    static let outboxLimit = 1_000
    /// Browser (SSO) sessions by digest of the `auth0` cookie value.
    var sessions: [String: Auth0LoginSession] = [:]
    /// Organizations by id.
    var organizations: [String: Auth0Organization] = [:]
    /// Pending organization invitations by digest of the ticket.
    var invitations: [String: Auth0Invitation] = [:]
    /// Attack protection: bot detection on (`POST /auth0/__emulator/attack-protection`).
    var botDetection = false
    /// Device authorizations (RFC 8628) by digest of `device_code`.
    var deviceCodes: [String: Auth0DeviceAuthorization] = [:]
    /// The digest of the `device_code` of each live user code (normalized, see
    /// ``Auth0DeviceAuthorization/normalizedUserCode(_:)``).
    var userCodes: [String: String] = [:]
    /// Pages of the `/activate` verification flow by digest of their token.
    var activations: [String: Auth0DeviceActivation] = [:]
    /// When wrong user codes were entered on the activation page, over the last minute (RFC 8628,
    /// section 5.1: the verification page limits guessing).
    var wrongUserCodes: [Date] = []
    /// DPoP (RFC 9449): the nonce mode and the proofs already used.
    var dpop = Auth0DPoPState()
    /// Every back-channel logout delivery attempted, oldest first (read with
    /// `GET /auth0/__emulator/backchannel-logouts`).
    var backchannelLogouts: [Auth0BackchannelLogoutDelivery] = []
    /// The largest number of back-channel logout deliveries kept; older ones are dropped.
    static let backchannelLogoutLimit = 1_000
    /// Pushed authorization requests (`POST /oauth/par`) by digest of their `request_uri`.
    var pushedRequests: [String: Auth0PushedRequest] = [:]
    /// The most pushed authorization requests kept at once; beyond it the oldest is dropped.
    static let pushedRequestLimit = 10_000
    /// Client assertions (`private_key_jwt`) already used, by client id and `jti`, with their `exp`:
    /// each is remembered until it expires (after that its `exp` refuses it anyway).
    var usedAssertions: [String: Date] = [:]
    /// The most client assertions remembered; beyond it the one expiring first is forgotten.
    static let usedAssertionLimit = 10_000

    /// Records the `jti` of a verified client assertion; false when it was used before (a replay).
    mutating func admitAssertion(clientId: String, jti: String, expiresAt: Date, now: Date) -> Bool {
        usedAssertions = usedAssertions.filter { $0.value > now }
        let key = clientId + "\u{0}" + jti
        guard usedAssertions[key] == nil else { return false }
        if usedAssertions.count >= Self.usedAssertionLimit, let first = usedAssertions.min(by: { $0.value < $1.value })?.key {
            usedAssertions[first] = nil
        }
        usedAssertions[key] = expiresAt
        return true
    }

    /// Stores a pushed authorization request under the digest of its `request_uri`, dropping
    /// expired ones and, beyond ``pushedRequestLimit``, the oldest.
    mutating func push(_ pushed: Auth0PushedRequest, digest: String, now: Date) {
        pushedRequests = pushedRequests.filter { $0.value.expiresAt > now }
        if pushedRequests.count >= Self.pushedRequestLimit,
           let oldest = pushedRequests.min(by: { $0.value.expiresAt < $1.value.expiresAt })?.key {
            pushedRequests[oldest] = nil
        }
        pushedRequests[digest] = pushed
    }

    /// The organization whose id (`org_…`, exact) or name (case-insensitive) is `reference`.
    func organization(_ reference: String) -> Auth0Organization? {
        if let byId = organizations[reference] { return byId }
        let name = reference.lowercased()
        return organizations.values.first { $0.name == name }
    }

    /// Whether the user with `email` may log in to `organizationId`: a member, or the invitee
    /// of the pending `invitation` ticket to it.
    func mayAdmit(_ email: String, to organizationId: String, invitation ticket: String?, now: Date) -> Bool {
        guard let organization = organizations[organizationId] else { return false }
        if organization.members.contains(email) { return true }
        guard let ticket, let invitation = invitation(ticket, organizationId: organizationId, now: now) else { return false }
        return invitation.email == email
    }

    /// ``mayAdmit(_:to:invitation:now:)``, and when the user gets in through the invitation,
    /// makes them a member and spends the ticket.
    mutating func admit(_ email: String, to organizationId: String, invitation ticket: String?, now: Date) -> Bool {
        guard mayAdmit(email, to: organizationId, invitation: ticket, now: now) else { return false }
        if let ticket, organizations[organizationId]?.members.contains(email) == false {
            invitations[Self.digest(ticket)] = nil
            organizations[organizationId]?.members.insert(email)
        }
        return true
    }

    /// The pending invitation of `ticket` to `organizationId`, when it has not expired at `now`.
    func invitation(_ ticket: String, organizationId: String, now: Date) -> Auth0Invitation? {
        guard let invitation = invitations[Self.digest(ticket)], invitation.organizationId == organizationId,
              invitation.expiresAt > now
        else { return nil }
        return invitation
    }

    /// The key a registered subject token is kept under: its type and the digest of the token.
    static func exchangeKey(type: String, token: String) -> String {
        type + "\u{0}" + digest(token)
    }

    /// The user with `email` (case-insensitive) in `connection`.
    func user(email: String, connection: String) -> Auth0User? {
        let email = email.lowercased()
        return users.values.first { $0.email == email && $0.connection == connection }
    }

    /// The user whose email or username is `name` in `connection`.
    func user(login name: String, connection: String) -> Auth0User? {
        user(email: name, connection: connection) ?? users.values.first { $0.username == name && $0.connection == connection }
    }

    /// Whether `redirectURI` may receive codes for `clientId`: an exact match of a registered
    /// callback when the client was registered (`POST /auth0/__emulator/clients`), otherwise any
    /// absolute URL without a fragment.
    func redirectAllowed(_ redirectURI: String, for clientId: String) -> Bool {
        if let client = clients[clientId] { return client.callbacks.contains(redirectURI) }
        guard let components = URLComponents(string: redirectURI), let scheme = components.scheme, !scheme.isEmpty else {
            return false
        }
        return components.fragment == nil
    }

    /// Whether refresh tokens of `clientId` rotate.
    func rotates(_ clientId: String) -> Bool { clients[clientId]?.rotateRefreshTokens ?? true }

    /// Whether a rotated refresh token may be exchanged again at `now`: within the client's reuse
    /// interval (``Auth0ClientSettings/refreshTokenLeeway``) of its first exchange, and only while it is
    /// the previous token of its family (Auth0: "only the previous token can be reused").
    func reuseAllowed(_ record: Auth0RefreshRecord, clientId: String, now: Date) -> Bool {
        guard record.rotated, !record.superseded, let rotatedAt = record.rotatedAt,
              let leeway = clients[clientId]?.refreshTokenLeeway, leeway > 0
        else { return false }
        return now.timeIntervalSince(rotatedAt) <= leeway
    }

    /// The API scopes a grant for `audience` may receive for `clientId`: the scopes of the API the
    /// audience names, restricted to the client's registered `api_scopes` when it has some.
    func grantableAPIScopes(audience: String?, issuer: String, clientId: String) -> Set<String> {
        guard let api = Auth0API.named(by: audience, issuer: issuer) else { return [] }
        let scopes = Set(api.scopes)
        guard let allowed = clients[clientId]?.apiScopes else { return scopes }
        return scopes.intersection(allowed)
    }

    /// `requested` without the API scopes that are not grantable for `audience` and `clientId`
    /// (left out silently, as Auth0 does); other scopes are kept in order.
    func grantedScopes(_ requested: [String], audience: String?, issuer: String, clientId: String) -> [String] {
        let grantable = grantableAPIScopes(audience: audience, issuer: issuer, clientId: clientId)
        return requested.filter { !Auth0API.allScopes.contains($0) || grantable.contains($0) }
    }

    /// Records that `clientId` received tokens within the live browser session whose id is
    /// `sessionId` (nothing when the session has ended meanwhile).
    mutating func noteClient(_ clientId: String, inSession sessionId: String) {
        guard let digest = sessions.first(where: { $0.value.sessionId == sessionId })?.key else { return }
        sessions[digest]?.clients.insert(clientId)
    }

    /// Records back-channel logout deliveries, dropping the oldest beyond ``backchannelLogoutLimit``.
    mutating func record(_ deliveries: [Auth0BackchannelLogoutDelivery]) {
        backchannelLogouts.append(contentsOf: deliveries)
        if backchannelLogouts.count > Self.backchannelLogoutLimit {
            backchannelLogouts.removeFirst(backchannelLogouts.count - Self.backchannelLogoutLimit)
        }
    }

    /// Adds a message to the outbox, dropping the oldest beyond ``outboxLimit``.
    mutating func send(_ message: Auth0OutboxMessage) {
        outbox.append(message)
        if outbox.count > Self.outboxLimit { outbox.removeFirst(outbox.count - Self.outboxLimit) }
    }

    /// Removes expired codes, logins, access and MFA tokens.
    mutating func purge(now: Date) {
        codes = codes.filter { $0.value.expiresAt > now }
        logins = logins.filter { $0.value.expiresAt > now }
        accessTokens = accessTokens.filter { $0.value.expiresAt > now }
        mfaTokens = mfaTokens.filter { $0.value.expiresAt > now.addingTimeInterval(-3600) }
        passwordlessCodes = passwordlessCodes.filter { $0.value.expiresAt > now }
        passkeySessions = passkeySessions.filter { $0.value.expiresAt > now }
        otpSessions = otpSessions.filter { $0.value.expiresAt > now }
        oobCodes = oobCodes.filter { $0.value.expiresAt > now }
        enrollments = enrollments.filter { $0.value.expiresAt > now }
        sessions = sessions.filter { $0.value.isAlive(at: now) }
        invitations = invitations.filter { $0.value.expiresAt > now }
        // Expired device codes stay an hour, so that polls keep answering `expired_token`.
        deviceCodes = deviceCodes.filter { $0.value.expiresAt > now.addingTimeInterval(-3600) }
        userCodes = userCodes.filter { deviceCodes[$0.value].map { $0.expiresAt > now } ?? false }
        activations = activations.filter { $0.value.expiresAt > now }
        wrongUserCodes.removeAll { $0 <= now.addingTimeInterval(-60) }
    }

    /// Revokes a whole refresh-token family.
    mutating func revokeFamily(_ familyId: String) {
        families[familyId]?.revoked = true
    }

    /// The SHA-256 digest of a token, the key it is stored under.
    static func digest(_ token: String) -> String {
        Base64URL.encode(SHA256.hash(data: Data(token.utf8)))
    }

    /// Auth0's timestamp form, `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'`.
    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
