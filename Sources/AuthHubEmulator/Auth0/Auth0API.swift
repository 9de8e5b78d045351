import Foundation

/// The APIs the emulated tenant hosts besides the Authentication API, each with its audience and
/// the user-scoped scopes a token grant may hand out for it (AuthHubAuth0 docs, Auth0Endpoints: “My Account API”, “Scopes”, “Management API users”).
///
/// Token policy (emulator convention, following Auth0's behaviour for API scopes): a grant that
/// names one of these audiences may receive that API's scopes on top of what the login or the
/// refresh-token family allows; a client registered with `api_scopes` (see
/// ``Auth0ClientSettings/apiScopes``) receives only the listed ones. A requested API scope that is
/// not grantable (other audience, or not allowed for the client) is left out of the granted
/// scope, never an error.
enum Auth0API: Sendable, CaseIterable {
    /// The My Account API, audience `<issuer>me/`, served under `/auth0/me/v1/`.
    case myAccount
    /// The Management API, audience `<issuer>api/v2/`, served under `/auth0/api/v2/`.
    case management

    /// The audience path relative to the issuer.
    var audiencePath: String {
        switch self {
        case .myAccount: "me/"
        case .management: "api/v2/"
        }
    }

    /// The scopes of this API a user-scoped token can be granted.
    var scopes: [String] {
        switch self {
        case .myAccount:
            [
                "create:me:authentication_methods", "read:me:authentication_methods", "update:me:authentication_methods",
                "delete:me:authentication_methods", "read:me:factors",
            ]
        case .management:
            ["read:current_user", "update:current_user_metadata", "update:current_user_identities"]
        }
    }

    /// Every API scope of every API.
    static let allScopes: Set<String> = Set(allCases.flatMap(\.scopes))

    /// The audience of this API for a tenant with `issuer` (`http://HOST:PORT/auth0/`).
    func audience(issuer: String) -> String { issuer + audiencePath }

    /// The API `audience` names, or nil.
    ///
    /// The audience matches when it equals ``audience(issuer:)``, ignoring a missing trailing
    /// slash; a loopback host spelled differently (`localhost` for `127.0.0.1`) also matches, so
    /// a client configured with either name gets the same API.
    static func named(by audience: String?, issuer: String) -> Auth0API? {
        guard let audience else { return nil }
        return allCases.first { $0.matches(audience, issuer: issuer) }
    }

    /// Whether `audience` is this API's audience for `issuer`.
    func matches(_ audience: String, issuer: String) -> Bool {
        let expected = self.audience(issuer: issuer)
        if Self.trimmed(audience) == Self.trimmed(expected) { return true }
        guard let given = URLComponents(string: audience), let wanted = URLComponents(string: expected),
              given.scheme?.lowercased() == wanted.scheme?.lowercased(), given.port == wanted.port,
              Self.trimmed(given.path) == Self.trimmed(wanted.path),
              let givenHost = given.host?.lowercased(), let wantedHost = wanted.host?.lowercased()
        else { return false }
        return givenHost == wantedHost || (Self.loopbackHosts.contains(givenHost) && Self.loopbackHosts.contains(wantedHost))
    }

    private static let loopbackHosts: Set<String> = ["127.0.0.1", "localhost", "::1", "[::1]"]

    private static func trimmed(_ text: String) -> String {
        text.hasSuffix("/") ? String(text.dropLast()) : text
    }
}
