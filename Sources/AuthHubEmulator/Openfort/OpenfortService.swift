import enum AuthHub.JSONValue
import Foundation
import HTTPTypes
import Hummingbird

/// The Openfort v2 (better-auth) API of the emulator: the handlers behind
/// ``OpenfortEmulatorModule``'s routes, written from AuthHubOpenfort docs, OpenfortEndpoints: “Object shapes”, “Endpoints”, “OAuth redirect”, “Sessions”, “Examples”; AuthHubOpenfort docs, OpenfortErrors (conventions are
/// listed on the module).
struct OpenfortService: Sendable {
    /// Session lifetime: 7 days (better-auth default, AuthHubOpenfort docs, OpenfortEndpoints: “Sessions”).
    static let sessionLifetime: TimeInterval = 7 * 86_400
    /// A session is extended on get-session once it is older than this (1 day, AuthHubOpenfort docs, OpenfortEndpoints: “Sessions”).
    static let sessionUpdateAge: TimeInterval = 86_400
    /// OTP lifetime: 5 minutes (better-auth email-otp default).
    static let otpLifetime: TimeInterval = 300
    /// Wrong OTPs allowed before `TOO_MANY_ATTEMPTS`.
    static let otpAttempts = 3
    /// Verification and reset token lifetime: 1 hour (better-auth defaults).
    static let linkTokenLifetime: TimeInterval = 3_600
    /// OAuth state lifetime: 10 minutes.
    static let oauthStateLifetime: TimeInterval = 600
    static let minimumPasswordLength = 8
    static let maximumPasswordLength = 128
    /// Social providers of the SDK enum (AuthHubOpenfort docs, OpenfortEndpoints: “OAuth redirect”).
    static let socialProviders: Set<String> = ["google", "twitter", "apple", "facebook", "discord", "epic_games", "line"]
    /// Providers whose ID tokens `/sign-in/social` and `/link-social` accept.
    static let idTokenProviders: Set<String> = ["apple", "google"]
    static let maximumBodySize = 1 << 20

    let environment: EmulatorEnvironment

    var state: EmulatorState { environment.state }
    var now: Date { environment.clock.now }

    // MARK: - Request plumbing

    /// A v2 route: checks `x-project-key`, then runs `handler` and replies with its JSON (200).
    func api(_ request: Request, _ handler: () async throws -> JSONValue) async throws -> Response {
        try Self.checkProjectKey(request)
        return EmulatorResponse.json(try await handler())
    }

    /// Accepts `x-project-key: pk_test_<uuid>` or `pk_live_<uuid>` (AuthHubOpenfort docs, OpenfortEndpoints: “Base URL and headers”).
    static func checkProjectKey(_ request: Request) throws {
        guard let name = HTTPField.Name("x-project-key"), let key = request.headers[name], isPublishableKey(key) else {
            throw OpenfortFailure.invalidProjectKey
        }
    }

    /// Whether `key` is shaped like a publishable key: `pk_test_` or `pk_live_` and a UUID.
    static func isPublishableKey(_ key: String) -> Bool {
        for prefix in ["pk_test_", "pk_live_"] where key.hasPrefix(prefix) {
            return UUID(uuidString: String(key.dropFirst(prefix.count))) != nil
        }
        return false
    }

