import AuthHub
import Crypto
import Foundation

/// Turnkey's REST API (<doc:TurnkeyProtocol>: “Hosts and transport”, “Email lookup”, “Stamping”, “Activities”) on the core ``APIClient``, and the app backend's
/// email lookup (<doc:TurnkeyProtocol>: “Email lookup”).
///
/// Every Turnkey call is a `POST` of a JSON body stamped over its exact bytes (see
/// ``TurnkeySignedRequest``) with exactly one stamp header. Queries go to
/// `<baseURL>/public/v1/query/<name>`; activities to `<baseURL>/public/v1/submit/<name>` with the
/// envelope `{type, timestampMs, organizationId, parameters}` (`timestampMs` a string, from the
/// context clock) and are polled with `get_activity` while not terminal, every
/// ``TurnkeyConfiguration/activityPollIntervalMilliseconds`` up to
/// ``TurnkeyConfiguration/activityPollAttempts`` times (sleeping on the context clock).
///
/// Errors are mapped by ``TurnkeyErrorMapper`` in the ``TurnkeyErrorMapper/Context`` each call is given.
public struct TurnkeyAPI: Sendable {
    /// The query path prefix.
    public static let queryPrefix = "public/v1/query/"
    /// The activity path prefix.
    public static let submitPrefix = "public/v1/submit/"
    /// The lookup path on the proxy.
    public static let lookupPath = "proxy/sub-org-ids"

    /// The provider id errors are attributed to.
    public let providerID: String
    /// The settings.
    public let configuration: TurnkeyConfiguration
    let context: ProviderContext

    /// Creates a client.
    public init(providerID: String, configuration: TurnkeyConfiguration, context: ProviderContext) {
        self.providerID = providerID
        self.configuration = configuration
        self.context = context
    }

    private func client(_ errorContext: TurnkeyErrorMapper.Context, baseURL: URL? = nil) -> APIClient {
        APIClient(provider: providerID, baseURL: baseURL ?? configuration.baseURL, context: context,
                  errorMapper: TurnkeyErrorMapper(context: errorContext))
    }

    private func parse(_ response: HTTPResponse, _ what: String) throws -> JSONValue {
        do {
            return try JSONValue.parse(response.body)
        } catch {
            throw AuthError(.invalidRequest, message: "The reply from '\(providerID)' to \(what) is not JSON.", provider: providerID,
                            statusCode: response.status, underlying: error)
        }
    }

    // MARK: - Sending stamped requests

    /// Sends a signed request: its exact bytes, its one stamp header, `Content-Type: application/json`.
    /// - Parameters:
    ///   - request: the signed request.
    ///   - errorContext: what the request is, for error mapping.
    ///   - retry: the client's retry mode (queries are read-only and may be retried).
    /// - Returns: the JSON reply.
    public func send(_ request: TurnkeySignedRequest, errorContext: TurnkeyErrorMapper.Context = .request,
                     retry: APIRequest.RetryMode = .automatic) async throws -> JSONValue {
        let api = APIRequest(.post, request.path, headers: [request.stamp.name: request.stamp.value],
                             body: .json(Data(request.body)), retry: retry)
        return try parse(try await client(errorContext).send(api), request.path)
    }

    /// Serialises `body` once, stamps it with `stamper` and posts it to `path` (relative to the base URL).
    public func post(path: String, body: JSONValue, stamper: any TurnkeyStamper,
                     errorContext: TurnkeyErrorMapper.Context = .request) async throws -> JSONValue {
        try await send(try await TurnkeySignedRequest.sign(path: path, body: body, with: stamper), errorContext: errorContext)
    }

    /// A query: `POST /public/v1/query/<name>` (read-only; retried like an idempotent request).
    public func query(_ name: String, body: JSONValue, stamper: any TurnkeyStamper,
                      errorContext: TurnkeyErrorMapper.Context = .request) async throws -> JSONValue {
        let signed = try await TurnkeySignedRequest.sign(path: Self.queryPrefix + name, body: body, with: stamper)
        return try await send(signed, errorContext: errorContext, retry: .idempotent)
    }

