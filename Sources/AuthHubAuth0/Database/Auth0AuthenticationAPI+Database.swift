import AuthHub
import Foundation

extension Auth0AuthenticationAPI {
    // MARK: - Database connections (AuthHubAuth0 docs, Auth0Endpoints: “Sign-up”)

    /// Creates a user in a database connection; `rootAttributes` are copied to the body root for
    /// keys not already set (`given_name`, `family_name`, `name`, `nickname`, `picture`, …).
    public func signup(email: String, password: Secret<String>, connection: String = defaultDatabaseConnection,
                       username: String? = nil, userMetadata: [String: JSONValue]? = nil,
                       rootAttributes: [String: JSONValue] = [:], options: Options = .none) async throws -> Auth0DatabaseUser {
        var body = try Self.members(Auth0SignupRequest(email: email, password: password.revealed(), connection: connection,
                                                       username: username, userMetadata: userMetadata))
        for (key, value) in rootAttributes where body[key] == nil { body[key] = value }
        let request = try self.request("dbconnections/signup", body, options: options, ensureOpenID: false, retry: .never,
                                  operation: .signUp)
        return try await api.send(request, as: Auth0DatabaseUser.self)
    }

    /// Sends a password-reset email (<doc:Auth0Endpoints>: “Authentication API”); the reply is text.
    public func resetPassword(email: String, connection: String = defaultDatabaseConnection, organization: String? = nil,
                              options: Options = .none) async throws {
        _ = try await post("dbconnections/change_password",
                           Auth0ChangePasswordRequest(email: email, connection: connection, organization: organization),
                           options: options, operation: .passwordReset)
    }
}
