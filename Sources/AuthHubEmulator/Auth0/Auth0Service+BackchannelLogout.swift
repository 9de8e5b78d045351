import enum AuthHub.FormEncoding
import enum AuthHub.JSONValue
import struct AuthHub.TransportError
import struct AuthHub.URLSessionTransport
import Foundation
import HTTPTypes
import Hummingbird

/// Where one ended browser session's logout tokens go: a client and its back-channel logout URLs.
struct Auth0BackchannelTarget: Sendable {
    var clientId: String
    var urls: [String]
}

extension Auth0Service {
    // MARK: - OpenID Connect Back-Channel Logout 1.0 (the sending side)

    /// The logout token for `clientId` about `subject` and/or `sessionId` (section 2.4), signed
    /// with the tenant's key like its ID tokens: header `alg` (RS256, or ES256 when the module was
    /// created so), `kid`, `typ: "logout+jwt"`; claims `iss` (the tenant's issuer, as in its ID
    /// tokens), `aud` (the client id, a string), `iat`, `exp` (`iat` + 120 s), `jti` (16 random
    /// bytes, base64url), `events: {"http://schemas.openid.net/event/backchannel-logout": {}}`, `sub`
    /// and `sid` when given; never `nonce`. Times come from the emulator's injected clock.
    /// - Parameters:
    ///   - overrides: the test hook's claim overrides (a value replaces the claim, `null` removes it).
    ///   - type: the test hook's header `typ` override.
    /// - Returns: the compact token and its `jti` (nil when an override removed it).
    func logoutToken(
        clientId: String, subject: String?, sessionId: String?, issuer: String,
        overrides: [String: JSONValue] = [:], type: String = Auth0BackchannelLogoutDelivery.tokenType
    ) async throws -> (token: String, jti: String?) {
        let iat = now.timeIntervalSince1970.rounded(.down)
        var claims: [String: JSONValue] = [
            "iss": .string(issuer), "aud": .string(clientId), "iat": .number(iat),
            "exp": .number(iat + Auth0BackchannelLogoutDelivery.tokenLifetime), "jti": .string(randomToken(bytes: 16)),
            "events": [Auth0BackchannelLogoutDelivery.event: [:]],
        ]
        if let subject { claims["sub"] = .string(subject) }
        if let sessionId { claims["sid"] = .string(sessionId) }
        for (name, value) in overrides {
            // Not `claims[name] = nil`: JSONValue is ExpressibleByNilLiteral, so that could store `.null`.
            if value == .null { claims.removeValue(forKey: name) } else { claims.updateValue(value, forKey: name) }
        }
        return (try await signingKey.sign(claims, type: type), claims["jti"]?.stringValue)
    }

    /// Sends one logout token per target client to each of its URLs (section 2.5): `POST`,
    /// `Content-Type: application/x-www-form-urlencoded`, the single field `logout_token`; no
    /// cookies, redirects not followed, each delivery bounded by
    /// ``Auth0BackchannelLogoutDelivery/timeout``. All deliveries run at once and are awaited; a
    /// failure is recorded, never thrown. Every delivery is recorded in the tenant.
    /// - Returns: the deliveries, in the order of `targets` and their URLs.
    func deliverLogoutTokens(
        to targets: [Auth0BackchannelTarget], subject: String?, sessionId: String?, issuer: String,
        overrides: [String: JSONValue] = [:], type: String = Auth0BackchannelLogoutDelivery.tokenType
    ) async throws -> [Auth0BackchannelLogoutDelivery] {
        var pending: [(clientId: String, url: String, token: String, jti: String?)] = []
        for target in targets where !target.urls.isEmpty {
            let (token, jti) = try await logoutToken(
                clientId: target.clientId, subject: subject, sessionId: sessionId, issuer: issuer, overrides: overrides, type: type
            )
            for url in target.urls { pending.append((target.clientId, url, token, jti)) }
        }
        guard !pending.isEmpty else { return [] }
        let transport = URLSessionTransport(defaultTimeout: Auth0BackchannelLogoutDelivery.timeout, followRedirects: false,
                                            maxResponseBytes: 64 * 1024)
        let sentAt = now
        let outcomes = await withTaskGroup(of: (Int, Int?, String?).self) { group in
            for (index, delivery) in pending.enumerated() {
                group.addTask {
                    let (status, error) = await Self.post(logoutToken: delivery.token, to: delivery.url, with: transport)
                    return (index, status, error)
                }
            }
            var outcomes = [(Int?, String?)](repeating: (nil, nil), count: pending.count)
            for await (index, status, error) in group { outcomes[index] = (status, error) }
            return outcomes
        }
        let deliveries = pending.enumerated().map { index, delivery in
            Auth0BackchannelLogoutDelivery(
                clientId: delivery.clientId, url: delivery.url, sessionId: sessionId, subject: subject, jti: delivery.jti,
                logoutToken: delivery.token, status: outcomes[index].0, error: outcomes[index].1, sentAt: sentAt
            )
        }
        await state.update(Auth0Tenant.key) { tenant in tenant.record(deliveries) }
        return deliveries
    }

