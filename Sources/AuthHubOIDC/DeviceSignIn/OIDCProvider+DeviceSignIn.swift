import AuthHub
import Foundation

/// Device sign-in (RFC 8628) with any OpenID provider whose discovery document names a
/// `device_authorization_endpoint` (or whose entry sets `deviceAuthorizationEndpoint`): the code
/// request carries the configured scopes (or the options' scope) and, when given, `audience`; the
/// tokens' ID token is validated as for a code exchange without a nonce (issuer, client, expiry,
/// signature). A reply without an ID token (a provider with a plain OAuth device grant) names the
/// user through the userinfo endpoint instead.
extension OIDCProvider: DeviceSignInProvider {
    public func startDeviceSignIn(options: DeviceSignInOptions) async throws -> DeviceAuthorization {
        do {
            let metadata = try await metadata()
            guard let endpoint = metadata.deviceAuthorizationEndpoint ?? configuration.deviceAuthorizationEndpoint else {
                throw AuthError(.unsupported, message: "The OpenID provider '\(id)' offers no device sign-in (its discovery document has no device_authorization_endpoint; set deviceAuthorizationEndpoint in providers.json if it has one).",
                                provider: id)
            }
            let scope = options.scope ?? configuration.scopes.joined(separator: " ")
            var parameters: [(String, String)] = []
            if let audience = options.audience { parameters.append(("audience", audience)) }
            var authorization = try await deviceTokenClient(metadata)
                .requestDeviceAuthorization(endpoint: endpoint.absoluteString, scope: scope, parameters: parameters)
            if configuration.dpop { authorization.dpopKey = DPoPKey() }
            return authorization
        } catch {
            throw AuthError.wrap(error, provider: id)
        }
    }

    public func pollDeviceSignIn(_ authorization: DeviceAuthorization, options: DeviceSignInOptions) async throws -> DevicePollResult {
        do {
            let metadata = try await metadata()
            switch try await deviceTokenClient(metadata, dpopKey: authorization.dpopKey).pollDeviceCode(authorization.deviceCode) {
            case .pending: return .pending
            case .slowDown: return .slowDown
            case .tokens(let tokens):
                let scope = options.scope ?? configuration.scopes.joined(separator: " ")
                guard !tokens.idToken.isEmpty else {
                    return .approved(try await sessionFromUserInfo(tokens, metadata: metadata, scope: scope))
                }
                let expectations = IDTokenExpectations(issuer: metadata.issuer, clientId: configuration.clientId, leeway: configuration.leeway)
                return .approved(try await deviceSession(from: tokens, expecting: expectations, scope: scope))
            }
        } catch {
            throw AuthError.wrap(error, provider: id)
        }
    }

    /// The session of a device grant that returned no ID token (RFC 8628 requires none, and providers
    /// built on a plain OAuth device grant send none): the user is read from the `userinfo_endpoint`
    /// with the new access token (OpenID Connect Core, section 5.3), which must name a `sub`.
    /// - Throws: ``AuthErrorCode/invalidRequest`` when the provider has no userinfo endpoint or its
    ///   reply is not a JSON object with a non-empty `sub`; mapped errors of the request.
    func sessionFromUserInfo(_ tokens: OIDCTokenResponse, metadata: OIDCProviderMetadata, scope: String) async throws -> Session {
        guard let endpoint = metadata.userinfoEndpoint else {
            throw AuthError(.invalidRequest, message: "The device sign-in returned no ID token and '\(id)' has no userinfo endpoint to name the user.",
                            provider: id, details: ["field": "id_token"])
        }
        let tokenType = tokens.tokenType.isEmpty ? "Bearer" : tokens.tokenType
        var request = APIRequest(.get, endpoint.absoluteString, headerFields: [.authorization: tokenType + " " + tokens.accessToken.revealed()],
                                 operation: .userInfo)
        request.dpop = tokens.dpopKey.map { DPoPProofing(key: $0, accessToken: tokens.accessToken) }
        let reply = try await api.send(request)
        guard let claims = (try? JSONValue.parse(reply.body))?.objectValue, let subject = claims["sub"]?.stringValue, !subject.isEmpty else {
            throw AuthError(.invalidRequest, message: "The userinfo reply of '\(id)' names no user (sub).", provider: id,
                            statusCode: reply.status, details: ["field": "sub", "operation": AuthOperation.userInfo.rawValue])
        }
        return Session(providerID: id, accessToken: tokens.accessToken, tokenType: tokenType, refreshToken: tokens.refreshToken,
                       expiresAt: tokens.expiresAt, scope: tokens.scope ?? scope, userID: subject, claims: claims,
                       secretExtras: Session.secretExtras(dpopKey: tokens.dpopKey), issuedAt: context.clock.now)
    }
}
