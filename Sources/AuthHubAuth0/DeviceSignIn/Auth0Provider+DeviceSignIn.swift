import AuthHub
import AuthHubOIDC
import Foundation

/// Device sign-in (RFC 8628) with Auth0: `POST /oauth/device/code` with `client_id`, `scope` and
/// `audience` chosen as for Web Auth (the options', else the entry's; `openid` always included),
/// then `POST /oauth/token` with the device-code grant until the user approves at the tenant's
/// activation page. The ID token is validated (signature, issuer, client, times) like a code
/// exchange's. Auth0's pending, slow-down, denied and expired answers are the OAuth codes of
/// RFC 8628 (see <doc:Auth0Endpoints>, “Device authorization”).
extension Auth0Provider: DeviceSignInProvider {
    public func startDeviceSignIn(options: DeviceSignInOptions) async throws -> DeviceAuthorization {
        do {
            let scope = OIDCAuthorizationRequest.includingOpenID(options.scope ?? configuration.scope)
            var parameters: [(String, String)] = []
            if let audience = options.audience ?? configuration.audience { parameters.append(("audience", audience)) }
            var authorization = try await formTokenClient(dpopKey: nil)
                .requestDeviceAuthorization(endpoint: "oauth/device/code", scope: scope, parameters: parameters)
            if configuration.dpop { authorization.dpopKey = DPoPKey() }
            return authorization
        } catch let error as AuthError where error.providerCode == "unauthorized_client" {
            // The application has not enabled the grant (or is not a public client): say where to fix it.
            throw error.with(code: .invalidConfiguration, message: "Auth0 refused device sign-in for client '\(configuration.clientId)': \(error.message) "
                                 + "Enable the Device Code grant in the application's Advanced Settings (Grant Types); the application "
                                 + "must be a public client (Token Endpoint Authentication Method: None).",
                             provider: id)
        } catch {
            throw AuthError.wrap(error, provider: id)
        }
    }

    public func pollDeviceSignIn(_ authorization: DeviceAuthorization, options: DeviceSignInOptions) async throws -> DevicePollResult {
        do {
            switch try await formTokenClient(dpopKey: authorization.dpopKey).pollDeviceCode(authorization.deviceCode) {
            case .pending: return .pending
            case .slowDown: return .slowDown
            case .tokens(let tokens):
                let claims = try await idTokenValidator.validate(
                    tokens.idToken, expecting: IDTokenExpectations(issuer: webAuth.issuer, clientId: configuration.clientId,
                                                                   leeway: configuration.leeway))
                return .approved(Session(providerID: id, accessToken: tokens.accessToken,
                                         tokenType: tokens.tokenType.isEmpty ? "Bearer" : tokens.tokenType, idToken: tokens.idToken,
                                         refreshToken: tokens.refreshToken, expiresAt: tokens.expiresAt,
                                         scope: tokens.scope ?? options.scope ?? configuration.scope, userID: claims.subject,
                                         claims: claims.claims.filter { !["nonce", "at_hash", "c_hash"].contains($0.key) },
                                         secretExtras: Session.secretExtras(dpopKey: tokens.dpopKey),
                                         issuedAt: context.clock.now))
            }
        } catch {
            throw AuthError.wrap(error, provider: id)
        }
    }

    /// The form-encoded client of the requests Auth0 documents as forms — the device flow's two and
    /// the pushed authorization request — through the Authentication API's client (its error mapper
    /// and `Auth0-Client` header), with a confidential application's authentication (assertions to
    /// the tenant's base URL).
    func formTokenClient(dpopKey: DPoPKey?) -> OIDCTokenClient {
        OIDCTokenClient(api: authentication.api, tokenEndpoint: "oauth/token", clientId: configuration.clientId, bodyEncoding: .form,
                        dpopKey: dpopKey, clientAuthentication: configuration.clientAuthentication,
                        assertionAudience: configuration.baseURL.absoluteString)
    }
}