    /// One delivery: the status the receiver answered, or why there was none.
    private static func post(logoutToken: String, to url: String, with transport: URLSessionTransport) async -> (Int?, String?) {
        guard Auth0BackchannelLogoutDelivery.isAcceptable(url), let target = URL(string: url) else {
            return (nil, "refused: the emulator sends logout tokens only to http(s) URLs on a loopback host")
        }
        let body = Data(FormEncoding.encode([("logout_token", logoutToken)]).utf8)
        do {
            let reply = try await transport.send(
                .post, target, headerFields: [.contentType: "application/x-www-form-urlencoded", .cacheControl: "no-store"], body: body,
                timeout: Auth0BackchannelLogoutDelivery.timeout
            )
            return (reply.status, nil)
        } catch let error as TransportError {
            return (nil, "\(error.kind.rawValue): \(String(error.message.prefix(200)))")
        } catch {
            return (nil, String(String(describing: error).prefix(200)))
        }
    }

    /// The clients of an ended `session` that have back-channel logout URLs, in client-id order.
    static func backchannelTargets(of session: Auth0LoginSession, in tenant: Auth0Tenant) -> [Auth0BackchannelTarget] {
        session.clients.sorted().compactMap { clientId in
            guard let urls = tenant.clients[clientId]?.backchannelLogoutURLs, !urls.isEmpty else { return nil }
            return Auth0BackchannelTarget(clientId: clientId, urls: urls)
        }
    }

    /// `oidc_logout.backchannel_logout_urls` of a client registration (absent or null: none).
    /// - Throws: `400 invalid_request` for another shape, more than
    ///   ``Auth0BackchannelLogoutDelivery/maximumURLs`` URLs, or a URL the emulator would not send to
    ///   (``Auth0BackchannelLogoutDelivery/isAcceptable(_:)``), naming it.
    static func backchannelLogoutURLs(in value: JSONValue?) throws -> [String] {
        guard let value, value != .null else { return [] }
        guard let settings = value.objectValue else { throw Auth0Failure.invalidRequest("oidc_logout must be an object.") }
        guard let list = settings["backchannel_logout_urls"], list != .null else { return [] }
        guard let items = list.arrayValue, items.count <= Auth0BackchannelLogoutDelivery.maximumURLs else {
            throw Auth0Failure.invalidRequest(
                "oidc_logout.backchannel_logout_urls must be an array of at most \(Auth0BackchannelLogoutDelivery.maximumURLs) URLs."
            )
        }
        var urls: [String] = []
        for item in items {
            guard let url = item.stringValue else {
                throw Auth0Failure.invalidRequest("oidc_logout.backchannel_logout_urls must contain strings.")
            }
            guard Auth0BackchannelLogoutDelivery.isAcceptable(url) else {
                throw Auth0Failure.invalidRequest(
                    "oidc_logout.backchannel_logout_urls: \(String(url.prefix(200))) is not an http(s) URL on a loopback host "
                        + "(127.0.0.0/8, [::1], localhost) without a fragment; the emulator sends logout tokens to nothing else."
                )
            }
            if !urls.contains(url) { urls.append(url) }
        }
        return urls
    }

