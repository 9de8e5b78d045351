/// A change to the signed-in user's profile (``AccountProvider/changeProfile(_:manager:)``).
public enum AccountProfileChange: Sendable, Hashable {
    /// A new display name.
    case name(String)
    /// A new email address. Providers that verify it first send a link to it and change nothing
    /// until it is followed (``AccountProfileChangeResult/verificationSent(to:)``).
    case email(String)
}

/// What a profile change did.
public enum AccountProfileChangeResult: Sendable, Hashable {
    /// Changed now.
    case changed
    /// A verification link was sent to this address; the change happens once it is followed.
    case verificationSent(to: String)
}