    /// The activity envelope `{type, timestampMs, organizationId, parameters}` with `timestampMs`
    /// the context clock's time in milliseconds, as a string.
    public func activityBody(type: String, organizationId: String, parameters: [String: JSONValue]) -> JSONValue {
        let milliseconds = Int64((context.clock.now.timeIntervalSince1970 * 1000).rounded(.down))
        return .object([
            "type": .string(type), "timestampMs": .string(String(milliseconds)),
            "organizationId": .string(organizationId), "parameters": .object(parameters),
        ])
    }

    /// Submits an activity (`POST /public/v1/submit/<name>`), polls it until terminal and returns it
    /// when COMPLETED.
    ///
    /// The submit is retried only on 429/503 (the server refused before doing anything; the same
    /// bytes and stamp are resent). Polls are stamped by the same `stamper` — with a passkey stamper,
    /// each poll is one more passkey assertion, so keep `activityPollAttempts` small for logins.
    /// - Throws: the mapped activity failure for FAILED; ``AuthErrorCode/accessDenied`` for REJECTED
    ///   or CONSENSUS_NEEDED; ``AuthErrorCode/timeout`` when still pending after the configured polls.
    public func submit(_ name: String, type: String, organizationId: String, parameters: [String: JSONValue],
                       stamper: any TurnkeyStamper, errorContext: TurnkeyErrorMapper.Context = .request) async throws -> TurnkeyActivity {
        let body = activityBody(type: type, organizationId: organizationId, parameters: parameters)
        let signed = try await TurnkeySignedRequest.sign(path: Self.submitPrefix + name, body: body, with: stamper)
        var activity = try TurnkeyActivity(reply: try await send(signed, errorContext: errorContext, retry: .automatic), provider: providerID)
        var polls = 0
        while !activity.isTerminal {
            guard polls < max(0, configuration.activityPollAttempts) else {
                throw AuthError(.timeout,
                                message: "The Turnkey activity \(activity.id) (\(type)) is still \(activity.status) after \(polls) polls; giving up.",
                                provider: providerID, providerCode: activity.status)
            }
            try await context.clock.sleep(for: .milliseconds(max(1, configuration.activityPollIntervalMilliseconds)))
            polls += 1
            activity = try await getActivity(organizationId: activity.organizationId ?? organizationId, activityId: activity.id,
                                             stamper: stamper, errorContext: errorContext)
        }
        return try completed(activity, errorContext)
    }

    /// Fails unless the terminal activity COMPLETED.
    func completed(_ activity: TurnkeyActivity, _ errorContext: TurnkeyErrorMapper.Context) throws -> TurnkeyActivity {
        switch activity.status {
        case TurnkeyActivity.completed:
            return activity
        case TurnkeyActivity.failed:
            let error = TurnkeyErrorMapper(context: errorContext).map(activityFailure: activity.failure, provider: providerID)
            throw error.with(details: error.details.merging(["activityId": activity.id]) { _, new in new })
        case TurnkeyActivity.rejected:
            throw AuthError(.accessDenied, message: "The Turnkey activity \(activity.id) was rejected; it has no result.",
                            provider: providerID, providerCode: activity.status)
        default:
            throw AuthError(.accessDenied,
                            message: "The Turnkey activity \(activity.id) needs approval by other users (consensus); it has no result yet.",
                            provider: providerID, providerCode: activity.status)
        }
    }

    /// `POST /public/v1/query/get_activity {organizationId, activityId}`.
    public func getActivity(organizationId: String, activityId: String, stamper: any TurnkeyStamper,
                            errorContext: TurnkeyErrorMapper.Context = .request) async throws -> TurnkeyActivity {
        try TurnkeyActivity(reply: try await query("get_activity", body: [
            "organizationId": .string(organizationId), "activityId": .string(activityId),
        ], stamper: stamper, errorContext: errorContext), provider: providerID)
    }

    // MARK: - Endpoints

