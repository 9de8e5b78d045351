import AuthHub
import Foundation

/// One of the signed-in user's browser sessions, for a "where you're signed in" list: never its
/// cookie (a bearer credential), only the id its session is stored under.
public struct WebSessionSummary: Sendable, Hashable, Identifiable {
    /// The session's stored account key (`web.<created>.<hash of the cookie's random part>`): names
    /// the session for ``AuthHubWeb/signOutSession(id:of:)`` and cannot be used as a cookie.
    public let id: String
    /// When the browser signed in.
    public let createdAt: Date
    /// What the browser said it was at sign-in, summarised ("Firefox on Linux"); nil when unknown.
    public let device: String?
    /// Whether this is the session of the request asking.
    public let isCurrent: Bool
    /// The client's address at sign-in, when the app records it (``WebSignInConfiguration/recordsClientAddress``).
    public let address: String?
    /// When a replica last answered a request of the session, to within
    /// ``AuthHubWeb/cookieRenewalInterval`` (written to the store as the cookie is renewed); nil
    /// before its first renewal.
    public let lastSeenAt: Date?
}

/// The signed-in user's browser sessions across every replica (through the session store's index by
/// user, ``UserIndexedSessionStore``): list them, sign one out, every other one, or all of them.
/// Signing out removes the session from the store and revokes its refresh token at the provider
/// (``AuthHub/signOut(provider:account:)``); every replica's next request with that cookie is
/// answered as signed out (its cached identity no longer matches the hub's session).
extension AuthHubWeb {
    /// The browser sessions of the user of `identity` (a session identity), newest first.
    /// - Throws: ``AuthErrorCode/invalidRequest`` for an identity without a subject or not from a
    ///   session cookie; ``AuthErrorCode/unsupported`` when the store keeps no index by user.
    public func sessions(of identity: AuthHubIdentity) async throws -> [WebSessionSummary] {
        let (userID, current) = try Self.owner(of: identity)
        var summaries: [WebSessionSummary] = []
        for key in try await hub.sessionKeys(ofUser: userID, provider: identity.provider) {
            guard let created = WebSessionID.createdAt(ofAccount: key.account),
                  let session = try? await hub.store.load(key), session.userID == userID else { continue }
            summaries.append(WebSessionSummary(id: key.account, createdAt: created,
                                               device: session.extras[Self.deviceExtra]?.stringValue, isCurrent: key.account == current,
                                               address: session.extras[Self.addressExtra]?.stringValue,
                                               lastSeenAt: AuthHubIdentity.date(session.extras[Self.lastSeenExtra]?.doubleValue)))
        }
        return summaries.sorted { ($0.createdAt, $0.id) > ($1.createdAt, $1.id) }
    }

    /// Signs out one of the user's browser sessions (one of ``sessions(of:)``; the current one too).
    /// - Throws: ``AuthErrorCode/invalidRequest`` when the user has no session with that id.
    public func signOutSession(id: String, of identity: AuthHubIdentity) async throws {
        guard try await sessions(of: identity).contains(where: { $0.id == id }) else {
            throw AuthError(.invalidRequest, message: "There is no such session of yours.")
        }
        _ = try await hub.signOut(provider: identity.provider, account: id)
    }

    /// Signs out every browser session of the user but the current one; returns how many.
    @discardableResult
    public func signOutOtherSessions(of identity: AuthHubIdentity) async throws -> Int {
        let others = try await sessions(of: identity).filter { !$0.isCurrent }
        for session in others { _ = try await hub.signOut(provider: identity.provider, account: session.id) }
        return others.count
    }

    /// Signs out every browser session of the user, the current one included; returns how many.
    @discardableResult
    public func signOutEverywhere(of identity: AuthHubIdentity) async throws -> Int {
        let all = try await sessions(of: identity)
        for session in all { _ = try await hub.signOut(provider: identity.provider, account: session.id) }
        return all.count
    }

    /// The `extras` member a browser session's device summary is stored under at sign-in.
    static let deviceExtra = Session.browserDeviceExtra
    static let addressExtra = "authhubWebAddress"
    /// The `extras` member holding when a replica last answered the session (seconds since 1970).
    static let lastSeenExtra = "authhubWebLastSeen"
    /// The `extras` member holding when the web core's sign-in form checked the user's password
    /// (seconds since 1970), for providers whose claims carry no `auth_time` (the step-up reads it).
    static let authenticatedAtExtra = "authhubWebAuthenticatedAt"

