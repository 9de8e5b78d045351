import enum AuthHub.Base64URL
import enum AuthHub.JSONValue
import Foundation
import HTTPTypes
import Hummingbird

/// The Firebase Authentication API of the emulator: the handlers behind
/// ``FirebaseEmulatorModule``'s routes, written from AuthHubFirebase docs, FirebaseEndpoints: “Emulator”, “Endpoints”, “Emulator tokens”, “ID-token verification”; AuthHubFirebase docs, FirebaseErrors: “Envelope” (conventions
/// are listed on the module).
struct FirebaseService: Sendable {
    /// How long an oob code stays usable: 1 hour (emulator convention, production's lifetime for
    /// reset codes); a later use is `EXPIRED_OOB_CODE`.
    static let oobCodeLifetime: TimeInterval = 3_600
    /// The minimum password length (`WEAK_PASSWORD` below it).
    static let minimumPasswordLength = 6
    static let weakPasswordDetail = "Password should be at least 6 characters"

    let environment: EmulatorEnvironment
    /// The project every API key maps to.
    let projectId: String

    var state: EmulatorState { environment.state }
    var now: Date { environment.clock.now }
    var nowSeconds: Int { FirebaseUser.seconds(now) }

    /// One request as the handlers see it: its body fields and whether it is privileged.
    struct Call: Sendable {
        var body: FirebaseRequestBody
        /// `Authorization: Bearer owner` (AuthHubFirebase docs, FirebaseEndpoints: “Emulator”): admin lookups, deletes and updates by `localId`.
        var privileged: Bool
    }

    // MARK: - Request plumbing

    /// An API route: checks the API key (the `key` query parameter or the `x-goog-api-key`
    /// header; any non-empty key; not needed by privileged requests), reads the body and runs
    /// `handler`, replying with its JSON.
    func api(_ request: Request, _ handler: (Call) async throws -> JSONValue) async throws -> Response {
        let privileged = request.bearerToken == "owner"
        if !privileged && Self.apiKey(of: request) == nil { throw FirebaseFailure.missingAPIKey }
        let body = try await FirebaseRequestBody.read(request)
        return EmulatorResponse.json(try await handler(Call(body: body, privileged: privileged)))
    }

    /// The API key of `request`, when there is a non-empty one.
    static func apiKey(of request: Request) -> String? {
        if let key = FirebaseRequestBody.form(request.uri.query ?? "")["key"], !key.isEmpty { return key }
        if let name = HTTPField.Name("x-goog-api-key"), let key = request.headers[name], !key.isEmpty { return key }
        return nil
    }

    /// An answer for an operation Firebase has that this emulator does not serve.
    func notImplemented(_ request: Request, operation: String) async throws -> Response {
        try await api(request) { _ in throw FirebaseFailure.notImplemented(operation) }
    }

    // MARK: - Shared checks

    /// The emulator's email check (AuthHubFirebase docs, FirebaseEndpoints: “Emulator”): exactly one `@` with text on both sides.
    static func isValidEmail(_ email: String) -> Bool {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && !parts[1].isEmpty
    }

    /// Checks a received ID token as the Auth Emulator does (AuthHubFirebase docs, FirebaseEndpoints: “Emulator tokens”): decodable and for this
    /// project (else `INVALID_ID_TOKEN`), user exists (`USER_NOT_FOUND`), issued at or after the
    /// user's `validSince` (`TOKEN_EXPIRED`), user enabled (`USER_DISABLED`). `exp` is not checked.
    func verify(idToken: String, in project: FirebaseProject) throws -> (FirebaseUser, FirebaseTokens.IDTokenClaims) {
        guard let claims = FirebaseTokens.decodeIDToken(idToken), claims.audience == nil || claims.audience == projectId else {
            throw FirebaseFailure.code("INVALID_ID_TOKEN")
        }
        guard let user = project.users[claims.localId] else { throw FirebaseFailure.code("USER_NOT_FOUND") }
        guard claims.issuedAt >= user.validSince else { throw FirebaseFailure.code("TOKEN_EXPIRED") }
        guard !user.disabled else { throw FirebaseFailure.code("USER_DISABLED") }
        return (user, claims)
    }