    /// Looks up the sub-organizations of an email through the app backend:
    /// `GET <proxyURL>/proxy/sub-org-ids?filterType=EMAIL&filterValue=<email>` (no stamp; the email
    /// percent-encoded, `+` and `&` included).
    /// - Returns: the `organizationIds`, never empty.
    /// - Throws: ``AuthErrorCode/userNotFound`` when there is none.
    public func lookupSubOrganizations(email: String) async throws -> [String] {
        var base = configuration.proxyURL.absoluteString
        if !base.hasSuffix("/") { base += "/" }
        let request = APIRequest(.get, base + Self.lookupPath, query: [("filterType", "EMAIL"), ("filterValue", email)])
        let reply = try parse(try await client(.request, baseURL: configuration.proxyURL).send(request), Self.lookupPath)
        let ids = reply["organizationIds"]?.arrayValue?.compactMap(\.stringValue) ?? []
        guard !ids.isEmpty else {
            throw AuthError(.userNotFound, message: "No Turnkey account is registered for this email.", provider: providerID)
        }
        return ids
    }

    /// The sign-up path on the proxy.
    public static let createSubOrganizationPath = "auth/createSubOrg"

    /// Creates the user's sub-organization through the app backend, with a passkey as its root
    /// user's credential: `POST <proxyURL>/auth/createSubOrg` `{email, passkey: {name, challenge,
    /// attestation: {credentialId, clientDataJson, attestationObject, transports}}}` →
    /// `{subOrganizationId}` (no stamp: the proxy holds the parent organization's key and calls
    /// `create_sub_organization`). This is the shape of Turnkey's own example backend (tkhq/swift-sdk
    /// `Examples/with-backend/example-server`: `POST /auth/createSubOrg`, `CreateSubOrgParams`);
    /// every value is base64url without padding; transports are Turnkey's enum names
    /// (`AUTHENTICATOR_TRANSPORT_INTERNAL`, …).
    /// - Returns: the new sub-organization's id.
    public func createSubOrganization(email: String, passkeyName: String, challenge: [UInt8],
                                      registration: PasskeyRegistration) async throws -> String {
        var base = configuration.proxyURL.absoluteString
        if !base.hasSuffix("/") { base += "/" }
        let body: JSONValue = [
            "email": .string(email),
            "passkey": [
                "name": .string(passkeyName), "challenge": .string(Base64URL.encode(challenge)),
                "attestation": [
                    "credentialId": .string(Base64URL.encode(registration.credentialID)),
                    "clientDataJson": .string(Base64URL.encode(registration.clientDataJSON)),
                    "attestationObject": .string(Base64URL.encode(registration.attestationObject)),
                    "transports": .array(registration.transports.map { .string(Self.transportName($0)) }),
                ],
            ],
        ]
        let request = try APIRequest.json(.post, base + Self.createSubOrganizationPath, body, retry: .never)
        let reply = try parse(try await client(.request, baseURL: configuration.proxyURL).send(request), Self.createSubOrganizationPath)
        guard let id = reply["subOrganizationId"]?.stringValue, !id.isEmpty, id.count <= 128 else {
            throw AuthError(.invalidRequest, message: "The \(Self.createSubOrganizationPath) reply of '\(providerID)' has no subOrganizationId.",
                            provider: providerID)
        }
        return id
    }

    /// Turnkey's name of a WebAuthn transport (`internal` → `AUTHENTICATOR_TRANSPORT_INTERNAL`).
    static func transportName(_ transport: String) -> String {
        transport.hasPrefix("AUTHENTICATOR_TRANSPORT_") ? transport : "AUTHENTICATOR_TRANSPORT_" + transport.uppercased()
    }

