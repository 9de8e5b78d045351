import enum AuthHub.JSONValue
import Hummingbird

/// The Turnkey share of the emulator (AuthHubTurnkey docs, TurnkeyProtocol):
/// - `/turnkey/…` stands in for `https://api.turnkey.com` (`/turnkey/public/v1/query/<name>`,
///   `/turnkey/public/v1/submit/<name>`); point a client's base URL at `http://HOST:PORT/turnkey`.
/// - `/turnkey-proxy/…` stands in for the app backend's proxy (`/turnkey-proxy/proxy/sub-org-ids`,
///   `POST /turnkey-proxy/auth/createSubOrg` for sign-up).
///
/// Served (AuthHubTurnkey docs, TurnkeyProtocol: “Email lookup” and “Activities”), every `POST` body JSON and stamped (AuthHubTurnkey docs, TurnkeyProtocol: “Stamping”) over its exact bytes:
/// - `GET /turnkey-proxy/proxy/sub-org-ids?filterType=EMAIL|USERNAME|CREDENTIAL_ID|NAME|PUBLIC_KEY|…
///   &filterValue=…[&organizationId=<parent>]` → `{"organizationIds": […]}` (no stamp; every parent
///   organization is searched unless `organizationId` is given; `EMAIL`, `USERNAME` and `NAME`
///   ignore case; `[]` when nothing matches).
/// - `query/list_suborgs` `{organizationId, filterType?, filterValue?, paginationOptions?}` →
///   `{"organizationIds"}`; the stamp's key must belong to that (parent) organization itself.
///   Pagination is ignored; no filter lists every sub-organization.
/// - `submit/stamp_login` (`ACTIVITY_TYPE_STAMP_LOGIN`) `parameters {publicKey, expirationSeconds?
///   ("900"), invalidateExisting?}` → activity with `result.stampLoginResult.session`: a session JWT
///   (AuthHubTurnkey docs, TurnkeyProtocol: “Session JWT”) signed by the emulator's notarizer key (prehashed double SHA-256, raw r||s); the public
///   key becomes a session key of the stamping user until `exp`. `invalidateExisting: true`
///   removes the user's other session keys.
/// - `submit/create_read_write_session` (`ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2`)
///   `parameters {targetPublicKey, userId?, apiKeyName?, expirationSeconds?, invalidateExisting?}`
///   → `result.createReadWriteSessionResultV2 {organizationId, organizationName, userId, username,
///   apiKeyId, credentialBundle}`: a new P-256 session key whose raw private key is HPKE-sealed to
///   `targetPublicKey` (AuthHubTurnkey docs, TurnkeyProtocol: “Bundles”) and base58check-encoded.
/// - `query/whoami` `{organizationId}` → `{organizationId, organizationName, userId, username}` of
///   the stamping user; `query/get_activity` `{organizationId, activityId}` → `{"activity"}`.
/// - `query/get_authenticators` `{organizationId, userId}` → `{"authenticators": [{authenticatorId,
///   authenticatorName, credentialId (base64url), aaguid, model (""), transports, attestationType,
///   credential: {publicKey (compressed hex), type}, createdAt, updatedAt}]}`: the user's passkeys (the
///   one sign-up registered, then those added); the stamp's key must belong to that organization or
///   its parent.
/// - `submit/create_authenticators` (`ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2`) `parameters
///   {authenticators: [{authenticatorName, challenge, attestation: {credentialId, clientDataJson,
///   attestationObject, transports}}], userId}` → `result.createAuthenticatorsResult
///   {authenticatorIds}`; each registration verified as at sign-up.
/// - `submit/delete_authenticators` (`ACTIVITY_TYPE_DELETE_AUTHENTICATORS`) `parameters {userId,
///   authenticatorIds}` → `result.deleteAuthenticatorsResult {authenticatorIds}`. Removing the
///   user's last passkey is refused, `400` code 9 (the emulator's choice: Turnkey's reference is silent).
///   Both activities need a key of the named organization itself (`403` code 7 otherwise); an
///   unknown user or authenticator is `404` code 5.
///
/// Conventions (the spec is silent):
/// - Stamps are verified for real. No stamp header → `401` code 16 `request not authenticated: …`;
///   both headers, or a malformed one → `400` code 3; an `X-Stamp` signature that does not verify
///   or a passkey assertion that fails (challenge = ascii(hex(SHA-256(body))), RP ID hash, type,
///   origin `https://<rpId>` or a subdomain — `http` allowed on localhost —, signature, sign
///   counter) → `401` code 16 `invalid stamp signature: …`; a key or passkey not registered in the
///   organization, its parent, or (for a parent) one of its sub-organizations → `401` code 16
///   `could not find public key in organization or its parent organization`; a registered but
///   expired key → `401` code 17 `Unauthenticated desc = expired api key publicKey`.
/// - A passkey or key presented with a parent organization id acts for its own (sub-)organization:
///   the session, activity and whoami belong to the owner's organization.
/// - Activities: `type` must match the route, `timestampMs` is a decimal string at most 24 h old and
///   1 h ahead of the emulator clock, `expirationSeconds` 1 s…1 year. Bad JSON, missing or mistyped
///   fields → `400` code 3 with a `google.rpc.BadRequest` detail. Times use the emulator clock.
/// - Errors are `{"code","message","details"}` (AuthHubTurnkey docs, TurnkeyErrors): 3→400, 5→404, 6→409, 7→403, 9→400, 16/17→401, 13→500.
///
/// Emulator hooks (not Turnkey; no stamp):
/// - `POST /turnkey/__emulator/users` `{parentOrganizationId? ("00000000-0000-4000-8000-0000000000aa"),
///   email, userName? (email), subOrganizationName?, authenticator: {authenticatorName?, challenge
///   (base64url of the registration challenge), attestation: {credentialId, clientDataJson,
///   attestationObject (base64url), transports?}}}` → `{organizationId, userId, authenticatorId}`.
///   The registration is verified against the configured RP ID (`none` attestation verified,
///   others accepted unattested); failure → `400` code 3. An email already used under the parent,
///   or a passkey already registered → `409` code 6. Parent organizations (with a root user) are
///   created on first use.
/// - `POST /turnkey/__emulator/api-keys` `{organizationId, publicKey (compressed hex),
///   expirationSeconds?, apiKeyName?}` → `{apiKeyId, organizationId, userId}`: a key on the
///   organization's first user (root user of a parent, created on first use).
/// - `GET /turnkey/__emulator/notarizer` → `{"publicKey": "04…"}`: the session-JWT signing key,
///   made when the emulator starts.
/// - `GET|PATCH /turnkey/__emulator/config` `{rpId ("localhost"), activityPendingPolls (0: activities
///   complete at once; N: `PENDING` until the N-th get_activity poll, which completes them),
///   nextActivityOutcome (null; one-shot `ACTIVITY_STATUS_FAILED` — HTTP 200 with `failure`, no key
///   created —, `_REJECTED` or `_CONSENSUS_NEEDED`), proxyLookup (true; false: the proxy plays a
///   backend serving only `POST /auth/createSubOrg`, like Turnkey's example backend, and
///   `GET /turnkey-proxy/proxy/sub-org-ids` is a plain-text `404`)}`.
///
/// Not served: the auth proxy (`/v1/account`, signup), other activities and queries (404).
public struct TurnkeyEmulatorModule: EmulatorModule {
    public let name = "turnkey"
    public let pathPrefixes = ["/turnkey", "/turnkey-proxy"]

