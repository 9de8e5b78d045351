import enum AuthHub.Base64URL
import enum AuthHub.JSONValue
import struct AuthHub.AuthError
import struct AuthHub.COSEAlgorithm
import struct AuthHub.PasskeyRegistration
import struct AuthHub.Secret
import func AuthHub.constantTimeEquals
import AuthHubFactors
import Foundation
import HTTPTypes
import Hummingbird

/// The My Account API (AuthHubAuth0 docs, Auth0Endpoints: “My Account API”) under `/auth0/me/v1/`.
///
/// Authentication: `Authorization: Bearer <access token>` issued for the audience
/// `<issuer>me/` and not expired, else `401`; each endpoint needs the scope of AuthHubAuth0 docs, Auth0Endpoints: “Scopes”, else `403`
/// with the detail `Insufficient scope; expected <scope>.`. Every error is the RFC 7807 body of
/// AuthHubAuth0 docs, Auth0Errors: “My Account errors” (``Auth0Failure/problem(_:title:detail:validationErrors:)``).
///
/// The methods it enrolls are the same authenticators the Authentication API uses: TOTP is the
/// user's `mfa-otp` authenticator, email and phone are out-of-band authenticators (`mfa-oob`),
/// the recovery code is the `mfa-recovery-code` authenticator, a passkey signs in through the
/// webauthn grant, and a password is the password the ROPG grants check. Deleting a method removes
/// it from there as well. Only confirmed methods are listed; an enrollment lives for
/// ``enrollmentLifetime`` and is dropped after ``enrollmentMaximumFailures`` wrong codes.
///
/// Emulator conventions where Auth0 documents nothing: one TOTP and one recovery-code method per
/// user (another enrollment is `409 Conflict`); the password method's id is `password|<user id
/// without provider>`; a password enrollment for a user who has one changes it; any method may
/// be deleted, the last way to sign in included (the emulator does not protect users from
/// locking themselves out); verification answers `200` with the method.
extension Auth0Service {
    /// How long an enrollment (`auth_session`) stays open.
    static let enrollmentLifetime: TimeInterval = 300
    /// Wrong codes after which an enrollment is dropped.
    static let enrollmentMaximumFailures = 5
    /// The issuer shown in TOTP and push enrollment URIs.
    static let otpIssuer = "AuthHub Emulator"
    /// The method types of AuthHubAuth0 docs, Auth0Endpoints: “Endpoints”.
    static let myAccountTypes: Set<String> = [
        "password", "passkey", "webauthn-platform", "webauthn-roaming", "totp", "phone", "email", "push-notification",
        "recovery-code",
    ]
    /// The factor types this emulator can enroll, with their usage, for `GET /me/v1/factors`.
    static let myAccountFactors: [(type: String, usage: String)] = [
        ("password", "primary"), ("passkey", "primary"), ("totp", "secondary"), ("push-notification", "secondary"),
        ("email", "secondary"), ("phone", "secondary"), ("recovery-code", "secondary"),
    ]

    /// My Account scopes (AuthHubAuth0 docs, Auth0Endpoints: “Scopes”).
    enum MyAccountScope {
        static let create = "create:me:authentication_methods"
        static let read = "read:me:authentication_methods"
        static let update = "update:me:authentication_methods"
        static let delete = "delete:me:authentication_methods"
        static let factors = "read:me:factors"
    }

    /// One confirmed authentication method as the API shows it.
    struct MyAccountMethod: Sendable {
        var id: String
        var type: String
        var json: JSONValue
    }

    // MARK: - Authentication