    /// `list_suborgs` (<doc:TurnkeyProtocol>: “Email lookup”), for servers holding the parent organization's API key.
    /// - Parameters:
    ///   - organizationId: the parent organization (the configured one by default).
    ///   - stamper: a stamper with the parent organization's API key.
    /// - Returns: `organizationIds` (empty when none match).
    public func listSubOrganizations(filterType: String, filterValue: String, organizationId: String? = nil,
                                     stamper: any TurnkeyStamper) async throws -> [String] {
        let reply = try await query("list_suborgs", body: [
            "organizationId": .string(organizationId ?? configuration.organizationId),
            "filterType": .string(filterType), "filterValue": .string(filterValue),
        ], stamper: stamper)
        return reply["organizationIds"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    /// `whoami {organizationId}` (<doc:TurnkeyProtocol>: “whoami”).
    public func whoami(organizationId: String, stamper: any TurnkeyStamper,
                       errorContext: TurnkeyErrorMapper.Context = .request) async throws -> TurnkeyWhoami {
        try TurnkeyWhoami(reply: try await query("whoami", body: ["organizationId": .string(organizationId)], stamper: stamper,
                                                 errorContext: errorContext), provider: providerID)
    }

    /// `stamp_login` (<doc:TurnkeyProtocol>: “stamp_login”): registers `publicKey` as a session key and returns the session JWT.
    /// - Parameters:
    ///   - publicKey: the compressed hex public key of the new session key.
    ///   - expirationSeconds: the session lifetime (sent as a string).
    public func stampLogin(organizationId: String, publicKey: String, expirationSeconds: Int, invalidateExisting: Bool? = nil,
                           stamper: any TurnkeyStamper, errorContext: TurnkeyErrorMapper.Context = .passkeyLogin) async throws -> Secret<String> {
        var parameters: [String: JSONValue] = ["publicKey": .string(publicKey), "expirationSeconds": .string(String(expirationSeconds))]
        if let invalidateExisting { parameters["invalidateExisting"] = .bool(invalidateExisting) }
        let activity = try await submit("stamp_login", type: "ACTIVITY_TYPE_STAMP_LOGIN", organizationId: organizationId,
                                        parameters: parameters, stamper: stamper, errorContext: errorContext)
        guard let session = try activity.result("stampLoginResult", provider: providerID)["session"]?.stringValue, !session.isEmpty else {
            throw AuthError(.invalidRequest, message: "The stamp_login result has no session.", provider: providerID)
        }
        return Secret(session)
    }

    /// `create_read_write_session` V2 (<doc:TurnkeyProtocol>: “create_read_write_session”): a new API key for the user, encrypted to
    /// `targetPrivateKey`'s public key (sent uncompressed), decrypted here.
    public func createReadWriteSession(organizationId: String, targetPrivateKey: P256.KeyAgreement.PrivateKey, userId: String? = nil,
                                       apiKeyName: String? = nil, expirationSeconds: Int? = nil, stamper: any TurnkeyStamper,
                                       errorContext: TurnkeyErrorMapper.Context = .request) async throws -> TurnkeyReadWriteSession {
        var parameters: [String: JSONValue] = ["targetPublicKey": .string(TurnkeyKeys.uncompressedHex(targetPrivateKey.publicKey))]
        if let userId { parameters["userId"] = .string(userId) }
        if let apiKeyName { parameters["apiKeyName"] = .string(apiKeyName) }
        if let expirationSeconds { parameters["expirationSeconds"] = .string(String(expirationSeconds)) }
        let activity = try await submit("create_read_write_session", type: "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2",
                                        organizationId: organizationId, parameters: parameters, stamper: stamper, errorContext: errorContext)
        let result = try activity.result("createReadWriteSessionResultV2", "createReadWriteSessionResult", provider: providerID)
        guard let bundle = result["credentialBundle"]?.stringValue, let apiKeyId = result["apiKeyId"]?.stringValue else {
            throw AuthError(.invalidRequest, message: "The create_read_write_session result lacks credentialBundle or apiKeyId.",
                            provider: providerID)
        }
        let key: P256.Signing.PrivateKey
        do { key = try TurnkeyCredentialBundle.decrypt(bundle, receiverPrivateKey: targetPrivateKey) } catch let error as AuthError {
            throw error.with(provider: providerID)
        }
        return TurnkeyReadWriteSession(organizationId: result["organizationId"]?.stringValue ?? organizationId,
                                       organizationName: result["organizationName"]?.stringValue,
                                       userId: result["userId"]?.stringValue ?? userId ?? "",
                                       username: result["username"]?.stringValue, apiKeyId: apiKeyId,
                                       stamper: TurnkeyAPIKeyStamper(privateKey: key))
    }
}