    /// The longest `client_id`, `sub` or `sid` the logout-token hook takes.
    static let maximumLogoutHookField = 256

    /// `POST /auth0/__emulator/logout-token` (emulator only): a genuine logout token on demand.
    ///
    /// Body `{client_id, sub?, sid?, send?: Bool, claims?: {…}, typ?: String}`: at least one of
    /// `sub` and `sid` (section 2.4 requires one), each at most 256 characters. `claims` overrides
    /// claims of the token (a value replaces, `null` removes; at most 32), `typ` the header's `typ`
    /// (at most 64 characters) — for a receiver's negative tests with a correctly signed token.
    /// Without `send` (or `send: false`) the reply is `200 {logout_token}` and nothing is sent;
    /// with `send: true` the token is delivered to the client's registered back-channel logout URLs
    /// (`400 invalid_request` when it has none) exactly as a logout would, recorded, and the reply
    /// is `200 {logout_token, deliveries: [...]}`.
    func logoutTokenHook(_ request: Request) async throws -> Response {
        let parameters = try await Auth0Parameters.body(of: request)
        let limit = Self.maximumLogoutHookField
        let clientId = try parameters.required("client_id")
        let subject = parameters.string("sub"), sessionId = parameters.string("sid")
        guard clientId.count <= limit, (subject?.count ?? 0) <= limit, (sessionId?.count ?? 0) <= limit else {
            throw Auth0Failure.invalidRequest("client_id, sub and sid must be at most \(limit) characters.")
        }
        guard subject != nil || sessionId != nil else { throw Auth0Failure.invalidRequest("Send sub, sid or both.") }
        var overrides: [String: JSONValue] = [:]
        if let value = parameters["claims"], value != .null {
            guard let object = value.objectValue, object.count <= 32 else {
                throw Auth0Failure.invalidRequest("claims must be an object of at most 32 members.")
            }
            overrides = object
        }
        var type = Auth0BackchannelLogoutDelivery.tokenType
        if let value = parameters["typ"], value != .null {
            guard let text = value.stringValue, (1...64).contains(text.count) else {
                throw Auth0Failure.invalidRequest("typ must be a string of 1 to 64 characters.")
            }
            type = text
        }
        var send = false
        if let value = parameters["send"], value != .null {
            guard let flag = value.boolValue else { throw Auth0Failure.invalidRequest("send must be a boolean.") }
            send = flag
        }
        let issuer = await issuer(for: request)
        guard send else {
            let (token, _) = try await logoutToken(
                clientId: clientId, subject: subject, sessionId: sessionId, issuer: issuer, overrides: overrides, type: type
            )
            return EmulatorResponse.json(["logout_token": .string(token)], headers: [.cacheControl: "no-store"])
        }
        let urls = await state.get(Auth0Tenant.key).clients[clientId]?.backchannelLogoutURLs ?? []
        guard !urls.isEmpty else {
            throw Auth0Failure.invalidRequest("The client \(clientId) has no oidc_logout.backchannel_logout_urls.")
        }
        let deliveries = try await deliverLogoutTokens(
            to: [Auth0BackchannelTarget(clientId: clientId, urls: urls)], subject: subject, sessionId: sessionId,
            issuer: issuer, overrides: overrides, type: type
        )
        return EmulatorResponse.json([
            "logout_token": .string(deliveries.first?.logoutToken ?? ""), "deliveries": .array(deliveries.map(\.json)),
        ], headers: [.cacheControl: "no-store"])
    }

    /// `GET /auth0/__emulator/backchannel-logouts[?client_id=…]` (emulator only): the recorded
    /// deliveries, oldest first, `{deliveries: [{client_id, url, sid, sub, jti, logout_token, status,
    /// error, sent_at}]}`, only those of `client_id` when given.
    func backchannelLogouts(_ request: Request) async -> Response {
        let clientId = Auth0Parameters.query(of: request).string("client_id")
        let deliveries = await state.get(Auth0Tenant.key).backchannelLogouts.filter { clientId == nil || $0.clientId == clientId }
        return EmulatorResponse.json(["deliveries": .array(deliveries.map(\.json))], headers: [.cacheControl: "no-store"])
    }
}