    /// An address as the framework gave it, kept only when it reads as an IPv4 or IPv6 address (a few
    /// dozen characters of digits, hex, `.` and `:`); anything else is dropped.
    static func checkedAddress(_ address: String?) -> String? {
        guard let address, (2...45).contains(address.utf8.count),
              address.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) || ("a"..."f").contains($0) || ("A"..."F").contains($0) || $0 == "." || $0 == ":" }),
              address.contains(".") || address.contains(":") else { return nil }
        return address
    }

    /// The user id and current session account of a session identity.
    static func owner(of identity: AuthHubIdentity) throws -> (userID: String, current: String) {
        guard case .session(let cookie) = identity.source, let id = WebSessionID(cookie: cookie) else {
            throw AuthError(.invalidRequest, message: "Sessions are listed for a browser session's user.")
        }
        guard let userID = identity.subject, !userID.isEmpty else {
            throw AuthError(.invalidRequest, message: "This session has no user id to list sessions by.")
        }
        return (userID, id.account)
    }
}

/// Step-up: sensitive actions (changing a factor, the password or the email, signing other sessions
/// out, deleting the account) want a recent sign-in. The user is sent through the provider's sign-in
/// again (`max_age=0` and `prompt=login`; the ID token's `auth_time` is checked) and back to the
/// action; from a signed-in browser only the same user may complete it (anyone else is refused with
/// 403 and the browser keeps its session).
extension AuthHubWeb {
    /// Whether the user of `identity` gave the provider their credentials within `maxAge` (by its
    /// ``AuthHubIdentity/authenticatedAt``; false when the provider did not say).
    public func isRecentlyAuthenticated(_ identity: AuthHubIdentity, within maxAge: Duration) -> Bool {
        guard let at = identity.authenticatedAt else { return false }
        let age = now.timeIntervalSince(at)
        return age >= -60 && age <= maxAge.seconds
    }

    /// The path of this app that signs the user in again at `identity`'s provider and comes back
    /// to `returnTo` (a path of this site); nil for a `returnTo` that is not one.
    public func reauthenticationPath(for identity: AuthHubIdentity, returnTo: String) -> String? {
        guard let path = ReturnPath.validated(returnTo) else { return nil }
        let escape = { (text: String) in text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "" }
        return "\(configuration.routePrefix)/login?provider=\(escape(identity.provider))&returnTo=\(escape(path))&maxAge=0"
    }

    /// Nil when the user of `identity` signed in within `maxAge`; otherwise the response to send
    /// instead of the action: a redirect (303) through the provider's sign-in and back to
    /// `returnTo` (400 for a `returnTo` that is not a path of this site).
    ///
    /// - Parameter afterForm: true when answering a form's POST. A browser applies the page's
    ///   `Content-Security-Policy: form-action 'self'` (AuthHub's pages send it) to every redirect
    ///   that follows a form submission, so a redirect on to another origin — the provider's sign-in
    ///   — is blocked there. After a form the answer is therefore a page of this site
    ///   (``reauthenticationPage(for:returnTo:)``) that goes on to the sign-in by itself.
    public func requireRecentAuthentication(_ identity: AuthHubIdentity, maxAge: Duration, returnTo: String,
                                            afterForm: Bool = false) -> WebResponse? {
        guard !isRecentlyAuthenticated(identity, within: maxAge) else { return nil }
        return afterForm ? reauthenticationPage(for: identity, returnTo: returnTo) : reauthenticationRedirect(for: identity, returnTo: returnTo)
    }

    /// A redirect (303) through the provider's sign-in and back to `returnTo` (400 for a `returnTo`
    /// that is not a path of this site).
    func reauthenticationRedirect(for identity: AuthHubIdentity, returnTo: String) -> WebResponse {
        guard let path = reauthenticationPath(for: identity, returnTo: returnTo) else {
            return .page(.badRequest, "The return address must be a page of this site.")
        }
        return .redirect(path, status: .seeOther)
    }

    /// A page of this site (200) that sends the browser through the provider's sign-in and back to
    /// `returnTo` at once (a `refresh` in the page, and a link for a browser that does not follow
    /// one): the answer to a form's POST that needs a recent sign-in (see
    /// ``requireRecentAuthentication(_:maxAge:returnTo:afterForm:)``). 400 for a `returnTo` that is
    /// not a path of this site.
    public func reauthenticationPage(for identity: AuthHubIdentity, returnTo: String) -> WebResponse {
        guard let path = reauthenticationPath(for: identity, returnTo: returnTo), let back = ReturnPath.validated(returnTo) else {
            return .page(.badRequest, "The return address must be a page of this site.")
        }
        return pages.render("reauthenticate", title: pages.strings["stepUpTitle"] ?? "Confirm it is you",
                            context: ["continue": path, "back": back.hasPrefix(configuration.accountPath + "/") ? configuration.accountPath : back],
                            refresh: path, random: hub.context.random)
    }
}
