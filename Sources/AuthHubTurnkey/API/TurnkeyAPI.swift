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

    /// The operation a request made in `errorContext` serves (a renewal is `refresh`, a passkey
    /// login `signIn`, a call with the session key `userInfo`-like session work).
    static func operation(_ errorContext: TurnkeyErrorMapper.Context) -> AuthOperation {
        switch errorContext {
        case .refresh: .refresh
        case .passkeyLogin: .signIn
        case .signUp: .signUp
        case .session, .request: .other
        }
    }

    // MARK: - Sending stamped requests

    /// Sends a signed request (its exact bytes, its one stamp header, `Content-Type: application/json`)
    /// and returns the 2xx reply.
    private func sendSigned(_ request: TurnkeySignedRequest, errorContext: TurnkeyErrorMapper.Context, retry: APIRequest.RetryMode,
                            operation: AuthOperation) async throws -> (APIClient, HTTPReply) {
        // A stamper is a plug-in seam: a header name it makes up is refused here, not dropped.
        guard let stampName = HTTPField.Name(request.stamp.name) else {
            throw AuthError(.invalidConfiguration, message: "The Turnkey stamper produced an invalid header name.", provider: providerID)
        }
        let api = APIRequest(.post, request.path, headerFields: [stampName: request.stamp.value],
                             body: .json(Data(request.body)), retry: retry, operation: operation)
        let apiClient = client(errorContext)
        return (apiClient, try await apiClient.send(api))
    }

    /// Sends a signed request and decodes its reply into a wire model.
    func send<Reply: Decodable>(_ request: TurnkeySignedRequest, as reply: Reply.Type, errorContext: TurnkeyErrorMapper.Context,
                                retry: APIRequest.RetryMode, operation: AuthOperation) async throws -> Reply {
        let (client, response) = try await sendSigned(request, errorContext: errorContext, retry: retry, operation: operation)
        return try client.decode(reply, from: response, operation: operation)
    }

    /// Sends a signed request: its exact bytes, its one stamp header, `Content-Type: application/json`.
    /// - Parameters:
    ///   - request: the signed request.
    ///   - errorContext: what the request is, for error mapping.
    ///   - retry: the client's retry mode (queries are read-only and may be retried).
    /// - Returns: the JSON reply — open, as this is how callers send requests of their own to
    ///   endpoints AuthHub does not model.
    public func send(_ request: TurnkeySignedRequest, errorContext: TurnkeyErrorMapper.Context = .request,
                     retry: APIRequest.RetryMode = .automatic) async throws -> JSONValue {
        try await send(request, as: JSONValue.self, errorContext: errorContext, retry: retry, operation: Self.operation(errorContext))
    }

    /// Serialises `body` once, stamps it with `stamper` and posts it to `path` (relative to the base URL).
    /// - Returns: the JSON reply, open (a caller's own request to an endpoint AuthHub does not model).
    public func post(path: String, body: JSONValue, stamper: any TurnkeyStamper,
                     errorContext: TurnkeyErrorMapper.Context = .request) async throws -> JSONValue {
        try await send(try await TurnkeySignedRequest.sign(path: path, body: body, with: stamper), errorContext: errorContext)
    }

    /// A query: `POST /public/v1/query/<name>` (read-only; retried like an idempotent request),
    /// its reply decoded into `reply`.
    func query<Body: Encodable & Sendable, Reply: Decodable>(_ name: String, body: Body, as reply: Reply.Type, stamper: any TurnkeyStamper,
                                                             errorContext: TurnkeyErrorMapper.Context = .request,
                                                             operation: AuthOperation) async throws -> Reply {
        let signed = try await TurnkeySignedRequest.sign(path: Self.queryPrefix + name, body: body, with: stamper)
        return try await send(signed, as: reply, errorContext: errorContext, retry: .idempotent, operation: operation)
    }

    /// A query: `POST /public/v1/query/<name>` (read-only; retried like an idempotent request).
    /// - Returns: the JSON reply, open (a query AuthHub does not model).
    public func query(_ name: String, body: JSONValue, stamper: any TurnkeyStamper,
                      errorContext: TurnkeyErrorMapper.Context = .request) async throws -> JSONValue {
        try await query(name, body: body, as: JSONValue.self, stamper: stamper, errorContext: errorContext,
                        operation: Self.operation(errorContext))
    }

    /// The activity envelope `{type, timestampMs, organizationId, parameters}` with `timestampMs`
    /// the context clock's time in milliseconds, as a string.
    public func activityBody(type: String, organizationId: String, parameters: [String: JSONValue]) -> TurnkeyActivityRequest<[String: JSONValue]> {
        activityRequest(type: type, organizationId: organizationId, parameters: parameters)
    }

    /// The typed activity envelope (see ``activityBody(type:organizationId:parameters:)``).
    func activityRequest<Parameters: Encodable & Sendable>(type: String, organizationId: String,
                                                           parameters: Parameters) -> TurnkeyActivityRequest<Parameters> {
        let milliseconds = Int64((context.clock.now.timeIntervalSince1970 * 1000).rounded(.down))
        return TurnkeyActivityRequest(type: type, timestampMs: String(milliseconds), organizationId: organizationId, parameters: parameters)
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
        try await submitted(name, type: type, organizationId: organizationId, parameters: parameters, stamper: stamper,
                            errorContext: errorContext, operation: Self.operation(errorContext)).activity
    }

    /// Submits an activity and decodes the typed result of its completed reply.
    func submit<Parameters: Encodable & Sendable, Result: TurnkeyActivityResult>(
        _ name: String, type: String, organizationId: String, parameters: Parameters, result: Result.Type,
        stamper: any TurnkeyStamper, errorContext: TurnkeyErrorMapper.Context, operation: AuthOperation
    ) async throws -> (activity: TurnkeyActivity, result: Result) {
        let (activity, client, response) = try await submitted(name, type: type, organizationId: organizationId, parameters: parameters,
                                                               stamper: stamper, errorContext: errorContext, operation: operation)
        return (activity, try client.decode(TurnkeyActivityResultReply<Result>.self, from: response, operation: operation).result)
    }

    /// Submits, polls until terminal, fails unless COMPLETED; returns the activity and its last reply.
    private func submitted<Parameters: Encodable & Sendable>(
        _ name: String, type: String, organizationId: String, parameters: Parameters, stamper: any TurnkeyStamper,
        errorContext: TurnkeyErrorMapper.Context, operation: AuthOperation
    ) async throws -> (activity: TurnkeyActivity, client: APIClient, response: HTTPReply) {
        let body = activityRequest(type: type, organizationId: organizationId, parameters: parameters)
        let signed = try await TurnkeySignedRequest.sign(path: Self.submitPrefix + name, body: body, with: stamper)
        var (client, response) = try await sendSigned(signed, errorContext: errorContext, retry: .automatic, operation: operation)
        var activity = try client.decode(TurnkeyActivityReply.self, from: response, operation: operation).activity
        var polls = 0
        while !activity.isTerminal {
            guard polls < max(0, configuration.activityPollAttempts) else {
                throw AuthError(.timeout,
                                message: "The Turnkey activity \(activity.id) (\(type)) is still \(activity.status) after \(polls) polls; giving up.",
                                provider: providerID, providerCode: activity.status)
            }
            try await context.clock.sleep(for: .milliseconds(max(1, configuration.activityPollIntervalMilliseconds)))
            polls += 1
            let poll = try await TurnkeySignedRequest.sign(path: Self.queryPrefix + "get_activity",
                                                           body: TurnkeyGetActivityQuery(organizationId: activity.organizationId ?? organizationId,
                                                                                         activityId: activity.id),
                                                           with: stamper)
            (client, response) = try await sendSigned(poll, errorContext: errorContext, retry: .idempotent, operation: operation)
            activity = try client.decode(TurnkeyActivityReply.self, from: response, operation: operation).activity
        }
        return (try completed(activity, errorContext), client, response)
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
        try await query("get_activity", body: TurnkeyGetActivityQuery(organizationId: organizationId, activityId: activityId),
                        as: TurnkeyActivityReply.self, stamper: stamper, errorContext: errorContext,
                        operation: Self.operation(errorContext)).activity
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
        let request = APIRequest(.get, base + Self.lookupPath, query: [("filterType", "EMAIL"), ("filterValue", email)], operation: .signIn)
        let ids = try await client(.request, baseURL: configuration.proxyURL).send(request, as: TurnkeyOrganizationIDs.self).organizationIds
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
    /// (`AUTHENTICATOR_TRANSPORT_INTERNAL`, …), unknown ones dropped (see ``authenticatorTransports``).
    /// - Returns: the new sub-organization's id.
    /// - Throws: errors mapped in the ``TurnkeyErrorMapper/Context/signUp`` context: a reply saying
    ///   the email already exists → ``AuthErrorCode/emailAlreadyInUse``; another `ALREADY_EXISTS`
    ///   (code 6) or HTTP 409 → ``AuthErrorCode/conflict``.
    public func createSubOrganization(email: String, passkeyName: String, challenge: [UInt8],
                                      registration: PasskeyRegistration) async throws -> String {
        var base = configuration.proxyURL.absoluteString
        if !base.hasSuffix("/") { base += "/" }
        let body = TurnkeyCreateSubOrganizationRequest(
            email: email,
            passkey: .init(name: passkeyName, challenge: Base64URL.encode(challenge), attestation: .init(
                credentialId: Base64URL.encode(registration.credentialID),
                clientDataJson: Base64URL.encode(registration.clientDataJSON),
                attestationObject: Base64URL.encode(registration.attestationObject),
                transports: Self.transportNames(registration.transports))))
        let request = try APIRequest.json(.post, base + Self.createSubOrganizationPath, body, retry: .never, operation: .signUp)
        return try await client(.signUp, baseURL: configuration.proxyURL)
            .send(request, as: TurnkeyCreateSubOrganizationReply.self).subOrganizationId
    }

    /// The values of Turnkey's `AuthenticatorTransport` enum: the only transports it accepts.
    public static let authenticatorTransports: Set<String> = [
        "AUTHENTICATOR_TRANSPORT_BLE", "AUTHENTICATOR_TRANSPORT_INTERNAL", "AUTHENTICATOR_TRANSPORT_NFC",
        "AUTHENTICATOR_TRANSPORT_USB", "AUTHENTICATOR_TRANSPORT_HYBRID",
    ]

    /// Turnkey's name of a WebAuthn transport (`internal` → `AUTHENTICATOR_TRANSPORT_INTERNAL`, any
    /// case; a name already in Turnkey's form is kept); nil for a transport outside Turnkey's enum
    /// (``authenticatorTransports``), such as `smart-card` or one a future authenticator reports.
    static func transportName(_ transport: String) -> String? {
        let name = transport.uppercased().hasPrefix("AUTHENTICATOR_TRANSPORT_")
            ? transport.uppercased() : "AUTHENTICATOR_TRANSPORT_" + transport.uppercased()
        return authenticatorTransports.contains(name) ? name : nil
    }

    /// The transports to send: Turnkey's names of those it knows, each once, in the authenticator's
    /// order. Unknown ones are dropped before the call — Turnkey refuses the whole sub-organization
    /// over one value outside its enum, which would leave the just-made passkey an orphan; the
    /// transports are only a hint for later sign-ins.
    static func transportNames(_ transports: [String]) -> [String] {
        var seen = Set<String>()
        return transports.compactMap(transportName).filter { seen.insert($0).inserted }
    }

    /// `list_suborgs` (<doc:TurnkeyProtocol>: “Email lookup”), for servers holding the parent organization's API key.
    /// - Parameters:
    ///   - organizationId: the parent organization (the configured one by default).
    ///   - stamper: a stamper with the parent organization's API key.
    /// - Returns: `organizationIds` (empty when none match).
    public func listSubOrganizations(filterType: String, filterValue: String, organizationId: String? = nil,
                                     stamper: any TurnkeyStamper) async throws -> [String] {
        try await query("list_suborgs", body: TurnkeyListSubOrganizationsQuery(organizationId: organizationId ?? configuration.organizationId,
                                                                               filterType: filterType, filterValue: filterValue),
                        as: TurnkeyOrganizationIDs.self, stamper: stamper, operation: .management).organizationIds
    }

    /// `whoami {organizationId}` (<doc:TurnkeyProtocol>: “whoami”).
    public func whoami(organizationId: String, stamper: any TurnkeyStamper,
                       errorContext: TurnkeyErrorMapper.Context = .request) async throws -> TurnkeyWhoami {
        try await query("whoami", body: TurnkeyOrganizationQuery(organizationId: organizationId), as: TurnkeyWhoami.self, stamper: stamper,
                        errorContext: errorContext, operation: errorContext == .refresh ? .refresh : .userInfo)
    }

    /// `stamp_login` (<doc:TurnkeyProtocol>: “stamp_login”): registers `publicKey` as a session key and returns the session JWT.
    /// - Parameters:
    ///   - publicKey: the compressed hex public key of the new session key.
    ///   - expirationSeconds: the session lifetime (sent as a string).
    public func stampLogin(organizationId: String, publicKey: String, expirationSeconds: Int, invalidateExisting: Bool? = nil,
                           stamper: any TurnkeyStamper, errorContext: TurnkeyErrorMapper.Context = .passkeyLogin) async throws -> Secret<String> {
        let parameters = TurnkeyStampLoginParameters(publicKey: publicKey, expirationSeconds: String(expirationSeconds),
                                                     invalidateExisting: invalidateExisting)
        let reply = try await submit("stamp_login", type: "ACTIVITY_TYPE_STAMP_LOGIN", organizationId: organizationId,
                                     parameters: parameters, result: TurnkeyStampLoginResult.self, stamper: stamper,
                                     errorContext: errorContext, operation: errorContext == .refresh ? .refresh : .signIn)
        return Secret(reply.result.session)
    }

    /// `create_read_write_session` V2 (<doc:TurnkeyProtocol>: “create_read_write_session”): a new API key for the user, encrypted to
    /// `targetPrivateKey`'s public key (sent uncompressed), decrypted here.
    public func createReadWriteSession(organizationId: String, targetPrivateKey: P256.KeyAgreement.PrivateKey, userId: String? = nil,
                                       apiKeyName: String? = nil, expirationSeconds: Int? = nil, stamper: any TurnkeyStamper,
                                       errorContext: TurnkeyErrorMapper.Context = .request) async throws -> TurnkeyReadWriteSession {
        let parameters = TurnkeyCreateReadWriteSessionParameters(
            targetPublicKey: TurnkeyKeys.uncompressedHex(targetPrivateKey.publicKey), userId: userId, apiKeyName: apiKeyName,
            expirationSeconds: expirationSeconds.map { String($0) })
        let result = try await submit("create_read_write_session", type: "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2",
                                      organizationId: organizationId, parameters: parameters, result: TurnkeyReadWriteSessionResult.self,
                                      stamper: stamper, errorContext: errorContext, operation: .tokenExchange).result
        let bundle = result.credentialBundle
        let apiKeyId = result.apiKeyId
        let key: P256.Signing.PrivateKey
        do { key = try TurnkeyCredentialBundle.decrypt(bundle, receiverPrivateKey: targetPrivateKey) } catch let error as AuthError {
            throw error.with(provider: providerID)
        }
        return TurnkeyReadWriteSession(organizationId: result.organizationId ?? organizationId,
                                       organizationName: result.organizationName,
                                       userId: result.userId ?? userId ?? "",
                                       username: result.username, apiKeyId: apiKeyId,
                                       stamper: TurnkeyAPIKeyStamper(privateKey: key))
    }
}
