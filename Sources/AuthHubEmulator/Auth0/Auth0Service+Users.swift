import enum AuthHub.JSONValue
import struct AuthHub.Secret
import AuthHubFactors
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

extension Auth0Service {
    /// Root profile attributes signup copies from the body (AuthHubAuth0 docs, Auth0Endpoints: “Sign-up” `rootAttributes`).
    static let rootAttributes = ["given_name", "family_name", "name", "nickname", "picture", "phone_number"]

    /// The emulator's password policy: at least 8 characters (Auth0's "fair" length rule).
    static let minimumPasswordLength = 8

    /// A user described by signup or seeding parameters, not yet stored.
    struct NewUser: Sendable {
        var email: String
        var connection: String
        var username: String?
        var password: String?
        var attributes: [String: JSONValue]
        var userMetadata: [String: JSONValue]
    }

    /// Reads and checks signup-style parameters (AuthHubAuth0 docs, Auth0Endpoints: “Sign-up”), failing with database-connection
    /// error bodies (AuthHubAuth0 docs, Auth0Errors: “Error body shapes”).
    func newUser(from parameters: Auth0Parameters, passwordRequired: Bool) throws -> NewUser {
        guard let email = parameters.string("email") else {
            throw Auth0Failure.database(code: "invalid_parameter", description: "Missing required parameter: email")
        }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !email.contains(" ") else {
            throw Auth0Failure.database(code: "invalid_parameter", description: "Invalid email address.")
        }
        let password = parameters.string("password")
        if passwordRequired, password == nil {
            throw Auth0Failure.database(code: "invalid_parameter", description: "Missing required parameter: password")
        }
        if let password, password.count < Self.minimumPasswordLength {
            let rule: JSONValue = [
                "message": "At least %d characters in length", "format": .array([.number(Double(Self.minimumPasswordLength))]),
                "code": "lengthAtLeast", "verified": false,
            ]
            throw Auth0Failure.database(
                name: "PasswordStrengthError", code: "invalid_password",
                description: ["rules": [rule], "verified": false],
                extra: ["message": "Password is too weak", "policy": "* At least 8 characters in length"]
            )
        }
        var metadata: [String: JSONValue] = [:]
        if let value = parameters["user_metadata"] {
            guard let object = value.objectValue, object.count <= 10,
                  object.allSatisfy({ $0.key.count <= 100 && ($0.value.stringValue?.count ?? 0) <= 500 })
            else {
                throw Auth0Failure.database(
                    code: "invalid_parameter",
                    description: "user_metadata must be an object of at most 10 properties, names up to 100 and values up to 500 characters."
                )
            }
            metadata = object
        }
        var attributes: [String: JSONValue] = [:]
        for key in Self.rootAttributes {
            if let value = parameters.string(key) { attributes[key] = .string(value) }
        }
        return NewUser(
            email: email.lowercased(), connection: parameters.string("connection") ?? Auth0Tenant.defaultConnection,
            username: parameters.string("username"), password: password, attributes: attributes, userMetadata: metadata
        )
    }

    /// Stores `new` as a user, or answers `409 user_exists` when the email or username is taken
    /// in the connection.
    func store(_ new: NewUser, emailVerified: Bool, mfaRequired: Bool = false, totpSecret: [UInt8]? = nil) async throws -> Auth0User {
        let hash = try new.password.map { try EmulatorPasswordHash(password: $0, random: environment.random) }
        let userId = "auth0|" + environment.random.bytes(12).map { String(format: "%02x", $0) }.joined()
        let created = now
        var user = Auth0User(
            userId: userId, connection: new.connection, email: new.email, username: new.username, passwordHash: hash,
            emailVerified: emailVerified, attributes: new.attributes, userMetadata: new.userMetadata,
            mfaRequired: mfaRequired || totpSecret != nil, totp: nil, recovery: nil, createdAt: created, updatedAt: created
        )
        if let totpSecret {
            let totp = try TOTP(secret: Secret(totpSecret))
            user.totp = Auth0TOTPAuthenticator(id: "totp|dev_" + randomToken(bytes: 12), totp: totp, confirmed: true, lastStep: nil)
        }
        let stored = user
        let inserted = await state.update(Auth0Tenant.key) { tenant -> Bool in
            if tenant.user(email: stored.email, connection: stored.connection) != nil { return false }
            if let name = stored.username,
               tenant.users.values.contains(where: { $0.username == name && $0.connection == stored.connection }) {
                return false
            }
            tenant.users[stored.userId] = stored
            return true
        }
        guard inserted else {
            throw Auth0Failure.database(code: "user_exists", description: "The user already exists.", status: .conflict)
        }
        return user
    }