    /// The JSON object body of `request`; an empty body is an empty object.
    static func body(_ request: Request) async throws -> [String: JSONValue] {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: maximumBodySize)
        } catch {
            throw OpenfortFailure.bodyMustBeAnObject
        }
        let data = Data(buffer.readableBytesView)
        if data.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return [:] }
        guard let value = try? JSONValue.parse(data), let object = value.objectValue else {
            throw OpenfortFailure.bodyMustBeAnObject
        }
        return object
    }

    /// A required non-empty string field (else `400 VALIDATION_ERROR`).
    static func string(_ body: [String: JSONValue], _ name: String) throws -> String {
        guard let value = body[name]?.stringValue, !value.isEmpty else { throw OpenfortFailure.validation(name) }
        return value
    }

    /// An optional string field (wrong type → `400 VALIDATION_ERROR`).
    static func optionalString(_ body: [String: JSONValue], _ name: String) throws -> String? {
        guard let value = body[name], value != .null else { return nil }
        guard let string = value.stringValue else { throw OpenfortFailure.validation(name) }
        return string
    }


    /// The bearer token of `Authorization`, percent-decoded (AuthHubOpenfort docs, OpenfortEndpoints: “Object shapes”: the SDK may store it
    /// URL-encoded), with a `.<signature>` suffix accepted and dropped.
    static func bearer(_ request: Request) -> String? {
        guard let header = request.headers[.authorization] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        var token = parts[1].trimmingCharacters(in: .whitespaces)
        token = token.removingPercentEncoding ?? token
        if let dot = token.firstIndex(of: ".") { token = String(token[..<dot]) }
        return token.isEmpty ? nil : token
    }

    // MARK: - Shared checks

    /// One `@` with text on both sides and a dot in the domain.
    static func isValidEmail(_ email: String) -> Bool {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && parts[1].contains(".") && !parts[1].hasPrefix(".")
            && !parts[1].hasSuffix(".") && !email.contains(" ")
    }

    /// A lower-cased valid email from `body[name]` (else `VALIDATION_ERROR` / `INVALID_EMAIL`).
    static func email(_ body: [String: JSONValue], _ name: String = "email") throws -> String {
        let email = try string(body, name).lowercased()
        guard isValidEmail(email) else { throw OpenfortFailure.invalidEmail }
        return email
    }

    /// `PASSWORD_TOO_SHORT` / `PASSWORD_TOO_LONG` (8…128 characters).
    static func checkPassword(_ password: String) throws {
        if password.count < minimumPasswordLength { throw OpenfortFailure.passwordTooShort }
        if password.count > maximumPasswordLength { throw OpenfortFailure.passwordTooLong }
    }

    // MARK: - Ids and tokens

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

    /// 32 random letters and digits (better-auth's id and token form).
    func newId(_ length: Int = 32) -> String {
        String(environment.random.bytes(length).map { Self.alphabet[Int($0) % Self.alphabet.count] })
    }

    /// Six random digits.
    func newOTP() -> String {
        String(environment.random.bytes(6).map { Character(String(Int($0) % 10)) })
    }

    /// A new session for `userId`, stored in `project`.
    func startSession(for userId: String, in project: inout OpenfortProject) -> OpenfortSession {
        let session = OpenfortSession(
            id: newId(), token: newId(), userId: userId, expiresAt: now.addingTimeInterval(Self.sessionLifetime),
            createdAt: now, updatedAt: now
        )
        project.sessions[session.token] = session
        return session
    }

    /// The user of the request's bearer session, or nil.
    func currentUser(_ request: Request, in project: OpenfortProject) -> OpenfortUser? {
        guard let token = Self.bearer(request), let session = project.session(token: token, now: now) else { return nil }
        return project.users[session.userId]
    }

    /// A new link token for `user`, stored in `project`.
    func issueLinkToken(_ kind: OpenfortLinkToken.Kind, for user: OpenfortUser, email: String? = nil, in project: inout OpenfortProject) {
        project.linkTokens.append(
            OpenfortLinkToken(
                token: newId(), kind: kind, userId: user.id, email: email ?? user.email,
                expiresAt: now.addingTimeInterval(Self.linkTokenLifetime)
            )
        )
    }

    /// Uses the pending OTP of `email` and `type` (removed unless `keep`): `INVALID_OTP` when none
    /// is pending or the code is wrong (a wrong code counts as an attempt), `OTP_EXPIRED` when it
    /// expired, `TOO_MANY_ATTEMPTS` once three wrong codes were tried (the OTP is then dropped).
    func useOTP(email: String, type: String, otp: String, keep: Bool = false) async throws {
        let now = self.now
        let failure: OpenfortFailure? = await state.update(OpenfortProject.key) { project in
            guard let index = project.otps.lastIndex(where: { $0.email == email && $0.type == type }) else {
                return .invalidOTP
            }
            let pending = project.otps[index]
            if pending.expiresAt <= now {
                project.otps.remove(at: index)
                return .otpExpired
            }
            if pending.attempts >= Self.otpAttempts {
                project.otps.remove(at: index)
                return .tooManyAttempts
            }
            guard pending.otp == otp else {
                project.otps[index].attempts += 1
                return .invalidOTP
            }
            if !keep { project.otps.removeAll { $0.email == email && $0.type == type } }
            return nil
        }
        if let failure { throw failure }
    }

    /// The emulator's base URL (`http://HOST:PORT`).
    func baseURL(for request: Request) async -> String {
        if let base = await state.baseURL { return base.absoluteString }
        return "http://\(request.head.authority ?? "127.0.0.1")"
    }

    /// `url` with `items` appended to its query.
    static func appending(_ items: [(String, String)], to url: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let query = items.map { "\($0)=\($1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&")
        let separator = url.contains("?") ? "&" : "?"
        return url + separator + query
    }

    /// A `302` to `location`.
    static func redirect(_ location: String) -> Response {
        Response(status: .found, headers: [.location: location, .cacheControl: "no-store"])
    }
}