    /// The user behind the request's bearer token, checked for the My Account audience and `scope`.
    /// A DPoP-bound token must come as `Authorization: DPoP` with a proof
    /// (``checkPresentation(_:of:request:)``); a DPoP refusal is a 401 problem whose
    /// `WWW-Authenticate` is the `DPoP` challenge.
    /// - Throws: ``Auth0Failure`` 401 (no, unknown or expired token, another audience, user gone,
    ///   a DPoP refusal) or 403 (scope missing).
    func myAccountUser(_ request: Request, scope: String) async throws -> Auth0User {
        guard let presented = request.presentedAccessToken else {
            throw Auth0Failure.problemUnauthorized("Missing or malformed Authorization header.")
        }
        let issuer = await issuer(for: request)
        let tenant = await state.get(Auth0Tenant.key)
        guard let access = tenant.accessTokens[Auth0Tenant.digest(presented.token)], access.expiresAt > now else {
            throw Auth0Failure.problemUnauthorized("The access token is invalid or has expired.")
        }
        do {
            try await checkPresentation(presented, of: access, request: request)
        } catch {
            throw error.resourceFailure { _, description in .problemUnauthorized(description) }
        }
        guard let audience = access.grant.audience, Auth0API.myAccount.matches(audience, issuer: issuer) else {
            throw Auth0Failure.problemUnauthorized("The access token was not issued for the My Account API.")
        }
        guard let user = tenant.users[access.grant.userId] else {
            throw Auth0Failure.problemUnauthorized("The user of the access token no longer exists.")
        }
        guard access.grant.scopeSet.contains(scope) else { throw Auth0Failure.insufficientScope(scope) }
        return user
    }

    /// The JSON object body of a My Account request (an empty body is an empty object).
    func myAccountBody(_ request: Request) async throws -> Auth0Parameters {
        do {
            return try await Auth0Parameters.body(of: request)
        } catch {
            throw Auth0Failure.badRequest("The request body must be a JSON object.")
        }
    }

    /// The method id of the `{id}` path component, percent-decoded (`totp%7Cdev_…` → `totp|dev_…`).
    static func methodId(_ context: EmulatorRequestContext) -> String {
        let raw = context.parameters.get("id") ?? ""
        return raw.removingPercentEncoding ?? raw
    }

    // MARK: - Listing

    /// The user's confirmed methods, in a stable order: password, passkeys, TOTP, push, email and
    /// phone, recovery code.
    func myAccountMethods(of user: Auth0User) -> [MyAccountMethod] {
        var methods: [MyAccountMethod] = []
        func add(_ id: String, _ type: String, usage: String, _ extra: [String: JSONValue] = [:]) {
            let details = user.methodDetails[id]
            var body: [String: JSONValue] = [
                "id": .string(id), "type": .string(type), "confirmed": true,
                "created_at": .string(Auth0Tenant.timestamp(details?.createdAt ?? user.createdAt)),
                "usage": [.string(usage)],
            ]
            if let name = details?.name { body["name"] = .string(name) }
            body.merge(extra) { _, new in new }
            methods.append(MyAccountMethod(id: id, type: type, json: .object(body)))
        }
        if user.passwordHash != nil {
            add(Self.passwordMethodId(user), "password", usage: "primary", ["identity_user_id": .string(user.shortId)])
        }
        for record in user.passkeys {
            let (id, details) = passkeyMethod(record, of: user)
            add(id, "passkey", usage: "primary", passkeyJSON(record, user: user, details: details))
        }
        if let totp = user.totp, totp.confirmed { add(totp.id, "totp", usage: "secondary") }
        for push in user.push { add(push.id, "push-notification", usage: "secondary") }
        for oob in user.oob where oob.confirmed {
            if oob.channel == "email" {
                add(oob.id, "email", usage: "secondary", ["email": .string(oob.target)])
            } else {
                add(oob.id, "phone", usage: "secondary", [
                    "phone_number": .string(oob.target),
                    "preferred_authentication_method": .string(oob.preferredMethod ?? "sms"),
                ])
            }
        }
        if let recovery = user.recovery { add(recovery.id, "recovery-code", usage: "secondary") }
        return methods
    }

    /// `password|<user id without provider>`.
    static func passwordMethodId(_ user: Auth0User) -> String { "password|" + user.shortId }

    /// The method id and details of a passkey: those recorded at My Account enrollment, or
    /// `passkey|<credential id, base64url>` for passkeys registered through passkey signup.
    func passkeyMethod(_ record: WebAuthnCredentialRecord, of user: Auth0User) -> (String, Auth0MethodDetails?) {
        if let entry = user.methodDetails.first(where: { $0.value.credentialID == record.id }) {
            return (entry.key, entry.value)
        }
        return ("passkey|" + Base64URL.encode(record.id), nil)
    }