    /// How old a sign-in may be for a sensitive change: 300 s (a token whose `auth_time` is exactly
    /// 300 s old still passes).
    ///
    /// Where the figure comes from: Firebase does not publish the server's window. Its SDKs only
    /// say the operation "requires recent authentication" (firebase-js-sdk maps
    /// `CREDENTIAL_TOO_OLD_LOGIN_AGAIN` to `auth/requires-recent-login`, iOS to
    /// `requiresRecentLogin` 17014; AuthHubFirebase docs, FirebaseEndpoints: “Account update” and “Delete” list it for password and email
    /// changes and account deletion). The one number in Firebase's documentation is the
    /// recent-sign-in check of the Admin SDK "Manage Session Cookies" guide
    /// (firebase.google.com/docs/auth/admin/manage-cookies), whose sample accepts an ID token only
    /// when `now - auth_time < 5 * 60` ("Only process if the user just signed in in the last 5
    /// minutes"); the emulator uses the same 5 minutes.
    static let recentLoginWindow = 300

    /// Refuses a sensitive change (`accounts:delete`, a password or email change by `accounts:update`)
    /// with `CREDENTIAL_TOO_OLD_LOGIN_AGAIN` when the presented ID token's `auth_time` is more than
    /// ``recentLoginWindow`` seconds before the emulator's clock, or the account is marked by the
    /// `:requireRecentLogin` hook. Privileged (admin) calls, which present no ID token, pass.
    func requireRecentLogin(_ user: FirebaseUser, authTime: Int?) throws {
        guard let authTime else { return }
        if user.recentLoginRequired || nowSeconds - authTime > Self.recentLoginWindow {
            throw FirebaseFailure.code("CREDENTIAL_TOO_OLD_LOGIN_AGAIN")
        }
    }

    /// The tenant a request names in `tenantId` (nil: none): it must be one of the project's
    /// ``FirebaseConfig/tenants`` (`INVALID_TENANT_ID`).
    func requestedTenant(_ body: FirebaseRequestBody, in project: FirebaseProject) throws -> String? {
        guard let tenant = try body.string("tenantId") else { return nil }
        guard project.config.tenants.contains(tenant) else { throw FirebaseFailure.code("INVALID_TENANT_ID") }
        return tenant
    }

    /// Where the Firebase SDKs send `tenantId` for an existing account (email actions with an ID
    /// token, `accounts:update`, `accounts:resetPassword`), a project with tenants checks it: the
    /// request must name the account's tenant, or none for an account of the project itself —
    /// else `TENANT_ID_MISMATCH`. (Lookups and deletes carry no `tenantId` in the SDKs and are not
    /// checked.)
    func checkTenant(_ body: FirebaseRequestBody, account tenant: String?, in project: FirebaseProject) throws {
        let requested = try requestedTenant(body, in: project)
        if !project.config.tenants.isEmpty, requested != tenant { throw FirebaseFailure.code("TENANT_ID_MISMATCH") }
    }

    /// The `idToken`, `refreshToken` and `expiresIn` for `user`, issued now.
    func tokens(for user: FirebaseUser, authTime: Int? = nil, secondFactor: FirebaseTokens.SecondFactor? = nil) -> [String: JSONValue] {
        let issuedAt = nowSeconds
        let authTime = authTime ?? issuedAt
        let refresh = FirebaseTokens.RefreshToken(localId: user.localId, projectId: projectId, issuedAt: issuedAt, authTime: authTime,
                                                  secondFactor: secondFactor)
        return [
            "idToken": .string(FirebaseTokens.idToken(user: user, projectId: projectId, issuedAt: issuedAt, authTime: authTime,
                                                      secondFactor: secondFactor)),
            "refreshToken": .string(FirebaseTokens.refreshToken(refresh)),
            "expiresIn": .string(String(FirebaseTokens.lifetime)),
        ]
    }

    /// A fresh uid: 28 letters and digits.
    func newLocalId() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        return String(environment.random.bytes(28).map { alphabet[Int($0) % alphabet.count] })
    }

    /// A fresh oob code: 32 random bytes, base64url.
    func newOobCode() -> String { Base64URL.encode(environment.random.bytes(32)) }

    /// The emulator's base URL (`http://HOST:PORT`), for oob links.
    func baseURL(for request: Request) async -> String {
        if let base = await state.baseURL { return base.absoluteString }
        return "http://\(request.head.authority ?? "127.0.0.1")"
    }
}
