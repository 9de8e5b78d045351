import enum AuthHub.Base64URL
import enum AuthHub.JSONValue
import struct AuthHub.Secret
import func AuthHub.constantTimeEquals
import AuthHubFactors
import Crypto
import Foundation
import HTTPTypes
import Hummingbird

extension Auth0Service {
    // MARK: - Discovery

    /// `GET /.well-known/openid-configuration`, with the device authorization endpoint of RFC 8628
    /// (section 4: `device_authorization_endpoint`) and its grant type, and the DPoP proof algorithms
    /// of RFC 9449 (section 5.1: `dpop_signing_alg_values_supported`, ES256 only), and OpenID Connect
    /// Back-Channel Logout 1.0 support (section 2.1: `backchannel_logout_supported` and
    /// `backchannel_logout_session_supported`, both true, as Auth0 announces them), and client
    /// authentication (`token_endpoint_auth_methods_supported`: `client_secret_basic`,
    /// `client_secret_post`, `private_key_jwt`, `none`; `token_endpoint_auth_signing_alg_values_supported`:
    /// RS256, RS384, PS256) with pushed authorization requests (RFC 9126, section 5:
    /// `pushed_authorization_request_endpoint`, `require_pushed_authorization_requests` false
    /// tenant-wide; a client may require them).
    func discovery(_ request: Request) async -> Response {
        let issuer = await issuer(for: request)
        let document: JSONValue = [
            "issuer": .string(issuer),
            "authorization_endpoint": .string(issuer + "authorize"),
            "token_endpoint": .string(issuer + "oauth/token"),
            "userinfo_endpoint": .string(issuer + "userinfo"),
            "jwks_uri": .string(issuer + ".well-known/jwks.json"),
            "revocation_endpoint": .string(issuer + "oauth/revoke"),
            "device_authorization_endpoint": .string(issuer + "oauth/device/code"),
            "mfa_challenge_endpoint": .string(issuer + "mfa/challenge"),
            "scopes_supported": ["openid", "profile", "email", "phone", "offline_access"],
            "response_types_supported": ["code"],
            "response_modes_supported": ["query"],
            "code_challenge_methods_supported": ["S256"],
            "grant_types_supported": [
                .string(GrantType.authorizationCode), .string(GrantType.refreshToken), .string(GrantType.password),
                .string(GrantType.passwordRealm), .string(GrantType.mfaOTP), .string(GrantType.mfaRecoveryCode),
                .string(GrantType.passwordlessOTP), .string(Self.webAuthnGrant), .string(GrantType.mfaOOB),
                .string(Self.tokenExchangeGrant), .string(Self.deviceCodeGrant),
            ],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": [.string(signingKey.algorithm.rawValue)],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "private_key_jwt", "none"],
            "token_endpoint_auth_signing_alg_values_supported": .array(Auth0ClientAssertion.algorithms.map(JSONValue.string)),
            "pushed_authorization_request_endpoint": .string(issuer + "oauth/par"),
            "require_pushed_authorization_requests": false,
            "claims_supported": [
                "aud", "auth_time", "email", "email_verified", "exp", "family_name", "given_name", "iat", "iss",
                "name", "nickname", "nonce", "picture", "sid", "sub", "updated_at",
            ],
            "request_uri_parameter_supported": false,
            "dpop_signing_alg_values_supported": [.string(Auth0DPoPProof.algorithm)],
            "backchannel_logout_supported": true,
            "backchannel_logout_session_supported": true,
        ]
        return EmulatorResponse.json(document)
    }

    /// `GET /.well-known/jwks.json`.
    func jwks() async throws -> Response {
        EmulatorResponse.json(try await signingKey.jwks())
    }
}
