import enum AuthHub.JSONValue
import Foundation
import Hummingbird

extension FirebaseService {
    /// Runs an emulator-only helper (no key, no auth) for the project named in the path: another
    /// project id is `404 NOT_FOUND` (this emulator serves one project).
    func helper(
        _ request: Request, context: EmulatorRequestContext, readBody: Bool = false,
        _ handler: (FirebaseRequestBody) async throws -> JSONValue
    ) async throws -> Response {
        let requested = context.parameters.get("projectId") ?? ""
        guard requested == projectId else {
            throw FirebaseFailure.notFound("Project \(requested) is not served here; this emulator's project id is \(projectId).")
        }
        let body = readBody ? try await FirebaseRequestBody.read(request) : FirebaseRequestBody()
        return EmulatorResponse.json(try await handler(body))
    }

    /// `DELETE /emulator/v1/projects/{projectId}/accounts` → `{}`: removes every account and
    /// pending oob code (the config stays).
    func wipeAccounts(_ request: Request, context: EmulatorRequestContext) async throws -> Response {
        try await helper(request, context: context) { _ in
            await state.update(FirebaseProject.key) { project in
                project.users = [:]
                project.oobCodes = []
                project.totpEnrollments = [:]
                project.pendingMFA = [:]
            }
            return [:]
        }
    }

    /// `GET /emulator/v1/projects/{projectId}/oobCodes` → `{"oobCodes":[{email, oobCode, oobLink,
    /// requestType}]}`, oldest first (used codes are gone).
    func listOobCodes(_ request: Request, context: EmulatorRequestContext) async throws -> Response {
        let base = await baseURL(for: request)
        return try await helper(request, context: context) { _ in
            let codes = await state.get(FirebaseProject.key).oobCodes
            return [
                "oobCodes": .array(codes.map { code in
                    [
                        "email": .string(code.email), "oobCode": .string(code.code),
                        "oobLink": .string(oobLink(code, base: base)), "requestType": .string(code.requestType),
                    ]
                })
            ]
        }
    }

    /// The config body `{"signIn":{"allowDuplicateEmails"},"emailPrivacyConfig":{"enableImprovedEmailPrivacy"},
    /// "tenants":[id]}` (`tenants` is AuthHub's: the project's Identity Platform tenants).
    static func configBody(_ config: FirebaseConfig) -> JSONValue {
        [
            "signIn": ["allowDuplicateEmails": .bool(config.allowDuplicateEmails)],
            "emailPrivacyConfig": ["enableImprovedEmailPrivacy": .bool(config.enableImprovedEmailPrivacy)],
            "tenants": .array(config.tenants.map(JSONValue.string)),
        ]
    }

    /// The most tenants a project may list, and the longest tenant id.
    static let maximumTenants = 100, maximumTenantIdLength = 128

    /// The `tenants` field of a config patch: nil when absent; else up to ``maximumTenants`` ids of
    /// letters, digits and `-`, each at most ``maximumTenantIdLength`` long (`INVALID_ARGUMENT`).
    static func tenants(_ value: JSONValue?) throws -> [String]? {
        guard let value, value != .null else { return nil }
        guard let list = value.arrayValue, list.count <= maximumTenants else {
            throw FirebaseFailure.invalidArgument("Invalid value at 'tenants': a list of at most \(maximumTenants) tenant ids")
        }
        return try list.map { entry in
            guard let id = entry.stringValue, !id.isEmpty, id.count <= maximumTenantIdLength,
                  id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") })
            else { throw FirebaseFailure.invalidArgument("Invalid value at 'tenants': \(entry.typeName) is not a tenant id") }
            return id
        }
    }

    /// `GET /emulator/v1/projects/{projectId}/config`.
    func getConfig(_ request: Request, context: EmulatorRequestContext) async throws -> Response {
        try await helper(request, context: context) { _ in Self.configBody(await state.get(FirebaseProject.key).config) }
    }

