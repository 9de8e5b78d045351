import enum AuthHub.Base64URL
import enum AuthHub.JSONValue
import struct AuthHub.Secret
import AuthHubFactors
import Crypto
import Foundation

/// One user of the emulated tenant, in a database connection.
struct Auth0User: Sendable {
    /// `auth0|<24 hex digits>`, Auth0's form for database users.
    var userId: String
    /// The database connection, e.g. `Username-Password-Authentication`.
    var connection: String
    /// The email address, lower-cased.
    var email: String
    var username: String?
    var passwordHash: EmulatorPasswordHash?
    var emailVerified: Bool
    /// Root profile attributes given at signup or seeding (`name`, `given_name`, `picture`, …).
    var attributes: [String: JSONValue]
    var userMetadata: [String: JSONValue]
    /// Whether a password login must pass a second factor (`mfa_required`).
    var mfaRequired: Bool
    var totp: Auth0TOTPAuthenticator?
    var recovery: Auth0RecoveryAuthenticator?
    /// The WebAuthn user handle, for users created through passkey signup.
    var userHandle: [UInt8]? = nil
    /// Registered passkeys.
    var passkeys: [WebAuthnCredentialRecord] = []
    /// Out-of-band (SMS and email) authenticators, confirmed or pending.
    var oob: [Auth0OOBAuthenticator] = []
    var createdAt: Date
    var updatedAt: Date
    /// Push-notification authenticators enrolled through the My Account API (confirmed only).
    var push: [Auth0PushAuthenticator] = []
    /// What the My Account API keeps about the user's authentication methods (name, creation
    /// time, the credential of a passkey method), by method id.
    var methodDetails: [String: Auth0MethodDetails] = [:]
    /// `app_metadata` of the Management API (read-only for user-scoped tokens).
    var appMetadata: [String: JSONValue] = [:]
    /// Users linked into this one as secondary identities (Management API account linking),
    /// kept whole so that unlinking makes them users of their own again.
    var linked: [Auth0User] = []

    /// Whether a password login must pass a second factor: the seeded `mfa_required` flag, or a
    /// confirmed TOTP, SMS/voice or email authenticator (emulator convention: enrolling a second
    /// factor through the My Account API turns MFA on for the user, as an "always" policy would,
    /// and deleting the last one turns it off again unless the flag was seeded).
    var requiresSecondFactor: Bool {
        mfaRequired || totp?.confirmed == true || oob.contains(where: \.confirmed)
    }

    /// The identity provider of the user id, the part before `|` (`auth0`, `apple`, `email`, …).
    var provider: String { String(userId.split(separator: "|", maxSplits: 1).first ?? Substring(userId)) }

    /// The part of `user_id` after `auth0|`, which signup returns as `_id`.
    var shortId: String { String(userId.split(separator: "|", maxSplits: 1).last ?? Substring(userId)) }

    /// The user's claims for the granted scopes (ID token and `/userinfo`): `sub` always,
    /// `email`/`email_verified` with `email`, the profile attributes with `profile`.
    func claims(scopes: Set<String>) -> [String: JSONValue] {
        var claims: [String: JSONValue] = ["sub": .string(userId)]
        // Users of the `sms` connection have no email; they are named by their phone number.
        let fallbackName = email.isEmpty ? (attributes["phone_number"]?.stringValue ?? userId) : email
        if scopes.contains("profile") {
            claims["name"] = attributes["name"] ?? .string(fallbackName)
            claims["nickname"] = attributes["nickname"] ?? .string(String(fallbackName.split(separator: "@").first ?? ""))
            for key in ["given_name", "family_name", "middle_name", "picture", "locale", "zoneinfo", "website"] {
                if let value = attributes[key] { claims[key] = value }
            }
            claims["updated_at"] = .string(Auth0Tenant.timestamp(updatedAt))
        }
        if scopes.contains("email"), !email.isEmpty {
            claims["email"] = .string(email)
            claims["email_verified"] = .bool(emailVerified)
        }
        if scopes.contains("phone"), let phone = attributes["phone_number"] {
            claims["phone_number"] = phone
        }
        return claims
    }
}

/// A TOTP authenticator (`authenticator_type: otp`).
struct Auth0TOTPAuthenticator: Sendable {
    var id: String
    var totp: TOTP
    /// False between `/mfa/associate` and the first accepted code.
    var confirmed: Bool
    /// The time step of the last accepted code, so a code cannot be replayed.
    var lastStep: UInt64?
}

/// The recovery-code authenticator created with the first enrollment.
struct Auth0RecoveryAuthenticator: Sendable {
    var id: String
    var codes: RecoveryCodeSet
    /// SHA-256 digests (``Auth0Tenant/digest(_:)``) of Auth0-style 24-character codes handed out
    /// by the My Account API, upper-cased without separators. Random 120-bit codes need no salt.
    var codeDigests: [String] = []

