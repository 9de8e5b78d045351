import enum AuthHub.JSONValue
import func AuthHub.constantTimeEquals
import Foundation
import HTTPTypes
import Hummingbird

extension Auth0Service {
    /// How long a passwordless code stays valid (Auth0's default: 3 minutes).
    static let passwordlessLifetime: TimeInterval = 180

    /// The key a passwordless code is kept under: connection and lower-cased identifier.
    static func passwordlessKey(connection: String, identifier: String) -> String {
        connection + "\u{0}" + identifier.lowercased()
    }

    /// `POST /passwordless/start` (AuthHubAuth0 docs, Auth0Endpoints: “Passwordless”) with `send: "code"`: makes a 6-digit code for the
    /// email or phone number. Nothing is sent anywhere; read the code with
    /// `GET /auth0/__emulator/passwordless` (emulator only). Links (`send: "link"…`) are refused.
    func passwordlessStart(_ request: Request) async throws -> Response {
        let parameters = try await Auth0Parameters.body(of: request)
        _ = try parameters.required("client_id")
        let send = parameters.string("send") ?? "code"
        guard send == "code" else {
            throw Auth0Failure.oauth("bad.send", "The emulator sends only codes, not links.", status: .badRequest)
        }
        let identifier: String
        let field: String
        if let email = parameters.string("email") {
            identifier = email.lowercased()
            field = "email"
        } else if let phone = parameters.string("phone_number") {
            identifier = phone
            field = "phone_number"
        } else {
            throw Auth0Failure.missing("email")
        }
        let connection = parameters.string("connection") ?? (field == "email" ? "email" : "sms")
        let code = sixDigitCode()
        let entry = Auth0PasswordlessCode(code: code, connection: connection, expiresAt: now.addingTimeInterval(Self.passwordlessLifetime))
        let key = Self.passwordlessKey(connection: connection, identifier: identifier)
        await state.update(Auth0Tenant.key) { tenant in tenant.passwordlessCodes[key] = entry }
        let verifiedKey = field == "email" ? "email_verified" : "phone_verified"
        return EmulatorResponse.json(.object([field: .string(identifier), verifiedKey: .bool(false)]))
    }

    /// `POST /otp/challenge` (DB-connection OTP, AuthHubAuth0 docs, Auth0Endpoints: “Passwordless”) `{client_id, connection?, allow_signup?,
    /// email | phone_number + delivery_method}` → `{auth_session}`. The code is kept like a
    /// passwordless code under the database connection (read it with
    /// `GET /auth0/__emulator/passwordless?email=…&connection=Username-Password-Authentication`).
    /// It answers the same whether or not the user exists.
    func otpChallenge(_ request: Request) async throws -> Response {
        let parameters = try await Auth0Parameters.body(of: request)
        let clientId = try parameters.required("client_id")
        let connection = parameters.string("connection") ?? Auth0Tenant.defaultConnection
        let identifier: String
        let isEmail: Bool
        if let email = parameters.string("email") {
            identifier = email.lowercased()
            isEmail = true
        } else if let phone = parameters.string("phone_number") {
            identifier = phone
            isEmail = false
        } else {
            throw Auth0Failure.missing("email")
        }
        let session = randomToken()
        let code = sixDigitCode()
        let expiresAt = now.addingTimeInterval(Self.passwordlessLifetime)
        let entry = Auth0OTPSession(
            clientId: clientId, connection: connection, identifier: identifier, isEmail: isEmail,
            allowSignup: parameters["allow_signup"]?.boolValue ?? false, expiresAt: expiresAt
        )
        let key = Self.passwordlessKey(connection: connection, identifier: identifier)
        await state.update(Auth0Tenant.key) { tenant in
            tenant.otpSessions[Auth0Tenant.digest(session)] = entry
            tenant.passwordlessCodes[key] = Auth0PasswordlessCode(code: code, connection: connection, expiresAt: expiresAt)
        }
        return EmulatorResponse.json(["auth_session": .string(session)], headers: [.cacheControl: "no-store"])
    }