    /// The passkey members of AuthHubAuth0 docs, Auth0Endpoints: “Response models”'s PasskeyAuthenticationMethod (without `id`, `type` and
    /// `created_at`).
    func passkeyJSON(_ record: WebAuthnCredentialRecord, user: Auth0User, details: Auth0MethodDetails?) -> [String: JSONValue] {
        var body: [String: JSONValue] = [
            "identity_user_id": .string(user.shortId),
            "key_id": .string(Base64URL.encode(record.id)),
            "public_key": .string(Data(record.publicKey).base64EncodedString()),
            "user_handle": .string(Base64URL.encode(user.userHandle ?? [])),
            "credential_device_type": .string(record.deviceType),
            "credential_backed_up": .bool(record.backedUp),
            "transports": .array(record.transports.map(JSONValue.string)),
            "aaguid": .string(Self.aaguidText(record.aaguid)),
            "relying_party_id": .string(Self.passkeyRelyingParty.id),
            "relying_party_identifier": .string(Self.passkeyRelyingParty.id),
        ]
        if let agent = details?.userAgent { body["user_agent"] = .string(agent) }
        return body
    }

    /// An AAGUID as a lower-case UUID string (16 bytes), else hex.
    static func aaguidText(_ bytes: [UInt8]) -> String {
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        guard bytes.count == 16 else { return hex }
        let characters = Array(hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }.joined(separator: "-")
    }

    /// `GET /me/v1/authentication-methods[?type=…]` → `{authentication_methods:[…]}`.
    func listMethods(_ request: Request) async throws -> Response {
        let user = try await myAccountUser(request, scope: MyAccountScope.read)
        let type = Auth0Parameters.query(of: request).string("type")
        if let type, !Self.myAccountTypes.contains(type) {
            throw Auth0Failure.badRequest(field: "type", "type must be one of \(Self.myAccountTypes.sorted().joined(separator: ", ")).")
        }
        let methods = myAccountMethods(of: user).filter { type == nil || $0.type == type }
        return EmulatorResponse.json(["authentication_methods": .array(methods.map(\.json))])
    }

    /// `GET /me/v1/authentication-methods/{id}` → the method, or `404`.
    func getMethod(_ request: Request, context: EmulatorRequestContext) async throws -> Response {
        let user = try await myAccountUser(request, scope: MyAccountScope.read)
        let id = Self.methodId(context)
        guard let method = myAccountMethods(of: user).first(where: { $0.id == id }) else { throw Auth0Failure.methodNotFound }
        return EmulatorResponse.json(method.json)
    }

    /// `GET /me/v1/factors` → `{factors:[{type, usage}]}` for the types the emulator enrolls.
    func listFactors(_ request: Request) async throws -> Response {
        _ = try await myAccountUser(request, scope: MyAccountScope.factors)
        let factors: [JSONValue] = Self.myAccountFactors.map { ["type": .string($0.type), "usage": [.string($0.usage)]] }
        return EmulatorResponse.json(["factors": .array(factors)])
    }

    // MARK: - PATCH and DELETE

    /// `PATCH /me/v1/authentication-methods/{id}` `{name?, preferred_authentication_method?}`:
    /// sets the name, and for a phone method the preferred channel (`sms` or `voice`).
    func updateMethod(_ request: Request, context: EmulatorRequestContext) async throws -> Response {
        let user = try await myAccountUser(request, scope: MyAccountScope.update)
        let body = try await myAccountBody(request)
        let id = Self.methodId(context)
        var name: String?
        if let value = body["name"], value != .null {
            guard let text = value.stringValue, (1...100).contains(text.count) else {
                throw Auth0Failure.badRequest(field: "name", "name must be a string of 1 to 100 characters.")
            }
            name = text
        }
        var preferred: String?
        if let value = body["preferred_authentication_method"], value != .null {
            guard let text = value.stringValue, ["sms", "voice"].contains(text) else {
                throw Auth0Failure.badRequest(field: "preferred_authentication_method",
                                              "preferred_authentication_method must be sms or voice.")
            }
            preferred = text
        }
        guard let method = myAccountMethods(of: user).first(where: { $0.id == id }) else { throw Auth0Failure.methodNotFound }
        if preferred != nil, method.type != "phone" {
            throw Auth0Failure.badRequest(field: "preferred_authentication_method",
                                          "preferred_authentication_method applies to phone methods only.")
        }
        let at = now
        let updated: Auth0User? = await state.update(Auth0Tenant.key) { [name, preferred] tenant in
            guard var stored = tenant.users[user.userId] else { return nil }
            if let name {
                var details = stored.methodDetails[id] ?? Auth0MethodDetails(name: nil, createdAt: stored.createdAt)
                if details.credentialID == nil, method.type == "passkey",
                   let record = stored.passkeys.first(where: { "passkey|" + Base64URL.encode($0.id) == id }) {
                    details.credentialID = record.id
                }
                details.name = name
                stored.methodDetails[id] = details
            }
            if let preferred, let index = stored.oob.firstIndex(where: { $0.id == id }) {
                stored.oob[index].preferredMethod = preferred
            }
            stored.updatedAt = at
            tenant.users[stored.userId] = stored
            return stored
        }
        guard let updated, let result = myAccountMethods(of: updated).first(where: { $0.id == id }) else {
            throw Auth0Failure.methodNotFound
        }
        return EmulatorResponse.json(result.json)
    }

