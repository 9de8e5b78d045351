import Foundation
import HTTPTypes

extension Session {
    /// The header fields that send this session's access token with one request: `Authorization:
    /// Bearer <token>`, or for a DPoP-bound session `Authorization: DPoP <token>` and a `DPoP` proof
    /// for this method and URL (RFC 9449, section 7.1: `ath` of the token, the server's `nonce` when
    /// given).
    /// - Parameters:
    ///   - method: the request's method.
    ///   - url: the request's URL (its query and fragment are left out of the proof).
    ///   - nonce: the resource server's latest `DPoP-Nonce`, if it gave one.
    ///   - now: the proof's issue time.
    /// - Throws: ``AuthErrorCode/invalidRequest`` when a DPoP-bound session's key cannot be read.
    public func authorizationHeaders(method: HTTPRequest.Method, url: URL, nonce: String? = nil, now: Date = Date(),
                                     random: any RandomSource = SystemRandom()) throws -> HTTPFields {
        var fields: HTTPFields = [:]
        guard isDPoPBound else {
            fields[.authorization] = "Bearer " + accessToken.revealed()
            return fields
        }
        guard let key = try dpopKey() else {
            throw AuthError(.invalidRequest, message: "The session's tokens are DPoP-bound, but it holds no DPoP key.", provider: providerID,
                            details: ["reason": "missingDPoPKey"])
        }
        fields[.authorization] = "DPoP " + accessToken.revealed()
        fields[APIClient.dpopField] = try key.proof(method: method.rawValue, url: url, accessToken: accessToken, nonce: nonce,
                                                    now: now, random: random).revealed()
        return fields
    }
}

extension AuthHub {
    /// The header fields that call an API with the session of `provider`/`account` (renewed first
    /// when it expires within `minTTL`): see ``Session/authorizationHeaders(method:url:nonce:now:random:)``.
    /// The proof carries the API's latest `DPoP-Nonce` this hub has seen.
    public func authorizationHeaders(provider id: String? = nil, account: String = SessionKey.defaultAccount,
                                     method: HTTPRequest.Method, url: URL, minTTL: TimeInterval = 60) async throws -> HTTPFields {
        let session = try await session(provider: id, account: account, minTTL: minTTL)
        return try session.authorizationHeaders(method: method, url: url, nonce: context.dpopNonces.nonce(for: url),
                                                now: context.clock.now, random: context.random)
    }

    /// A transport that calls the API at `origin` with the session of `provider`/`account`: see
    /// ``AuthorizedTransport``.
    public func authorizedTransport(origin: URL, provider id: String? = nil, account: String = SessionKey.defaultAccount,
                                    transport: (any HTTPTransport)? = nil) -> AuthorizedTransport {
        AuthorizedTransport(hub: self, origin: origin, provider: id, account: account, transport: transport ?? context.transport)
    }
}

/// An ``HTTPTransport`` that sends an app's requests to its own API with the user's session:
/// `Authorization` (and, for a DPoP-bound session, a fresh `DPoP` proof per request) added to each
/// request, the session renewed first when it expires within a minute, and a resource server's
/// `use_dpop_nonce` challenge (RFC 9449, section 9) answered by sending the request once more with
/// the nonce it gave (kept for the next requests).
///
/// Credentials never cross origins: a request to any scheme, host or port other than `origin`'s is
/// refused (``AuthErrorCode/invalidRequest``) before anything is sent, and a request that already
/// carries `Authorization` or `DPoP` is refused too (the caller's value would be replaced silently).
public struct AuthorizedTransport: HTTPTransport {
    let hub: AuthHub
    /// The origin (scheme, host, port) of the API the session's token is sent to.
    public let origin: URL
    let provider: String?
    let account: String
    let transport: any HTTPTransport

    init(hub: AuthHub, origin: URL, provider: String?, account: String, transport: any HTTPTransport) {
        self.hub = hub
        self.origin = origin
        self.provider = provider
        self.account = account
        self.transport = transport
    }

    public func send(_ request: HTTPRequest, body: Data?, timeout: Duration?) async throws -> HTTPReply {
        guard let url = request.url, DPoPNonceCache.origin(url) == DPoPNonceCache.origin(origin) else {
            throw AuthError(.invalidRequest, message: "The request goes to another origin than the API this transport authorizes for; "
                            + "the session's token is not sent there.", details: ["reason": "crossOrigin"])
        }
        guard request.headerFields[.authorization] == nil, request.headerFields[APIClient.dpopField] == nil else {
            throw AuthError(.invalidRequest, message: "The request already carries Authorization or DPoP.", details: ["reason": "credentialsGiven"])
        }
        let session = try await hub.session(provider: provider, account: account, minTTL: 60)
        let nonces = hub.context.dpopNonces
        var nonce = nonces.nonce(for: url)
        var retried = false
        while true {
            var head = request
            let fields = try session.authorizationHeaders(method: request.method, url: url, nonce: nonce, now: hub.context.clock.now,
                                                          random: hub.context.random)
            for field in fields { head.headerFields.append(field) }
            let reply = try await transport.send(head, body: body, timeout: timeout)
            guard session.isDPoPBound, let given = reply.head.headerFields[APIClient.dpopNonceField], DPoPNonceCache.isValidNonce(given) else {
                return reply
            }
            nonces.remember(given, for: url)
            guard !retried, APIClient.isNonceChallenge(reply) else { return reply }
            retried = true
            nonce = given
        }
    }
}
