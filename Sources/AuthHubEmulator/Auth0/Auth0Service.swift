import enum AuthHub.Base64URL
import enum AuthHub.JSONValue
import struct AuthHub.Secret
import func AuthHub.constantTimeEquals
import AuthHubFactors
import Crypto
import Foundation
import HTTPTypes
import Hummingbird

/// The Auth0 Authentication API of the emulator: the handlers behind ``Auth0EmulatorModule``'s
/// routes, written from AuthHubAuth0 docs, Auth0Endpoints: “Conventions”, “Web Auth”, “ID-token validation”, “Authentication API”, “Credentials manager”, “Models”; AuthHubAuth0 docs, Auth0Errors.
///
/// Token shapes: access tokens and refresh tokens are opaque random strings (the emulator keeps
/// only their SHA-256 digests); ID tokens are JWTs signed with the instance's ``Auth0SigningKey``
/// (RS256, or ES256 when the module was created so). Lifetimes follow Auth0's defaults: access
/// tokens 86 400 s, ID tokens 36 000 s, authorization codes and MFA tokens 600 s. Every time comes
/// from the emulator's injected clock.
struct Auth0Service: Sendable {
    /// The path prefix of the module.
    static let prefix = "/auth0"
    static let accessTokenLifetime: TimeInterval = 86_400
    static let idTokenLifetime: TimeInterval = 36_000
    static let codeLifetime: TimeInterval = 600
    static let mfaTokenLifetime: TimeInterval = 600
    static let loginLifetime: TimeInterval = 1_800
    /// The scope of a login request that sends none.
    static let defaultScope = "openid profile email"

    /// Grant-type URNs (AuthHubAuth0 docs, Auth0Endpoints: “Authentication API”).
    enum GrantType {
        static let password = "password"
        static let passwordRealm = "http://auth0.com/oauth/grant-type/password-realm"
        static let authorizationCode = "authorization_code"
        static let refreshToken = "refresh_token"
        static let mfaOTP = "http://auth0.com/oauth/grant-type/mfa-otp"
        static let mfaRecoveryCode = "http://auth0.com/oauth/grant-type/mfa-recovery-code"
        static let passwordlessOTP = "http://auth0.com/oauth/grant-type/passwordless/otp"
        static let mfaOOB = "http://auth0.com/oauth/grant-type/mfa-oob"
    }

    let environment: EmulatorEnvironment
    let signingKey: Auth0SigningKey

    var state: EmulatorState { environment.state }
    var now: Date { environment.clock.now }

    /// A fresh random token: 32 bytes, base64url.
    func randomToken(bytes: Int = 32) -> String { Base64URL.encode(environment.random.bytes(bytes)) }

    /// The tenant's issuer, `http://HOST:PORT/auth0/` with the trailing slash (AuthHubAuth0 docs, Auth0Endpoints: “ID-token validation”: the
    /// expected issuer is the domain URL with a trailing `/`).
    func issuer(for request: Request) async -> String {
        if let base = await state.baseURL {
            return base.absoluteString + Self.prefix + "/"
        }
        let host = request.head.authority ?? "127.0.0.1"
        return "http://\(host)\(Self.prefix)/"
    }
}
