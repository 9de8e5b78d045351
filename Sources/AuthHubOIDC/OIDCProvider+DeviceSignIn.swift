import AuthHub
import Foundation

/// Device sign-in (RFC 8628) with any OpenID provider whose discovery document names a
/// `device_authorization_endpoint` (or whose entry sets `deviceAuthorizationEndpoint`): the code request carries the configured scopes (or the
/// options' scope) and, when given, `audience`; the tokens' ID token is validated as for a code
/// exchange without a nonce (issuer, client, expiry, signature).
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
            return try await deviceTokenClient(metadata).requestDeviceAuthorization(endpoint: endpoint.absoluteString, scope: scope,
                                                                                  parameters: parameters)
        } catch {
            throw AuthError.wrap(error, provider: id)
        }
    }

    public func pollDeviceSignIn(_ authorization: DeviceAuthorization, options: DeviceSignInOptions) async throws -> DevicePollResult {
        do {
            let metadata = try await metadata()
            switch try await deviceTokenClient(metadata).pollDeviceCode(authorization.deviceCode) {
            case .pending: return .pending
            case .slowDown: return .slowDown
            case .tokens(let tokens):
                let expectations = IDTokenExpectations(issuer: metadata.issuer, clientId: configuration.clientId, leeway: configuration.leeway)
                return .approved(try await deviceSession(from: tokens, expecting: expectations,
                                                         scope: options.scope ?? configuration.scopes.joined(separator: " ")))
            }
        } catch {
            throw AuthError.wrap(error, provider: id)
        }
    }
}