    public init() {}

    /// Registers the Turnkey routes: a route collection under each prefix, whose unforeseen errors
    /// answer `500` code 13.
    public func register(routes: EmulatorRouteBuilder, environment: EmulatorEnvironment) {
        let service = TurnkeyService(environment: environment)
        let turnkey = RouteCollection(failures: TurnkeyFailure.self)
        let api = turnkey.group("public/v1")
        let posts: [(String, @Sendable (Request) async throws -> JSONValue)] = [
            ("query/list_suborgs", service.listSubOrgs), ("query/whoami", service.whoami),
            ("query/get_activity", service.getActivity), ("submit/stamp_login", service.stampLogin),
            ("submit/create_read_write_session", service.createReadWriteSession),
            ("query/get_authenticators", service.getAuthenticators), ("submit/create_authenticators", service.createAuthenticators),
            ("submit/delete_authenticators", service.deleteAuthenticators),
        ]
        for (path, handler) in posts {
            api.post(RouterPath(path)) { request, _ in EmulatorResponse.json(try await handler(request)) }
        }
        let hooks = turnkey.group("__emulator")
        hooks.post("users") { request, _ in EmulatorResponse.json(try await service.registerUser(request)) }
        hooks.post("api-keys") { request, _ in EmulatorResponse.json(try await service.registerAPIKey(request)) }
        hooks.get("notarizer") { _, _ in EmulatorResponse.json(service.notarizerKey()) }
        hooks.get("config") { _, _ in EmulatorResponse.json(await service.getConfig()) }
        hooks.patch("config") { request, _ in EmulatorResponse.json(try await service.patchConfig(request)) }
        routes.addRoutes(turnkey, atPath: "/turnkey")

        let proxy = RouteCollection(failures: TurnkeyFailure.self)
        proxy.get("proxy/sub-org-ids") { request, _ in
            guard await service.servesProxyLookup() else {
                // A backend with no such route (Turnkey's example backend): a framework's plain 404.
                return Response(status: .notFound, headers: [.contentType: "text/html; charset=utf-8"],
                                body: ResponseBody(byteBuffer: ByteBuffer(string: "Cannot GET /proxy/sub-org-ids")))
            }
            return EmulatorResponse.json(try await service.proxySubOrgIds(request))
        }
        proxy.post("auth/createSubOrg") { request, _ in EmulatorResponse.json(try await service.proxyCreateSubOrg(request)) }
        routes.addRoutes(proxy, atPath: "/turnkey-proxy")
    }

    /// Turnkey's gRPC-status body (AuthHubTurnkey docs, TurnkeyErrors) with code 5 (`NOT_FOUND`).
    public func notFoundBody() -> JSONValue {
        ["code": 5, "message": "Not Found", "details": []]
    }
}
