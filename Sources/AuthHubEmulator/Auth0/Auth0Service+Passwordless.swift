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

    /// `POST /passwordless/start` (spec §3.2) with `send: "code"`: makes a 6-digit code for the
    /// email or phone number. Nothing is sent anywhere; read the code with
    /// `GET /auth0/__emulator/passwordless` (emulator only). Links (`send: "link"…`) are refused.
    func passwordlessStart(_ request: Request) async -> Response {
        await Self.guarded {
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
            let digits = environment.random.bytes(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) } % 1_000_000
            let code = String(format: "%06u", digits)
            let entry = Auth0PasswordlessCode(code: code, connection: connection, expiresAt: now.addingTimeInterval(Self.passwordlessLifetime))
            let key = Self.passwordlessKey(connection: connection, identifier: identifier)
            await state.update(Auth0Tenant.key) { tenant in tenant.passwordlessCodes[key] = entry }
            let verifiedKey = field == "email" ? "email_verified" : "phone_verified"
            return EmulatorResponse.json(.object([field: .string(identifier), verifiedKey: .bool(false)]))
        }
    }

    /// The `passwordless/otp` grant with `{username, otp, realm}`: spends the code and signs the
    /// user in, creating them in the `email`/`sms` connection on first use.
    func passwordlessGrant(_ parameters: Auth0Parameters, clientId: String, request: Request) async throws -> Response {
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
        return try await issue(grant, request: request)
    }

    /// `GET /auth0/__emulator/passwordless?email=…` or `?phone_number=…` (optionally
    /// `&connection=…`), emulator only: the pending code, `{"code":"123456"}`, or 404.
    func passwordlessCode(_ request: Request) async -> Response {
        await Self.guarded {
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
}
