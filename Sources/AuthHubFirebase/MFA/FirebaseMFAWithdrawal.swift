import AuthHub

/// What ``FirebaseAuth/withdrawMFA(enrollmentID:)`` did after the second factor was removed.
public enum FirebaseMFAWithdrawal: Sendable, Equatable {
    /// The reply carried new tokens: the session was stored with them (this is the stored session).
    case renewed(Session)
    /// The reply carried no tokens (the backend ended the session): the stored session was
    /// removed and `signedOut` published. The user signs in again — now without the factor.
    case signedOut

    /// The renewed session, nil when the user was signed out.
    public var session: Session? {
        if case .renewed(let session) = self { return session }
        return nil
    }
}