    private enum DeleteOutcome: Sendable {
        case deleted
        case refused(Auth0Failure)
    }

    /// `DELETE /me/v1/authentication-methods/{id}` → `204`: removes the method from the user,
    /// and so from `/mfa/authenticators` and the logins it served.
    func deleteMethod(_ request: Request, context: EmulatorRequestContext) async throws -> Response {
        let user = try await myAccountUser(request, scope: MyAccountScope.delete)
        let id = Self.methodId(context)
        guard let method = myAccountMethods(of: user).first(where: { $0.id == id }) else { throw Auth0Failure.methodNotFound }
        let at = now
        let outcome: DeleteOutcome = await state.update(Auth0Tenant.key) { tenant in
            guard var stored = tenant.users[user.userId] else { return .refused(Auth0Failure.methodNotFound) }
            switch method.type {
            case "password":
                stored.passwordHash = nil
            case "passkey":
                let credentialID = stored.methodDetails[id]?.credentialID
                stored.passkeys.removeAll { record in
                    credentialID == record.id || "passkey|" + Base64URL.encode(record.id) == id
                }
            case "totp": stored.totp = nil
            case "push-notification": stored.push.removeAll { $0.id == id }
            case "email", "phone": stored.oob.removeAll { $0.id == id }
            case "recovery-code": stored.recovery = nil
            default: return .refused(Auth0Failure.methodNotFound)
            }
            stored.methodDetails[id] = nil
            stored.updatedAt = at
            tenant.users[stored.userId] = stored
            return .deleted
        }
        if case .refused(let failure) = outcome { throw failure }
        return Response(status: .noContent, headers: [.cacheControl: "no-store"])
    }

    // MARK: - Enrollment start

