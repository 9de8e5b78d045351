import AuthHub
import Foundation

/// One element of ``FirebaseAuth/authStateChanges()``: what changed and the session after it.
///
/// The Firebase SDKs' `authStateChanges`/`idTokenChanges` listeners, on the core's events: the
/// first element is the current state (``Change/initial``), then every sign-in, token refresh and
/// sign-out in order.
public struct FirebaseAuthState: Sendable, Hashable, CustomStringConvertible {
    /// What happened.
    public enum Change: String, Sendable, Hashable {
        /// The state when listening started.
        case initial
        /// A sign-in, sign-up or credential change stored a new session.
        case signedIn
        /// The ID token was renewed.
        case tokenRefreshed
        /// The user signed out (or the account was deleted, or a token operation ended the session).
        case signedOut
        /// Renewal was refused (user deleted or disabled, credentials changed elsewhere): the
        /// session was cleared.
        case sessionExpired
    }

    /// What happened.
    public var change: Change
    /// The session after the change; nil when signed out.
    public var session: Session?

    /// Creates a state.
    public init(change: Change, session: Session?) {
        self.change = change
        self.session = session
    }

    /// The signed-in user's uid; nil when signed out.
    public var uid: String? { session?.userID }
    /// Whether a user is signed in.
    public var isSignedIn: Bool { session != nil }

    /// The state a core event stands for.
    init(_ event: AuthEvent) {
        switch event {
        case .initialSession(_, let session): self.init(change: .initial, session: session)
        case .signedIn(let session): self.init(change: .signedIn, session: session)
        case .tokenRefreshed(let session): self.init(change: .tokenRefreshed, session: session)
        case .signedOut: self.init(change: .signedOut, session: nil)
        case .sessionExpired: self.init(change: .sessionExpired, session: nil)
        }
    }

    /// `signedIn(uid)` etc.; never a token.
    public var description: String { "\(change.rawValue)(\(uid ?? "signed out"))" }
}