    /// Spends `code` when it is one of the unused codes (either form).
    /// - Returns: whether the code was accepted.
    mutating func consume(_ code: String) -> Bool {
        let normalized = Self.normalized(code)
        let digest = Auth0Tenant.digest(normalized)
        if let index = codeDigests.firstIndex(of: digest) {
            codeDigests.remove(at: index)
            return true
        }
        return (try? codes.consume(Secret(code))) != nil
    }

    /// Upper-cased, without spaces and hyphens.
    static func normalized(_ code: String) -> String {
        code.uppercased().filter { $0 != " " && $0 != "-" }
    }
}

/// What a token grant is for: the user, client, scopes and the request values carried into the
/// ID token.
struct Auth0Grant: Sendable {
    var userId: String
    var clientId: String
    /// Scopes in request order, de-duplicated.
    var scopes: [String]
    var audience: String?
    var nonce: String?
    var authTime: Date
    /// Whether the grant came from a token exchange with an actor token (delegation): such
    /// grants get no refresh token (AuthHubAuth0 docs, Auth0Endpoints: “Token exchange”).
    var delegated: Bool = false
    /// The `act` claim of a delegated grant, when the actor token names a known user.
    var actor: JSONValue? = nil
    /// The organization of a login made with `organization` (its `org_id`/`org_name` claims);
    /// kept through refreshes, since the family keeps the grant.
    var organization: Auth0OrganizationClaim? = nil

    var scope: String { scopes.joined(separator: " ") }
    var scopeSet: Set<String> { Set(scopes) }

    /// Splits a scope string into de-duplicated scopes, keeping their order.
    static func scopes(_ text: String?) -> [String] {
        var seen = Set<String>()
        return (text ?? "").split(separator: " ").map(String.init).filter { seen.insert($0).inserted }
    }
}

/// A client as the tenant knows it; unknown clients get the default policy (see
/// ``Auth0Tenant/redirectAllowed(_:for:)``).
struct Auth0ClientSettings: Sendable {
    var clientId: String
    /// Allowed callback URLs, compared exactly.
    var callbacks: [String]
    /// Whether refresh tokens rotate on use (default true).
    var rotateRefreshTokens: Bool
    /// Auth0's reuse interval (Management API `refresh_token.leeway`, seconds, default 0): for this long
    /// after a rotating refresh token was exchanged, it may be exchanged again — for a new token of the
    /// same family, without breach detection — as long as it is still the previous token (no token
    /// issued from it has been exchanged). It covers a reply lost between the server and the client.
    var refreshTokenLeeway: TimeInterval = 0
    /// The API scopes (of ``Auth0API/allScopes``) the client may be granted; nil: all of them.
    var apiScopes: [String]? = nil
    /// The grant types the application has enabled (Auth0's `grant_types`, e.g.
    /// `authorization_code`, `refresh_token`, `urn:ietf:params:oauth:grant-type:device_code`); nil:
    /// every grant the emulator knows.
    var grantTypes: [String]? = nil

    /// Whether the application may use `grantType` at the token endpoint (or, for the device
    /// code grant, ask for a device code).
    func allows(grantType: String) -> Bool { grantTypes?.contains(grantType) ?? true }

    /// Auth0's answer to a grant the application has not enabled: `403 unauthorized_client`.
    static func grantNotAllowed(_ grantType: String) -> Auth0Failure {
        .oauth("unauthorized_client", "Grant type '\(grantType)' not allowed for the client.", status: .forbidden)
    }
}

/// An issued authorization code.
struct Auth0AuthorizationCode: Sendable {
    var grant: Auth0Grant
    var redirectURI: String
    var codeChallenge: String
    var expiresAt: Date
}

/// A pending Universal Login page.
struct Auth0LoginTransaction: Sendable {
    var request: Auth0AuthorizeRequest
    var expiresAt: Date
}

/// The validated parameters of `GET /authorize`.
struct Auth0AuthorizeRequest: Sendable {
    var clientId: String
    var redirectURI: String
    var state: String?
    var nonce: String?
    var scopes: [String]
    var audience: String?
    var connection: String
    var codeChallenge: String
    /// `max_age` in seconds, when sent.
    var maxAge: Int? = nil
    /// The organization named by `organization`, resolved.
    var organization: Auth0OrganizationClaim? = nil
    /// The `invitation` ticket sent with `organization`.
    var invitation: String? = nil
    /// `screen_hint=signup`: the page to show is the sign-up page.
    var signup = false
    /// For the login step of the device verification flow (`/activate`): the digest of the
    /// `device_code` being activated. Such a login ends on the consent page instead of redirecting
    /// with a code (its `redirectURI` and `codeChallenge` are empty and never used).
    var deviceCode: String? = nil
}

/// An access token and what it grants.
struct Auth0AccessGrant: Sendable {
    var grant: Auth0Grant
    var expiresAt: Date
}

