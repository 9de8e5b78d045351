import AuthHub
import Foundation

/// Openfort's auth REST API, v2 (<doc:OpenfortEndpoints>: “Endpoints”): `/iam/v2/auth/*` and `/iam/v2/me`, on the core
/// ``APIClient``.
///
/// Headers (<doc:OpenfortEndpoints>: “Base URL and headers”), on every call:
/// - `x-project-key: <publishable key>`;
/// - `x-request-id: <UUID v4>`, a new one per call (from the context's random source; kept across
///   the client's retries of that call, as it names one logical request);
/// - `x-native-app-identifier` when the configuration has one;
/// - `Authorization: Bearer <session token>` only on the calls given a `bearer` — never the
///   publishable key (the v2 auth endpoints reject it);
/// - `Content-Type: application/json` for bodies; no cookies.
///
/// Errors are mapped by ``OpenfortErrorMapper`` (with ``OpenfortErrorMapper/sessionCall`` for calls
/// that carry a session token). Calls that consume a one-time code or token are never retried;
/// other POSTs only on 429/503 (the core rule), GETs like any idempotent request.
package struct OpenfortAPI: Sendable {
    /// The auth API prefix, relative to the base URL.
    package static let authPrefix = "iam/v2/auth/"
    /// The current-user path, relative to the base URL.
    package static let mePath = "iam/v2/me"

    /// The provider's settings.
    package let configuration: OpenfortConfiguration
    let client: APIClient
    let sessionClient: APIClient
    let random: any RandomSource
    var provider: String { client.provider }

    /// Creates a client.
    /// - Parameters:
    ///   - providerID: the provider id errors are attributed to.
    ///   - configuration: publishable key, base URL, native app identifier.
    ///   - context: transport, clock, randomness and logger.
    package init(providerID: String, configuration: OpenfortConfiguration, context: ProviderContext) {
        self.configuration = configuration
        self.random = context.random
        var headers: HTTPFields = [.openfortProjectKey: configuration.publishableKey]
        if let app = configuration.nativeAppIdentifier, !app.isEmpty { headers[.openfortNativeAppIdentifier] = app }
        client = APIClient(provider: providerID, baseURL: configuration.baseURL, context: context,
                           errorMapper: OpenfortErrorMapper(), defaultHeaderFields: headers)
        sessionClient = APIClient(provider: providerID, baseURL: configuration.baseURL, context: context,
                                  errorMapper: OpenfortErrorMapper(sessionCall: true), defaultHeaderFields: headers)
    }

    // MARK: - Sending

    /// A new `x-request-id`: a random (version 4) UUID.
    func requestID() -> String { OpenfortRequestID.make(random) }

    func headers(_ bearer: Secret<String>?) -> HTTPFields {
        var headers: HTTPFields = [.openfortRequestID: requestID()]
        if let bearer { headers[.authorization] = "Bearer \(bearer.revealed())" }
        return headers
    }

    /// The request for `path` under the auth prefix (or as is when it starts with `iam/`), with a
    /// JSON body when one is given, the per-call headers and the operation.
    func makeRequest(_ method: HTTPRequest.Method, _ path: String, body: (any Encodable & Sendable)?, query: [(String, String)],
                             bearer: Secret<String>?, retry: APIRequest.RetryMode, operation: AuthOperation) throws -> APIRequest {
        let fullPath = path.hasPrefix("iam/") ? path : Self.authPrefix + path
        guard let body else {
            return APIRequest(method, fullPath, query: query, headerFields: headers(bearer), retry: retry, operation: operation)
        }
        return try APIRequest.json(method, fullPath, body, query: query, headerFields: headers(bearer), retry: retry, operation: operation)
    }

    /// Sends a request under the auth prefix (or `path` as is when it starts with `iam/`) and
    /// decodes the reply into `reply` through the client.
    /// - Parameter emptyIsNull: whether an empty body reads as no reply (nil) — for calls whose
    ///   reply AuthHub does not need; when false an empty body is an error naming the operation.
    func send<Reply: Decodable>(_ method: HTTPRequest.Method, _ path: String, body: (any Encodable & Sendable)? = nil,
                                query: [(String, String)] = [], bearer: Secret<String>? = nil,
                                retry: APIRequest.RetryMode = .automatic, emptyIsNull: Bool = true,
                                operation: AuthOperation, as reply: Reply.Type) async throws -> Reply? {
        let request = try makeRequest(method, path, body: body, query: query, bearer: bearer, retry: retry, operation: operation)
        let chosen = bearer == nil ? client : sessionClient
        let response = try await chosen.send(request)
        if emptyIsNull, response.body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return nil }
        return try chosen.decode(Reply?.self, from: response, operation: operation)
    }

    /// Sends a request whose reply is required: an empty or `null` body is an error naming the operation.
    func sendRequired<Reply: Decodable>(_ method: HTTPRequest.Method, _ path: String, body: (any Encodable & Sendable)? = nil,
                                        query: [(String, String)] = [], bearer: Secret<String>? = nil,
                                        retry: APIRequest.RetryMode = .automatic, operation: AuthOperation,
                                        as reply: Reply.Type) async throws -> Reply {
        let request = try makeRequest(method, path, body: body, query: query, bearer: bearer, retry: retry, operation: operation)
        return try await (bearer == nil ? client : sessionClient).send(request, as: reply)
    }

    /// The operation a code of `type` serves.
    static func operation(_ type: EmailOTPType) -> AuthOperation {
        switch type {
        case .signIn: .signIn
        case .emailVerification: .emailVerification
        case .forgetPassword: .passwordReset
        }
    }
}
