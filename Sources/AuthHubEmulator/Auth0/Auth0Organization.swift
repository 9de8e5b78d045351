import Foundation

/// An Auth0 Organization of the emulated tenant, created with the emulator-only hook
/// `POST /auth0/__emulator/organizations`.
///
/// Emulator convention: membership is kept by lower-cased email address (members may be named
/// before they sign up), and applies to the user with that email in any connection.
struct Auth0Organization: Sendable {
    /// `org_` and 16 letters and digits, Auth0's form.
    var id: String
    /// The lower-case name (`[a-z0-9_-]`, 1…50 characters, starting with a letter or digit).
    var name: String
    var displayName: String?
    /// Lower-cased emails of the members.
    var members: Set<String>

    /// The largest number of members one hook call may name.
    static let maximumMembers = 1_000

    /// Whether `name` is a valid organization name.
    static func isValidName(_ name: String) -> Bool {
        guard (1...50).contains(name.count), let first = name.first, first.isASCII, first.isLetter || first.isNumber else {
            return false
        }
        return name.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-" || $0 == "_") }
    }

    /// The `org_id`/`org_name` pair carried by a grant.
    var claim: Auth0OrganizationClaim { Auth0OrganizationClaim(id: id, name: name) }
}

/// The organization a login was made for: the ID token's `org_id` and `org_name` (lower-case).
struct Auth0OrganizationClaim: Sendable, Equatable {
    var id: String
    var name: String
}

/// An invitation to an organization, created with
/// `POST /auth0/__emulator/organizations/{id}/invitations`, stored under the digest of its ticket.
struct Auth0Invitation: Sendable {
    var organizationId: String
    /// The lower-cased email of the invitee; only that user may accept it.
    var email: String
    var expiresAt: Date

    /// Auth0's default invitation lifetime (7 days).
    static let lifetime: TimeInterval = 7 * 86_400
}