    /// A random 6-digit code.
    func sixDigitCode() -> String {
        let digits = environment.random.bytes(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) } % 1_000_000
        return String(format: "%06u", digits)
    }

    /// The `passwordless/otp` grant with `{auth_session, otp}` after `/otp/challenge`: spends the
    /// session and the code; signs in an existing database user, or creates one when the
    /// challenge allowed signup.
    func otpSessionGrant(_ session: String, parameters: Auth0Parameters, clientId: String, request: Request, dpop: Auth0DPoPProof?) async throws -> Response {
        let otp = try parameters.required("otp")
        let at = now
        let newUserId = "auth0|" + environment.random.bytes(12).map { String(format: "%02x", $0) }.joined()
        let digest = Auth0Tenant.digest(session)
        let result: (userId: String?, isEmail: Bool) = await state.update(Auth0Tenant.key) { tenant in
            guard let entry = tenant.otpSessions[digest], entry.expiresAt > at, entry.clientId == clientId else { return (nil, true) }
            let key = Self.passwordlessKey(connection: entry.connection, identifier: entry.identifier)
            guard let code = tenant.passwordlessCodes[key], code.expiresAt > at,
                  constantTimeEquals(Array(code.code.utf8), Array(otp.utf8))
            else { return (nil, entry.isEmail) }
            tenant.otpSessions[digest] = nil
            tenant.passwordlessCodes[key] = nil
            let existing = tenant.users.values.first { user in
                user.connection == entry.connection
                    && (entry.isEmail ? user.email == entry.identifier : user.attributes["phone_number"]?.stringValue == entry.identifier)
            }
            if let existing { return (existing.userId, entry.isEmail) }
            guard entry.allowSignup else { return (nil, entry.isEmail) }
            tenant.users[newUserId] = Auth0User(
                userId: newUserId, connection: entry.connection, email: entry.isEmail ? entry.identifier : "", username: nil,
                passwordHash: nil, emailVerified: entry.isEmail,
                attributes: entry.isEmail ? [:] : ["phone_number": .string(entry.identifier)], userMetadata: [:],
                mfaRequired: false, totp: nil, recovery: nil, createdAt: at, updatedAt: at
            )
            return (newUserId, entry.isEmail)
        }
        guard let userId = result.userId else {
            throw Auth0Failure.invalidGrant(result.isEmail ? "Wrong email or verification code." : "Wrong phone number or verification code.")
        }
        let grant = Auth0Grant(
            userId: userId, clientId: clientId, scopes: Auth0Grant.scopes(parameters.string("scope") ?? Self.defaultScope),
            audience: parameters.string("audience"), nonce: nil, authTime: at
        )
        return try await issue(grant, request: request, dpop: dpop)
    }

    /// The `passwordless/otp` grant with `{username, otp, realm}`: spends the code and signs the
    /// user in, creating them in the `email`/`sms` connection on first use. With `auth_session`
    /// instead, it completes a DB-connection OTP login (``otpSessionGrant(_:parameters:clientId:request:dpop:)``).
    func passwordlessGrant(_ parameters: Auth0Parameters, clientId: String, request: Request, dpop: Auth0DPoPProof?) async throws -> Response {
        if let session = parameters.string("auth_session") {
            return try await otpSessionGrant(session, parameters: parameters, clientId: clientId, request: request, dpop: dpop)
        }
        let username = try parameters.required("username")
        let otp = try parameters.required("otp")
        let realm = try parameters.required("realm")
        let isEmail = username.contains("@")
        let wrong = Auth0Failure.invalidGrant(isEmail ? "Wrong email or verification code." : "Wrong phone number or verification code.")
        let key = Self.passwordlessKey(connection: realm, identifier: username)
        let at = now
        let newUserId = "auth0|" + environment.random.bytes(12).map { String(format: "%02x", $0) }.joined()
        let userId: String? = await state.update(Auth0Tenant.key) { tenant in
            guard let entry = tenant.passwordlessCodes[key], entry.expiresAt > at,
                  constantTimeEquals(Array(entry.code.utf8), Array(otp.utf8))
            else { return nil }
            tenant.passwordlessCodes[key] = nil
            let identifier = username.lowercased()
            if let existing = tenant.users.values.first(where: { user in
                user.connection == realm && (isEmail ? user.email == identifier : user.attributes["phone_number"]?.stringValue == username)
            }) {
                if isEmail { tenant.users[existing.userId]?.emailVerified = true }
                return existing.userId
            }
            tenant.users[newUserId] = Auth0User(
                userId: newUserId, connection: realm, email: isEmail ? identifier : "", username: nil, passwordHash: nil,
                emailVerified: isEmail, attributes: isEmail ? [:] : ["phone_number": .string(username)], userMetadata: [:],
                mfaRequired: false, totp: nil, recovery: nil, createdAt: at, updatedAt: at
            )
            return newUserId
        }
        guard let userId else { throw wrong }
        let grant = Auth0Grant(
            userId: userId, clientId: clientId, scopes: Auth0Grant.scopes(parameters.string("scope") ?? Self.defaultScope),
            audience: parameters.string("audience"), nonce: nil, authTime: at
        )
        return try await issue(grant, request: request, dpop: dpop)
    }

    /// `GET /auth0/__emulator/passwordless?email=…` or `?phone_number=…` (optionally
    /// `&connection=…`), emulator only: the pending code, `{"code":"123456"}`, or 404.
    func passwordlessCode(_ request: Request) async throws -> Response {
        let parameters = Auth0Parameters.query(of: request)
        let identifier: String
        let defaultConnection: String
        if let email = parameters.string("email") {
            identifier = email
            defaultConnection = "email"
        } else {
            identifier = try parameters.required("phone_number")
            defaultConnection = "sms"
        }
        let key = Self.passwordlessKey(connection: parameters.string("connection") ?? defaultConnection, identifier: identifier)
        guard let entry = await state.get(Auth0Tenant.key).passwordlessCodes[key], entry.expiresAt > now else {
            return EmulatorResponse.json(["statusCode": 404, "error": "Not Found", "message": "No pending code"], status: .notFound)
        }
        return EmulatorResponse.json(["code": .string(entry.code)])
    }
}