    /// `POST /me/v1/authentication-methods` (AuthHubAuth0 docs, Auth0Endpoints: “Starting an enrollment”) → `201` with the body of the method type
    /// and `Location: <issuer>me/v1/authentication-methods/<percent-encoded id>`.
    ///
    /// - `totp`, `push-notification`: `{id, auth_session, barcode_uri, manual_input_code}` with a
    ///   fresh base32 secret in an `otpauth://totp/AuthHub%20Emulator:<email>?…` URI.
    /// - `email` `{email}`, `phone` `{phone_number (E.164), preferred_authentication_method?}`:
    ///   `{id, auth_session}`; a 6-digit code goes to the outbox (`GET /auth0/__emulator/outbox`).
    /// - `recovery-code`: `{id, auth_session, recovery_code}` (24 characters, shown once).
    /// - `password` `{identity_user_id?, connection?}`: `{id, auth_session, policy}`.
    /// - `passkey` `{identity_user_id?, connection?}`: `{auth_session, authn_params_public_key}`
    ///   (no `id`: the id is only in `Location`).
    func startEnrollment(_ request: Request) async throws -> Response {
        let user = try await myAccountUser(request, scope: MyAccountScope.create)
        let body = try await myAccountBody(request)
        guard let type = body.string("type") else { throw Auth0Failure.badRequest(field: "type", "type is required.") }
        try Self.checkIdentity(body, user: user)
        let session = randomToken()
        let at = now
        let methodId: String
        let kind: Auth0Enrollment.Kind
        var reply: [String: JSONValue] = ["auth_session": .string(session)]
        var message: Auth0OutboxMessage?
        switch type {
        case "totp", "push-notification":
            if type == "totp", user.totp?.confirmed == true {
                throw Auth0Failure.problem(.conflict, title: "Conflict", detail: "The user already has a totp authentication method.")
            }
            let secret = environment.random.bytes(20)
            let totp = try TOTP(secret: Secret(secret))
            let uri = try OTPAuthURI(totp: totp, account: Self.accountLabel(user), issuer: Self.otpIssuer)
            methodId = (type == "totp" ? "totp|dev_" : "push|dev_") + randomToken(bytes: 12)
            kind = type == "totp" ? .totp(totp) : .push(accepted: false)
            reply["barcode_uri"] = .string(uri.string.revealed())
            reply["manual_input_code"] = .string(Base32.encode(secret))
        case "email":
            guard let text = body.string("email"), let email = Self.validEmail(text) else {
                throw Auth0Failure.badRequest(field: "email", "email must be a valid email address.")
            }
            let code = sixDigitCode()
            methodId = "email|dev_" + randomToken(bytes: 12)
            kind = .email(address: email, code: code)
            message = Auth0OutboxMessage(to: email, channel: "email", code: code, purpose: "enrollment", sentAt: at)
        case "phone":
            guard let number = body.string("phone_number"), Self.isE164(number) else {
                throw Auth0Failure.badRequest(field: "phone_number", "phone_number must be an E.164 phone number such as +14155550100.")
            }
            let channel = body.string("preferred_authentication_method") ?? "sms"
            guard ["sms", "voice"].contains(channel) else {
                throw Auth0Failure.badRequest(field: "preferred_authentication_method",
                                              "preferred_authentication_method must be sms or voice.")
            }
            let code = sixDigitCode()
            methodId = "phone|dev_" + randomToken(bytes: 12)
            kind = .phone(number: number, method: channel, code: code)
            message = Auth0OutboxMessage(to: number, channel: channel, code: code, purpose: "enrollment", sentAt: at)
        case "recovery-code":
            if user.recovery != nil {
                throw Auth0Failure.problem(.conflict, title: "Conflict",
                                           detail: "The user already has a recovery-code authentication method.")
            }
            // 15 random bytes are exactly 24 base32 symbols: Auth0's 24-character code.
            let code = Base32.encode(environment.random.bytes(15))
            methodId = "recovery-code|dev_" + randomToken(bytes: 12)
            kind = .recoveryCode(digest: Auth0Tenant.digest(Auth0RecoveryAuthenticator.normalized(code)))
            reply["recovery_code"] = .string(code)
        case "password":
            methodId = Self.passwordMethodId(user)
            kind = .password
            reply["policy"] = Self.passwordPolicy
        case "passkey":
            let handle = user.userHandle ?? environment.random.bytes(16)
            let challenge = environment.random.bytes(32)
            methodId = "passkey|dev_" + randomToken(bytes: 12)
            kind = .passkey(challenge: challenge, userHandle: handle)
            reply["authn_params_public_key"] = Self.passkeyCreationOptions(user: user, handle: handle, challenge: challenge)
        default:
            let supported = Self.myAccountFactors.map(\.type).joined(separator: ", ")
            throw Auth0Failure.badRequest(field: "type", "type must be one of \(supported).")
        }
        if type != "passkey" { reply["id"] = .string(methodId) }
        let enrollment = Auth0Enrollment(methodId: methodId, userId: user.userId, kind: kind,
                                         expiresAt: at.addingTimeInterval(Self.enrollmentLifetime))
        await state.update(Auth0Tenant.key) { [message] tenant in
            tenant.purge(now: at)
            tenant.enrollments[Auth0Tenant.digest(session)] = enrollment
            if let message { tenant.send(message) }
        }
        let location = await issuer(for: request) + "me/v1/authentication-methods/" + Self.percentEncoded(methodId)
        return EmulatorResponse.json(.object(reply), status: .created, headers: [.location: location, .cacheControl: "no-store"])
    }

    /// The name a TOTP URI shows for the user: the email, else the phone number, else the user id.
    static func accountLabel(_ user: Auth0User) -> String {
        if !user.email.isEmpty { return user.email }
        return user.attributes["phone_number"]?.stringValue ?? user.userId
    }