/// One refresh token of a family.
struct Auth0RefreshRecord: Sendable {
    var familyId: String
    /// Set once the token was exchanged for a newer one; presenting it again is reuse.
    var rotated: Bool
    /// The token this one was issued for (its digest); nil for the token of a login.
    var parent: String? = nil
    /// When the token was first exchanged.
    var rotatedAt: Date? = nil
    /// Set once a token issued from this one was exchanged: this one is no longer the previous token,
    /// so the reuse interval no longer covers it.
    var superseded = false
    /// When the token was issued (committed), on the emulator's clock; fault tests compare it with
    /// the moment they killed a client.
    var issuedAt: Date? = nil
}

/// A chain of refresh tokens descending from one login.
struct Auth0RefreshFamily: Sendable {
    var grant: Auth0Grant
    var revoked: Bool
}

/// An MFA transaction opened by `mfa_required`.
struct Auth0MFATransaction: Sendable {
    var grant: Auth0Grant
    var expiresAt: Date
}

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

/// A passwordless one-time code waiting to be used.
struct Auth0PasswordlessCode: Sendable {
    var code: String
    var connection: String
    var expiresAt: Date
}

/// A passkey ceremony opened by `/passkey/challenge` (login) or `/passkey/register` (signup).
struct Auth0PasskeySession: Sendable {
    enum Kind: Sendable {
        case login
        /// Signup: the user to create once the attestation verifies.
        case signup(userId: String, userHandle: [UInt8], email: String, attributes: [String: JSONValue])
    }

    var kind: Kind
    var challenge: [UInt8]
    var clientId: String
    var connection: String
    var expiresAt: Date
}

/// A DB-connection OTP login opened by `/otp/challenge` (AuthHubAuth0 docs, Auth0Endpoints: “Passwordless”).
struct Auth0OTPSession: Sendable {
    var clientId: String
    var connection: String
    /// The lower-cased email, or the phone number.
    var identifier: String
    var isEmail: Bool
    var allowSignup: Bool
    var expiresAt: Date
}

/// An out-of-band MFA authenticator (`authenticator_type: oob`) for the `sms` or `email` channel.
struct Auth0OOBAuthenticator: Sendable {
    /// `sms|dev_…` or `email|dev_…`.
    var id: String
    /// `sms` or `email`.
    var channel: String
    /// The phone number or email address the binding codes go to.
    var target: String
    /// False between `/mfa/associate` and the first accepted binding code.
    var confirmed: Bool
    /// For SMS authenticators enrolled through the My Account API: `sms` or `voice`.
    var preferredMethod: String? = nil

    /// The `type` of `/mfa/authenticators` and `mfa_requirements`: `phone` for SMS, `email` for email.
    var factorType: String { channel == "sms" ? "phone" : "email" }

    /// The masked target shown as `name`: `XXXXXXXX` and the last four digits of a phone number,
    /// or the first letter, `***` and the domain of an email address.
    var maskedName: String {
        if channel == "sms" {
            let digits = target.filter(\.isNumber)
            return "XXXXXXXX" + String(digits.suffix(4))
        }
        let parts = target.split(separator: "@", maxSplits: 1)
        guard parts.count == 2, let first = parts[0].first else { return "***" }
        return "\(first)***@\(parts[1])"
    }
}

/// An `oob_code` handed out by `/mfa/associate` or `/mfa/challenge`, waiting for the `mfa-oob`
/// grant with its binding code.
struct Auth0OOBCode: Sendable {
    /// The digest of the MFA token the code belongs to.
    var mfaTokenDigest: String
    var userId: String
    var authenticatorId: String
    /// The 6-digit code "sent" to the phone or email (read with the emulator-only hook).
    var bindingCode: String
    /// Wrong binding codes so far; the code is dropped after ``Auth0Service/oobMaximumFailures``.
    var failures: Int
    var expiresAt: Date
}

/// A subject token registered for the token-exchange grant: who it signs in.
struct Auth0ExchangeSubject: Sendable {
    /// The lower-cased email of the user.
    var email: String
    /// The connection the user lives in (created there on first use).
    var connection: String
}

/// A push-notification authenticator (Guardian-style, `oob_channel: auth0`) enrolled through the
/// My Account API. The emulator cannot send pushes, so it never challenges one; it lists it.
struct Auth0PushAuthenticator: Sendable {
    /// `push|dev_…`.
    var id: String
}

/// My Account attributes of one authentication method.
struct Auth0MethodDetails: Sendable {
    /// The name set with `PATCH /me/v1/authentication-methods/{id}`.
    var name: String?
    var createdAt: Date
    /// For a passkey method: the credential ID of the passkey in ``Auth0User/passkeys``.
    var credentialID: [UInt8]? = nil
    /// For a passkey method: the `User-Agent` of the enrolling request.
    var userAgent: String? = nil
}

/// A code the emulator "sent" for a My Account email or phone enrollment, read back with
/// `GET /auth0/__emulator/outbox?to=…`.
struct Auth0OutboxMessage: Sendable {
    /// The email address (lower-cased) or phone number.
    var to: String
    /// `email`, `sms` or `voice`.
    var channel: String
    var code: String
    /// Always `enrollment` for now.
    var purpose: String
    var sentAt: Date
}
