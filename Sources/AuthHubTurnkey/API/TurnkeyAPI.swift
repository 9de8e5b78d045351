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

    func client(_ errorContext: TurnkeyErrorMapper.Context, baseURL: URL? = nil) -> APIClient {
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
    func sendSigned(_ request: TurnkeySignedRequest, errorContext: TurnkeyErrorMapper.Context, retry: APIRequest.RetryMode,
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
    func submitted<Parameters: Encodable & Sendable>(
        _ name: String, type: String, organizationId: String, parameters: Parameters, stamper: any TurnkeyStamper,
        errorContext: TurnkeyErrorMapper.Context, operation: AuthOperation
    ) async throws -> (activity: TurnkeyActivity, client: APIClient, response: HTTPReply) {
        let body = try TurnkeySignedRequest.serialise(activityRequest(type: type, organizationId: organizationId, parameters: parameters))
        return try await submitted(name, type: type, organizationId: organizationId, bodyBytes: body, stamper: stamper,
                                   errorContext: errorContext, operation: operation)
    }

    /// ``submitted(_:type:organizationId:parameters:stamper:errorContext:operation:)`` for a body
    /// serialised (and perhaps stamped) before: the browser's passkey signed these exact bytes.
    func submitted(_ name: String, type: String, organizationId: String, bodyBytes body: [UInt8], stamper: any TurnkeyStamper,
                   errorContext: TurnkeyErrorMapper.Context, operation: AuthOperation) async throws -> (activity: TurnkeyActivity, client: APIClient, response: HTTPReply) {
        let signed = try await TurnkeySignedRequest.sign(path: Self.submitPrefix + name, bodyBytes: body, with: stamper)
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

    /// The sign-up path on the proxy.
    public static let createSubOrganizationPath = "auth/createSubOrg"

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
}