    /// `POST /dbconnections/signup` (AuthHubAuth0 docs, Auth0Endpoints: “Sign-up”) → `{_id, email, email_verified, username?, …}`.
    func signup(_ request: Request) async throws -> Response {
        let parameters = try await Auth0Parameters.body(of: request)
        guard parameters.string("client_id") != nil else {
            throw Auth0Failure.database(code: "invalid_parameter", description: "Missing required parameter: client_id")
        }
        let user = try await store(try newUser(from: parameters, passwordRequired: true), emailVerified: false)
        var body: [String: JSONValue] = [
            "_id": .string(user.shortId), "email": .string(user.email), "email_verified": .bool(user.emailVerified),
        ]
        if let username = user.username { body["username"] = .string(username) }
        for (key, value) in user.attributes { body[key] = value }
        if !user.userMetadata.isEmpty { body["user_metadata"] = .object(user.userMetadata) }
        return EmulatorResponse.json(.object(body))
    }

    /// `POST /dbconnections/change_password` `{client_id, email, connection}`: Auth0 answers the
    /// same text whether or not the user exists, and the emulator sends no email.
    func changePassword(_ request: Request) async throws -> Response {
        let parameters = try await Auth0Parameters.body(of: request)
        guard parameters.string("client_id") != nil else {
            throw Auth0Failure.database(code: "invalid_parameter", description: "Missing required parameter: client_id")
        }
        guard parameters.string("email") != nil else {
            throw Auth0Failure.database(code: "invalid_parameter", description: "Missing required parameter: email")
        }
        return Response(
            status: .ok,
            headers: [.contentType: "text/plain; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: "We've just sent you an email to reset your password."))
        )
    }

    // MARK: - Emulator-only hooks

    /// `POST /auth0/__emulator/users` (emulator only): seeds a user without the signup rules on
    /// `email_verified`. Body: the signup fields (`email`, `password?`, `connection?`, `username?`,
    /// `user_metadata?`, root attributes) plus `email_verified` (default true), `mfa_required`
    /// (default false: password logins then answer `mfa_required` and the user enrolls with
    /// `/mfa/associate`) and `totp_secret` (base32; enrolls a confirmed TOTP authenticator and
    /// implies `mfa_required`). → 201 with the user (``userJSON(_:)``).
    func seedUser(_ request: Request) async throws -> Response {
        let parameters = try await Auth0Parameters.body(of: request)
        let new = try newUser(from: parameters, passwordRequired: false)
        var secret: [UInt8]?
        if let text = parameters.string("totp_secret") {
            guard let bytes = try? Base32.decode(text), !bytes.isEmpty else {
                throw Auth0Failure.invalidRequest("totp_secret must be base32 text.")
            }
            secret = bytes
        }
        let user = try await store(
            new, emailVerified: parameters["email_verified"]?.boolValue ?? true,
            mfaRequired: parameters["mfa_required"]?.boolValue ?? false, totpSecret: secret
        )
        return EmulatorResponse.json(userJSON(user), status: .created)
    }

    /// `GET /auth0/__emulator/users` (emulator only): every user, without password hashes or
    /// secrets.
    func listUsers() async -> Response {
        let users = await state.get(Auth0Tenant.key).users.values.sorted { $0.createdAt < $1.createdAt || ($0.createdAt == $1.createdAt && $0.userId < $1.userId) }
        return EmulatorResponse.json(["users": .array(users.map(userJSON))])
    }

    /// A user as the emulator hooks show it.
    func userJSON(_ user: Auth0User) -> JSONValue {
        var body: [String: JSONValue] = [
            "user_id": .string(user.userId), "email": .string(user.email), "email_verified": .bool(user.emailVerified),
            "connection": .string(user.connection), "mfa_required": .bool(user.mfaRequired),
            "mfa_enrolled": .bool(user.totp?.confirmed == true),
            "created_at": .string(Auth0Tenant.timestamp(user.createdAt)),
        ]
        if let username = user.username { body["username"] = .string(username) }
        for (key, value) in user.attributes { body[key] = value }
        if !user.userMetadata.isEmpty { body["user_metadata"] = .object(user.userMetadata) }
        return .object(body)
    }

    /// `POST /auth0/__emulator/clients` (emulator only): registers a client with its allowed
    /// callback URLs. Body `{client_id, callbacks:[url], refresh_token_rotation?: Bool,
    /// refresh_token_leeway?: Int, api_scopes?: [String], grant_types?: [String]}` (rotation defaults to true; the leeway is
    /// Auth0's reuse interval in whole seconds, 0…86400, default 0). Unregistered clients accept any
    /// absolute redirect URI without a fragment. `api_scopes`, when present, lists the only API
    /// scopes (``Auth0API``: the five My Account and three Management scopes) the client's
    /// tokens may be granted; another value there is `400 invalid_request`. `grant_types`, when
    /// present, lists the grants the application has enabled, as in Auth0's application settings:
    /// any other `grant_type` at `/oauth/token`, and `/oauth/device/code` without the device code
    /// grant, answer `403 unauthorized_client` ("Grant type '…' not allowed for the client.").
    /// `oidc_logout: {backchannel_logout_urls: [url]}` (Auth0's application setting) registers the
    /// client's OpenID Connect back-channel logout URLs (see the DocC article “Auth0 back-channel
    /// logout”): at most ``Auth0BackchannelLogoutDelivery/maximumURLs``, each an absolute `http` or
    /// `https` URL on a loopback host (`127.0.0.0/8`, `[::1]`, `localhost`) without a fragment;
    /// anything else is `400 invalid_request` naming the URL. The reply echoes them.
    ///
    /// Confidential clients (``confidentialSettings(_:into:)``): `token_endpoint_auth_method`
    /// (`none` default, `client_secret_post`, `client_secret_basic`, `private_key_jwt`),
    /// `client_secret` (32+ characters, for the secret methods), `client_authentication_methods:
    /// {private_key_jwt: {credentials: [{credential_type: "public_key", pem, alg, kid?}]}}` and
    /// `require_pushed_authorization_requests`. The reply names the method, the PAR requirement
    /// and the credentials' `credential_type`, `alg` and `kid` — never the secret or the PEM.
    func registerClient(_ request: Request) async throws -> Response {
        let parameters = try await Auth0Parameters.body(of: request)
        let clientId = try parameters.required("client_id")
        let callbacks = parameters["callbacks"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let rotation = parameters["refresh_token_rotation"]?.boolValue ?? true
        var leeway = 0
        if let value = parameters["refresh_token_leeway"], value != .null {
            guard let seconds = value.doubleValue, seconds.rounded() == seconds, seconds >= 0, seconds <= 86_400 else {
                throw Auth0Failure.invalidRequest("refresh_token_leeway must be a whole number of seconds from 0 to 86400.")
            }
            leeway = Int(seconds)
        }
        var apiScopes: [String]?
        if let value = parameters["api_scopes"], value != .null {
            guard let list = value.arrayValue?.compactMap(\.stringValue), list.count == value.arrayValue?.count else {
                throw Auth0Failure.invalidRequest("api_scopes must be an array of strings.")
            }
            if let unknown = list.first(where: { !Auth0API.allScopes.contains($0) }) {
                throw Auth0Failure.invalidRequest("api_scopes: unknown API scope \(unknown).")
            }
            apiScopes = list
        }
        var grantTypes: [String]?
        if let value = parameters["grant_types"], value != .null {
            guard let list = value.arrayValue?.compactMap(\.stringValue), list.count == value.arrayValue?.count, list.count <= 32,
                  list.allSatisfy({ !$0.isEmpty && $0.utf8.count <= 256 }) else {
                throw Auth0Failure.invalidRequest("grant_types must be an array of at most 32 non-empty strings.")
            }
            grantTypes = list
        }
        let backchannelURLs = try Self.backchannelLogoutURLs(in: parameters["oidc_logout"])
        var settings = Auth0ClientSettings(clientId: clientId, callbacks: callbacks, rotateRefreshTokens: rotation,
                                           refreshTokenLeeway: TimeInterval(leeway), apiScopes: apiScopes, grantTypes: grantTypes,
                                           backchannelLogoutURLs: backchannelURLs)
        try Self.confidentialSettings(parameters, into: &settings)
        let registered = settings
        await state.update(Auth0Tenant.key) { tenant in tenant.clients[clientId] = registered }
        var body: [String: JSONValue] = [
            "client_id": .string(clientId), "callbacks": .array(callbacks.map(JSONValue.string)),
            "refresh_token_rotation": .bool(rotation), "refresh_token_leeway": .number(Double(leeway)),
        ]
        body.merge(Self.confidentialJSON(settings)) { _, new in new }
        if let apiScopes { body["api_scopes"] = .array(apiScopes.map(JSONValue.string)) }
        if let grantTypes { body["grant_types"] = .array(grantTypes.map(JSONValue.string)) }
        if !backchannelURLs.isEmpty {
            body["oidc_logout"] = ["backchannel_logout_urls": .array(backchannelURLs.map(JSONValue.string))]
        }
        return EmulatorResponse.json(.object(body), status: .created)
    }
}
