import AuthHub

extension Auth0AuthenticationAPI {
    /// What `/passwordless/start` sends (<doc:Auth0Endpoints>: “Passwordless”).
    public enum PasswordlessDelivery: String, Sendable {
        case code, link
        case linkIOS = "link_ios"
        case linkAndroid = "link_android"
    }

    /// Sends a one-time code (or link) by email (<doc:Auth0Endpoints>: “Passwordless”); `connection` defaults to `email`.
    public func startPasswordless(email: String, send: PasswordlessDelivery = .code, connection: String = "email",
                                  options: Options = .none) async throws {
        _ = try await post("passwordless/start", Auth0PasswordlessStartRequest(connection: connection, send: send.rawValue, email: email),
                           options: options, retry: .never, operation: .signIn)
    }

    /// Sends a one-time code (or link) by SMS (<doc:Auth0Endpoints>: “Passwordless”); `connection` defaults to `sms`.
    public func startPasswordless(phoneNumber: String, send: PasswordlessDelivery = .code, connection: String = "sms",
                                  options: Options = .none) async throws {
        _ = try await post("passwordless/start",
                           Auth0PasswordlessStartRequest(connection: connection, send: send.rawValue, phoneNumber: phoneNumber),
                           options: options, retry: .never, operation: .signIn)
    }

    /// Signs in with a code sent by ``startPasswordless(email:send:connection:options:)``.
    public func loginPasswordless(email: String, code: Secret<String>, audience: String? = nil, scope: String = defaultScope,
                                  options: Options = .none) async throws -> Auth0Credentials {
        try await passwordlessLogin(username: email, realm: "email", code: code, audience: audience, scope: scope, options: options)
    }

    /// Signs in with a code sent by ``startPasswordless(phoneNumber:send:connection:options:)``.
    public func loginPasswordless(phoneNumber: String, code: Secret<String>, audience: String? = nil,
                                  scope: String = defaultScope, options: Options = .none) async throws -> Auth0Credentials {
        try await passwordlessLogin(username: phoneNumber, realm: "sms", code: code, audience: audience, scope: scope, options: options)
    }

    private func passwordlessLogin(username: String, realm: String, code: Secret<String>, audience: String?, scope: String,
                                   options: Options) async throws -> Auth0Credentials {
        try await token(Auth0TokenRequest(grantType: GrantType.passwordlessOTP, username: username, realm: realm, audience: audience,
                                          scope: scope, otp: code.revealed()),
                        options: options, retry: .never, operation: .signIn)
    }

    /// Starts a database-connection OTP sign-in by email (<doc:Auth0Endpoints>: “Passwordless”, `/otp/challenge`) and returns
    /// the `auth_session` the login needs.
    public func startDatabaseOTP(email: String, connection: String = defaultDatabaseConnection, allowSignup: Bool = false,
                                 options: Options = .none) async throws -> Secret<String> {
        try await otpChallenge(Auth0OTPChallengeRequest(email: email, connection: connection, allowSignup: allowSignup),
                               options: options)
    }

    /// Starts a database-connection OTP sign-in by phone (`delivery_method` `text` or `voice`).
    public func startDatabaseOTP(phoneNumber: String, deliveryMethod: String = "text",
                                 connection: String = defaultDatabaseConnection, allowSignup: Bool = false,
                                 options: Options = .none) async throws -> Secret<String> {
        try await otpChallenge(Auth0OTPChallengeRequest(phoneNumber: phoneNumber, deliveryMethod: deliveryMethod,
                                                        connection: connection, allowSignup: allowSignup), options: options)
    }

    private func otpChallenge(_ body: Auth0OTPChallengeRequest, options: Options) async throws -> Secret<String> {
        let reply = try await post("otp/challenge", body, as: Auth0OTPChallengeReply.self, options: options, retry: .never,
                                   operation: .signIn)
        return Secret(reply.authSession)
    }

    /// Completes a database-connection OTP sign-in with the `auth_session` and the code.
    public func loginDatabaseOTP(authSession: Secret<String>, code: Secret<String>, audience: String? = nil,
                                 scope: String = defaultScope, options: Options = .none) async throws -> Auth0Credentials {
        try await token(Auth0TokenRequest(grantType: GrantType.passwordlessOTP, audience: audience, scope: scope,
                                          otp: code.revealed(), authSession: authSession.revealed()),
                        options: options, retry: .never, operation: .signIn)
    }
}
