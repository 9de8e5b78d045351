import AuthHub
import AuthHubOIDC
import Crypto
import Foundation
import HTTPTypes

/// OpenID Connect Back-Channel Logout 1.0, the relying party's side: when a user's session ends at
/// the provider (they signed out there, an administrator ended it), the provider POSTs a logout
/// token here and every browser session of this app that belongs to that provider session (`sid`)
/// or user (`sub`) ends — on every replica, since the sessions are removed from the shared store.
extension AuthHubWeb {
    /// `POST <prefix>/backchannel-logout` with the form field `logout_token` (the URL to register at
    /// the provider as the application's back-channel logout URL).
    ///
    /// The token is validated by its issuer's provider (``LogoutTokenValidator``: signature with the
    /// issuer's keys, `iss`, `aud` the client ID, `iat`, `events`, `sid`/`sub`, no `nonce`), its
    /// `jti` is accepted once (``WebSignInConfiguration/logoutTokenReplayCache``), and then the
    /// provider's browser sessions it names are removed from the store: with `sub`, that user's
    /// sessions (through the store's index by user) — only those of that `sid` when the token names
    /// one and the session recorded one; with `sid` alone, the sessions that recorded that `sid`
    /// (found by reading the provider's browser sessions, at most 10,000). The refresh tokens are
    /// not revoked here: the provider ended the session and revokes what belonged to it.
    ///
    /// Answers 200 (`Cache-Control: no-store`) when the token is valid, whether or not any session
    /// matched; 400 with `{"error":"invalid_request","error_description":…}` for anything else
    /// (a missing or repeated field, a token no configured provider issued, a failed check, a replay);
    /// 503 when the issuer's keys cannot be fetched (the provider may send the token again). No
    /// cookie, CSRF token or origin is asked for: the caller is the provider's server, and the
    /// token's signature is the proof.
    public func backChannelLogout(_ request: WebRequest) async -> WebResponse {
        guard request.head.method == .post else { return Self.logoutRefusal("The back-channel logout takes a POST.") }
        let fields: [(String, String)]
        do {
            guard request.head.headerFields[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true else {
                return Self.logoutRefusal("The logout token comes as an application/x-www-form-urlencoded form.")
            }
            let body = try await request.readBody(Self.logoutFormLimit)
            guard body.count <= Self.logoutFormLimit else { return Self.logoutRefusal("The form is too large.") }
            fields = FormEncoding.decode(String(decoding: body, as: UTF8.self))
        } catch {
            return Self.logoutRefusal("The form is too large.")
        }
        let tokens = fields.filter { $0.0 == "logout_token" }.map(\.1)
        guard tokens.count == 1, let raw = tokens.first, !raw.isEmpty else {
            return Self.logoutRefusal("The form must carry one logout_token.")
        }
        let token = Secret(raw)
        let claims: LogoutTokenClaims, provider: any BackChannelLogoutProvider
        do {
            (claims, provider) = try await validatedLogoutToken(token)
        } catch let error as AuthError where error.code.isTransientByDefault {
            return .page(.serviceUnavailable, "The issuer's keys could not be fetched; please send the logout token again.")
        } catch {
            return Self.logoutRefusal(AuthError.wrap(error).message)
        }
        do {
            let ended = try await endSessions(of: provider.id, matching: claims)
            hub.context.logger.info("back-channel logout", metadata: ["provider": "\(provider.id)", "sessions": "\(ended)"])
        } catch {
            return .page(.serviceUnavailable, "The sessions could not be ended; please send the logout token again.")
        }
        return WebResponse(status: .ok, headerFields: [.cacheControl: "no-store"])
    }

    /// The largest back-channel logout form read (a logout token is at most 16 KiB).
    static let logoutFormLimit = 32_768

    /// The provider that issued `token` and its validated claims; the token's `jti` recorded.
    /// - Throws: ``AuthErrorCode/invalidToken`` for a token no configured provider issued or whose
    ///   checks fail, a replay included; transient errors when the issuer's keys cannot be fetched.
    func validatedLogoutToken(_ token: Secret<String>) async throws -> (LogoutTokenClaims, any BackChannelLogoutProvider) {
        guard let (_, payload) = JWTParts.decode(token), let iss = payload["iss"]?.stringValue else {
            throw AuthError(.invalidToken, message: "The logout token is not a compact JWT naming its issuer.",
                            details: ["reason": LogoutTokenValidator.Failure.malformed.rawValue])
        }
        var lastError: AuthError?, unreachable: (any Error)?
        for id in hub.providerIDs {
            guard let provider = try? hub.provider(id) as? any BackChannelLogoutProvider,
                  WebSessionID.isUsable(providerID: provider.id) else { continue }
            // One provider whose discovery is out of reach must not stop another's logouts.
            let validator: LogoutTokenValidator
            do {
                validator = try await provider.logoutTokenValidator()
            } catch {
                unreachable = error
                continue
            }
            guard validator.issuer == iss else { continue }
            do {
                let claims = try await validator.validate(token)
                let replayKey = Base64URL.encode(SHA256.hash(data: Data((iss + "\u{0}" + claims.jti).utf8)))
                let until = claims.issuedAt.addingTimeInterval(validator.maxAge + 2 * validator.leeway)
                guard try await logoutTokenReplayCache.firstUse(of: replayKey, until: until) else {
                    throw AuthError(.invalidToken, message: "The logout token was used before (jti).",
                                    details: ["reason": LogoutTokenValidator.Failure.replayed.rawValue])
                }
                return (claims, provider)
            } catch let error as AuthError where error.details["reason"] == LogoutTokenValidator.Failure.audience.rawValue {
                // Another entry of the same issuer (another client ID) may be the one addressed.
                lastError = error
            }
        }
        if let lastError { throw lastError }
        // No reachable provider has this issuer; one that could not be asked may be it: try again later.
        if let unreachable { throw unreachable }
        throw AuthError(.invalidToken, message: "The logout token's issuer is not a provider of this app.", details: ["reason": "untrustedIssuer"])
    }

    /// Removes the provider's browser sessions the logout token names; returns how many.
    func endSessions(of providerID: String, matching claims: LogoutTokenClaims) async throws -> Int {
        func matches(_ session: Session) -> Bool {
            if let subject = claims.subject, session.userID != subject { return false }
            guard let sid = claims.sessionID else { return true }
            guard let recorded = Self.recordedSID(of: session) else { return claims.subject != nil }
            return recorded == sid
        }
        var keys: [SessionKey]
        if let subject = claims.subject {
            keys = try await hub.sessionKeys(ofUser: subject, provider: providerID)
        } else {
            keys = try await hub.store.keys().filter { $0.provider == providerID }
        }
        keys = keys.filter { WebSessionID.createdAt(ofAccount: $0.account) != nil }.prefix(10_000).map { $0 }
        var ended = 0
        for key in keys {
            guard let session = try? await hub.store.load(key), matches(session) else { continue }
            try await hub.manager(provider: key.provider, account: key.account).clear()
            ended += 1
        }
        return ended
    }

    /// The provider session (`sid`) a browser session belongs to: recorded at sign-in, else its claims'.
    static func recordedSID(of session: Session) -> String? {
        session.extras[sidExtra]?.stringValue ?? session.claims["sid"]?.stringValue
    }

    /// The `extras` member holding the provider's session id (`sid` of the ID token) at sign-in.
    static let sidExtra = "authhubWebSID"

    /// 400 with an OAuth-style error body, never cached.
    static func logoutRefusal(_ description: String) -> WebResponse {
        let body = (try? JSONValue.object(["error": "invalid_request", "error_description": .string(description)]).serialized()) ?? Data()
        return WebResponse(status: .badRequest, headerFields: [.contentType: "application/json", .cacheControl: "no-store"], body: Array(body))
    }
}