    /// Whether `number` is E.164: `+`, a non-zero digit, then 6 to 14 digits.
    static func isE164(_ number: String) -> Bool {
        let characters = Array(number)
        guard characters.count >= 8, characters.count <= 16, characters[0] == "+", let first = characters[1].wholeNumberValue, first > 0
        else { return false }
        return characters.dropFirst(2).allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// `identity_user_id` must name the user (with or without provider); `connection` must match
    /// `^[a-zA-Z0-9-]+$` and be 1–128 characters (AuthHubAuth0 docs, Auth0Endpoints: “Starting an enrollment”).
    static func checkIdentity(_ body: Auth0Parameters, user: Auth0User) throws {
        if let identity = body.string("identity_user_id") {
            let known = [user.userId, user.shortId] + user.linked.flatMap { [$0.userId, $0.shortId] }
            guard known.contains(identity) else {
                throw Auth0Failure.badRequest(field: "identity_user_id", "identity_user_id does not name an identity of the user.")
            }
        }
        if let value = body["connection"], value != .null {
            guard let connection = value.stringValue, (1...128).contains(connection.count),
                  connection.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") })
            else {
                throw Auth0Failure.badRequest(field: "connection", "connection must match ^[a-zA-Z0-9-]+$ and be 1 to 128 characters.")
            }
        }
    }

    /// `|` and every other reserved character percent-encoded, for the `Location` path component.
    static func percentEncoded(_ id: String) -> String {
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        allowed.insert(charactersIn: "-._~")
        return id.addingPercentEncoding(withAllowedCharacters: allowed) ?? id
    }

    /// The emulator's password policy (AuthHubAuth0 docs, Auth0Endpoints: “Response models”): at least ``minimumPasswordLength`` characters.
    static let passwordPolicy: JSONValue = [
        "complexity": [
            "min_length": .number(Double(minimumPasswordLength)), "character_types": [], "character_type_rule": "all",
            "identical_characters": "allow", "sequential_characters": "allow", "max_length_exceeded": "truncate",
        ],
        "profile_data": ["active": false, "blocked_fields": []],
        "history": ["active": false, "size": 0],
        "dictionary": ["active": false, "default": false],
    ]

    /// The WebAuthn creation options of a passkey enrollment (AuthHubAuth0 docs, Auth0Endpoints: “Starting an enrollment”).
    static func passkeyCreationOptions(user: Auth0User, handle: [UInt8], challenge: [UInt8]) -> JSONValue {
        let name = accountLabel(user)
        let algorithms: [COSEAlgorithm] = [.es256, .rs256, .edDSA].filter { passkeyRelyingParty.algorithms.contains($0) }
        return [
            "challenge": .string(Base64URL.encode(challenge)),
            "rp": ["id": .string(passkeyRelyingParty.id), "name": .string(otpIssuer)],
            "user": [
                "id": .string(Base64URL.encode(handle)), "name": .string(name),
                "displayName": .string(user.attributes["name"]?.stringValue ?? name),
            ],
            "pubKeyCredParams": .array(algorithms.map { ["type": "public-key", "alg": .number(Double($0.rawValue))] }),
            "authenticatorSelection": ["residentKey": "required", "userVerification": "preferred"],
            "timeout": .number(Double(passkeyTimeoutMilliseconds)),
        ]
    }

    // MARK: - Enrollment verification

    private enum VerifyOutcome: Sendable {
        case confirmed(Auth0User)
        case refused(Auth0Failure)
    }

    /// The refusal for an unknown, expired, spent or foreign `auth_session`.
    static let invalidAuthSession = Auth0Failure.badRequest("Invalid or expired auth_session.")
    /// The refusal for a wrong `otp_code`.
    static let invalidEnrollmentCode = Auth0Failure.badRequest("Invalid otp_code.")

    /// `POST /me/v1/authentication-methods/{id}/verify` (AuthHubAuth0 docs, Auth0Endpoints: “Confirming an enrollment”): checks the enrollment's
    /// proof (`otp_code`; push accepted on the device; `new_password`; the passkey attestation),
    /// adds the method to the user and answers `200` with it (the PasskeyAuthenticationMethod of
    /// AuthHubAuth0 docs, Auth0Endpoints: “Response models” for a passkey).
    func verifyEnrollment(_ request: Request, context: EmulatorRequestContext) async throws -> Response {
        let user = try await myAccountUser(request, scope: MyAccountScope.create)
        let body = try await myAccountBody(request)
        let id = Self.methodId(context)
        guard let session = body.string("auth_session") else {
            throw Auth0Failure.badRequest(field: "auth_session", "auth_session is required.")
        }
        let digest = Auth0Tenant.digest(session)
        let at = now
        guard let pending = await state.get(Auth0Tenant.key).enrollments[digest], pending.expiresAt > at,
              pending.userId == user.userId, pending.methodId == id
        else { throw Self.invalidAuthSession }
        // Inputs are read and checked before the state update; the update re-reads the enrollment.
        var otp: String?
        var passwordHash: EmulatorPasswordHash?
        var passkey: WebAuthnCredentialRecord?
        switch pending.kind {
        case .totp, .email, .phone:
            guard let code = body.string("otp_code") else {
                throw Auth0Failure.badRequest(field: "otp_code", "otp_code is required.")
            }
            otp = code
        case .password:
            guard let password = body.string("new_password") else {
                throw Auth0Failure.badRequest(field: "new_password", "new_password is required.")
            }
            guard password.count >= Self.minimumPasswordLength else {
                throw Auth0Failure.badRequest(field: "new_password",
                                              "Password is too weak: at least \(Self.minimumPasswordLength) characters are required.")
            }
            passwordHash = try EmulatorPasswordHash(password: password, random: environment.random)
        case .passkey(let challenge, _):
            guard let response = body["authn_response"], response.objectValue != nil else {
                throw Auth0Failure.badRequest(field: "authn_response", "authn_response is required.")
            }
            do {
                passkey = try Self.passkeyRelyingParty.verifyRegistration(try PasskeyRegistration(json: response), challenge: challenge)
            } catch let error as AuthError {
                throw Auth0Failure.badRequest("The passkey attestation could not be verified: \(error.message)")
            } catch {
                throw Auth0Failure.badRequest("The passkey attestation could not be verified.")
            }
        case .push, .recoveryCode:
            break
        }
        let userAgent = request.headers[.userAgent]
        let outcome: VerifyOutcome = await state.update(Auth0Tenant.key) { [otp, passwordHash, passkey] tenant in
            guard var entry = tenant.enrollments[digest], entry.expiresAt > at, entry.userId == user.userId, entry.methodId == id,
                  var stored = tenant.users[entry.userId]
            else { return .refused(Self.invalidAuthSession) }
            func wrongCode() -> VerifyOutcome {
                entry.failures += 1
                tenant.enrollments[digest] = entry.failures >= Self.enrollmentMaximumFailures ? nil : entry
                return .refused(Self.invalidEnrollmentCode)
            }
            var details = Auth0MethodDetails(name: nil, createdAt: at)
            switch entry.kind {
            case .totp(let totp):
                guard let step = try? totp.verify(Secret(otp ?? ""), at: at, after: nil) else { return wrongCode() }
                if stored.totp?.confirmed == true {
                    return .refused(.problem(.conflict, title: "Conflict", detail: "The user already has a totp authentication method."))
                }
                stored.totp = Auth0TOTPAuthenticator(id: id, totp: totp, confirmed: true, lastStep: step)
            case .email(let address, let code):
                guard constantTimeEquals(Array(code.utf8), Array((otp ?? "").utf8)) else { return wrongCode() }
                stored.oob.append(Auth0OOBAuthenticator(id: id, channel: "email", target: address, confirmed: true))
            case .phone(let number, let method, let code):
                guard constantTimeEquals(Array(code.utf8), Array((otp ?? "").utf8)) else { return wrongCode() }
                stored.oob.append(Auth0OOBAuthenticator(id: id, channel: "sms", target: number, confirmed: true, preferredMethod: method))
            case .push(let accepted):
                guard accepted else { return .refused(.badRequest("The enrollment has not been accepted on the device yet.")) }
                stored.push.append(Auth0PushAuthenticator(id: id))
            case .recoveryCode(let codeDigest):
                if stored.recovery != nil {
                    return .refused(.problem(.conflict, title: "Conflict",
                                             detail: "The user already has a recovery-code authentication method."))
                }
                stored.recovery = Auth0RecoveryAuthenticator(id: id, codes: RecoveryCodeSet(hashes: []), codeDigests: [codeDigest])
            case .password:
                guard let passwordHash else { return .refused(Self.invalidAuthSession) }
                stored.passwordHash = passwordHash
            case .passkey(_, let handle):
                guard let passkey else { return .refused(Self.invalidAuthSession) }
                if tenant.users.values.contains(where: { $0.passkeys.contains { $0.id == passkey.id } }) {
                    return .refused(.badRequest("The passkey is already registered."))
                }
                stored.passkeys.append(passkey)
                if stored.userHandle == nil { stored.userHandle = handle }
                details.credentialID = passkey.id
                details.userAgent = userAgent
            }
            tenant.enrollments[digest] = nil
            stored.methodDetails[id] = details
            stored.updatedAt = at
            tenant.users[stored.userId] = stored
            return .confirmed(stored)
        }
        switch outcome {
        case .refused(let failure):
            throw failure
        case .confirmed(let stored):
            guard let method = myAccountMethods(of: stored).first(where: { $0.id == id }) else { throw Auth0Failure.methodNotFound }
            return EmulatorResponse.json(method.json, headers: [.cacheControl: "no-store"])
        }
    }

    // MARK: - Emulator-only hooks

    /// `GET /auth0/__emulator/outbox?to=<email or phone number>` (emulator only): every code the
    /// My Account email and phone enrollments "sent" to that address, oldest first:
    /// `{messages:[{to, channel, code, purpose:"enrollment", sent_at}]}`. Emails compare
    /// case-insensitively, phone numbers by their digits (so a `+` sent unencoded still matches).
    /// A missing `to` is `400 invalid_request`.
    func outbox(_ request: Request) async throws -> Response {
        let to = try Auth0Parameters.query(of: request).required("to")
        let wanted = Self.outboxKey(to)
        let messages = await state.get(Auth0Tenant.key).outbox.filter { Self.outboxKey($0.to) == wanted }
        return EmulatorResponse.json(["messages": .array(messages.map { message in
            [
                "to": .string(message.to), "channel": .string(message.channel), "code": .string(message.code),
                "purpose": .string(message.purpose), "sent_at": .string(Auth0Tenant.timestamp(message.sentAt)),
            ]
        })], headers: [.cacheControl: "no-store"])
    }

    /// `GET /auth0/__emulator/stats` (emulator only): counters for tests and benchmarks —
    /// `{refresh_grants, refreshes_in_progress}`: refresh-token grants received since the start, and
    /// those being answered now.
    func stats() async -> Response {
        let tenant = await state.get(Auth0Tenant.key)
        return EmulatorResponse.json(["refresh_grants": .number(Double(tenant.refreshGrants)),
                                      "refreshes_in_progress": .number(Double(tenant.refreshesInProgress))],
                                     headers: [.cacheControl: "no-store"])
    }

    /// An email lower-cased, a phone number reduced to its digits.
    static func outboxKey(_ address: String) -> String {
        let trimmed = address.trimmingCharacters(in: .whitespaces)
        return trimmed.contains("@") ? trimmed.lowercased() : trimmed.filter { $0.isASCII && $0.isNumber }
    }

    /// `POST /auth0/__emulator/push/accept` `{id}` (emulator only): marks the pending
    /// push-notification enrollment with that method id as accepted on the device →
    /// `{id, accepted:true}`, or 404 when there is none.
    func acceptPush(_ request: Request) async throws -> Response {
        let id = try await Auth0Parameters.body(of: request).required("id")
        let at = now
        let found = await state.update(Auth0Tenant.key) { tenant -> Bool in
            guard let key = tenant.enrollments.first(where: { entry in
                guard entry.value.methodId == id, entry.value.expiresAt > at, case .push = entry.value.kind else { return false }
                return true
            })?.key else { return false }
            tenant.enrollments[key]?.kind = .push(accepted: true)
            return true
        }
        guard found else {
            return EmulatorResponse.json(
                ["statusCode": 404, "error": "Not Found", "message": "No pending push-notification enrollment with this id."],
                status: .notFound
            )
        }
        return EmulatorResponse.json(["id": .string(id), "accepted": true])
    }
}