    /// `PATCH /emulator/v1/projects/{projectId}/config`: sets the fields present in the body,
    /// answers the whole config. A field of the wrong type is `400 INVALID_ARGUMENT`.
    func patchConfig(_ request: Request, context: EmulatorRequestContext) async throws -> Response {
        try await helper(request, context: context, readBody: true) { body in
            let duplicates = try Self.flag(body["signIn"], "allowDuplicateEmails", section: "signIn")
            let privacy = try Self.flag(body["emailPrivacyConfig"], "enableImprovedEmailPrivacy", section: "emailPrivacyConfig")
            let tenants = try Self.tenants(body["tenants"])
            let config = await state.update(FirebaseProject.key) { project -> FirebaseConfig in
                if let tenants { project.config.tenants = tenants }
                if let duplicates { project.config.allowDuplicateEmails = duplicates }
                if let privacy { project.config.enableImprovedEmailPrivacy = privacy }
                return project.config
            }
            return Self.configBody(config)
        }
    }

    /// The boolean `name` inside the object `section`, nil when either is absent.
    static func flag(_ section: JSONValue?, _ name: String, section sectionName: String) throws -> Bool? {
        guard let section, section != .null else { return nil }
        guard let object = section.objectValue else {
            throw FirebaseFailure.invalidArgument("Invalid value at '\(sectionName)', \(section.typeName)")
        }
        switch object[name] {
        case nil, .null: return nil
        case .bool(let flag): return flag
        case .some(let other): throw FirebaseFailure.invalidArgument("Invalid value at '\(sectionName).\(name)' (TYPE_BOOL), \(other.typeName)")
        }
    }

    /// AuthHub's seeding hook, not part of Firebase: `POST /emulator/v1/projects/{projectId}/accounts`
    /// `{email, password, displayName?, photoUrl?, emailVerified?, disabled?, mfaInfo?}` → `{localId}`.
    /// The sign-up checks apply (`MISSING_EMAIL`, `MISSING_PASSWORD`, `INVALID_EMAIL`,
    /// `EMAIL_EXISTS`, `WEAK_PASSWORD`). `mfaInfo` is an array of objects kept as given (an entry
    /// without `mfaEnrollmentId` gets a random one); its users get `mfaPendingCredential` instead of
    /// tokens from password sign-in.
    func seedAccount(_ request: Request, context: EmulatorRequestContext) async throws -> Response {
        try await helper(request, context: context, readBody: true) { body in
            var account = try newAccount(body, in: await state.get(FirebaseProject.key))
            account.emailVerified = try body.bool("emailVerified") ?? false
            account.disabled = try body.bool("disabled") ?? false
            switch body["mfaInfo"] {
            case nil, .null: break
            case .array(let entries):
                account.mfaInfo = try entries.map { entry in
                    guard var object = entry.objectValue else {
                        throw FirebaseFailure.invalidArgument("Invalid value at 'mfaInfo', \(entry.typeName)")
                    }
                    if object["mfaEnrollmentId"]?.stringValue == nil { object["mfaEnrollmentId"] = .string(newOobCode()) }
                    return .object(object)
                }
            case .some(let other):
                throw FirebaseFailure.invalidArgument("Invalid value at 'mfaInfo', \(other.typeName)")
            }
            let user = try await store(account)
            return ["localId": .string(user.localId)]
        }
    }

    /// `GET /emulator/action?mode=…&oobCode=…` — what following an oob link does, answered as JSON
    /// rather than Firebase's HTML page (emulator convention): `verifyEmail` and
    /// `verifyAndChangeEmail` apply the code (the `accounts:update {oobCode}` reply);
    /// `resetPassword` checks the code, or with `newPassword=…` in the query sets the password
    /// (the `accounts:resetPassword` reply). Other modes are 501. Errors use the AuthHubFirebase docs, FirebaseErrors: “Envelope” envelope.
    func action(_ request: Request) async throws -> Response {
        let query = FirebaseRequestBody(form: request.uri.query ?? "")
        let code = try query.string("oobCode")
        switch try query.string("mode") {
        case "verifyEmail", "verifyAndChangeEmail":
            return EmulatorResponse.json(.object(try await applyEmailCode(code)))
        case "resetPassword":
            var fields: [String: JSONValue] = [:]
            if let code { fields["oobCode"] = .string(code) }
            if let password = try query.string("newPassword") { fields["newPassword"] = .string(password) }
            return EmulatorResponse.json(try await resetPassword(Call(body: FirebaseRequestBody(fields), privileged: false)))
        case nil:
            throw FirebaseFailure.invalidArgument("mode is required")
        case let mode?:
            throw FirebaseFailure.notImplemented("The \(mode) action")
        }
    }
}
