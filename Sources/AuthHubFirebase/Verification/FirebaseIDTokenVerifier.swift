import AuthHub
import Foundation
import JWTKit

/// Verifies Firebase ID tokens by firebase-admin's rules (<doc:FirebaseEndpoints>: “ID-token verification”), in two modes.
///
/// **Production** (``Mode/production(_:)``): the header must say `alg: RS256` and name a `kid`;
/// the signature must verify (jwt-kit) with Google's key of that `kid` from a
/// ``FirebasePublicKeyCache`` (JWKS or X.509 map, cached by `max-age`, one rate-limited refetch for
/// an unknown `kid`). `alg: none` is ALWAYS rejected in this mode, as are HS256 and every other
/// algorithm — before any key is looked at.
///
/// **Emulator** (``Mode/emulator``, chosen only when the configuration has an `emulatorHost`): the
/// Auth emulator signs nothing, so the token must be `alg: none` with an EMPTY signature (<doc:FirebaseEndpoints>: “Emulator tokens”); no
/// key is fetched. The claims are checked exactly as in production.
///
/// Claims, in order: `aud == projectId` (a custom token's Identity Toolkit audience is called out),
/// `iss == https://securetoken.google.com/<projectId>`, `sub` a non-empty string of at most 128
/// characters, `exp` in the future, `iat` in the past, and `auth_time` in the past when present
/// (the emulator and Google always send it; tokens without it are accepted). "Past" and
/// "future" tolerate ``leeway`` seconds of clock skew (30 by default: a token minted by a server
/// whose clock runs slightly ahead is not refused; firebase-admin allows up to 5 minutes).
///
/// Every rejection is an ``AuthErrorCode/invalidToken`` error with `details["reason"]` naming the
/// failed check: `format`, `alg`, `kid`, `signature`, `aud`, `iss`, `sub`, `exp`, `iat`,
/// `auth_time`. Failing to FETCH the keys is not a rejection: that error (network, 5xx, …) is
/// thrown as it is, so a caller can retry.
public struct FirebaseIDTokenVerifier: Sendable {
    /// How signatures are checked.
    public enum Mode: Sendable {
        /// RS256 with Google's keys.
        case production(FirebasePublicKeyCache)
        /// Unsigned emulator tokens (`alg: none`, empty signature).
        case emulator
    }

    /// The audience of Firebase custom tokens, which must never pass as ID tokens.
    public static let customTokenAudience =
        "https://identitytoolkit.googleapis.com/google.identity.identitytoolkit.v1.IdentityToolkit"

    /// The project whose tokens are accepted.
    public let projectId: String
    /// Production or emulator.
    public let mode: Mode
    /// The clock `exp`, `iat` and `auth_time` are compared with.
    public let clock: any AuthClock
    /// Clock skew tolerated, in seconds.
    public let leeway: TimeInterval
    /// The provider id errors are attributed to.
    public let provider: String?

    /// The expected `iss`.
    public var issuer: String { "https://securetoken.google.com/\(projectId)" }

    /// Creates a verifier.
    public init(projectId: String, mode: Mode, clock: any AuthClock, leeway: TimeInterval = 30, provider: String? = nil) {
        self.projectId = projectId
        self.mode = mode
        self.clock = clock
        self.leeway = leeway
        self.provider = provider
    }

    /// The verifier a configuration calls for: emulator mode exactly when `emulatorHost` is set,
    /// else production mode with Google's keys from `keySource` fetched through `context`'s transport.
    public init(configuration: FirebaseConfiguration, context: ProviderContext, keySource: FirebasePublicKeyCache.Source = .googleJWKS,
                provider: String? = nil, leeway: TimeInterval = 30) {
        let mode: Mode
        if configuration.usesEmulator {
            mode = .emulator
        } else {
            let api = APIClient(provider: provider ?? "firebase", baseURL: URL(string: "https://www.googleapis.com/") ?? URL(fileURLWithPath: "/"),
                                context: context, errorMapper: StatusErrorMapper())
            mode = .production(FirebasePublicKeyCache(source: keySource, api: api, clock: context.clock))
        }
        self.init(projectId: configuration.projectId, mode: mode, clock: context.clock, leeway: leeway, provider: provider)
    }

    /// The header and payload of a compact JWT, NOT verified; nil when it is not three parts
    /// holding base64url JSON objects.
    public static func decode(_ token: Secret<String>) -> (header: [String: JSONValue], payload: [String: JSONValue])? {
        JWTParts.decode(token)
    }

    /// Verifies a token.
    /// - Returns: the verified claims.
    /// - Throws: ``AuthErrorCode/invalidToken`` with `details["reason"]`; or the key fetch's error.
    public func verify(_ token: Secret<String>) async throws -> FirebaseIDToken {
        let raw = token.revealed()
        guard let (header, payload) = Self.decode(token) else {
            throw reject("format", "The ID token is not a well-formed JWT.")
        }
        let alg = header["alg"]?.stringValue ?? ""
        let unsigned: Bool
        switch mode {
        case .emulator:
            guard alg == "none" else {
                throw reject("alg", "The Auth emulator's ID tokens are unsigned; this one says alg \(alg).", ["alg": alg])
            }
            // decode found exactly three parts: the signature is empty when the token ends with the second dot.
            guard raw.utf8.last == UInt8(ascii: ".") else { throw reject("signature", "An unsigned ID token must have an empty signature.") }
            unsigned = true
        case .production(let keys):
            guard alg == "RS256" else {
                throw reject("alg", "The ID token's algorithm must be RS256, not \(alg.isEmpty ? "absent" : alg).", ["alg": alg])
            }
            guard let kid = header["kid"]?.stringValue, !kid.isEmpty else {
                throw reject("kid", "The ID token's header names no key (kid).")
            }
            guard let collection = try await keys.keys(for: kid) else {
                throw reject("kid", "The ID token is signed with a key Google does not publish.", ["kid": kid])
            }
            do {
                _ = try await collection.verify(raw, as: UncheckedFirebasePayload.self)
            } catch {
                throw reject("signature", "The ID token's signature is invalid.", ["kid": kid])
            }
            unsigned = false
        }
        return try checkClaims(payload, unsigned: unsigned)
    }

    private func checkClaims(_ payload: [String: JSONValue], unsigned: Bool) throws -> FirebaseIDToken {
        let aud = payload["aud"]?.stringValue
        guard aud == projectId else {
            if aud == Self.customTokenAudience {
                throw reject("aud", "A Firebase custom token is not an ID token.", ["hint": "customToken"])
            }
            throw reject("aud", "The ID token is for another project.", ["expected": projectId, "actual": aud ?? ""])
        }
        let iss = payload["iss"]?.stringValue
        guard iss == issuer else {
            throw reject("iss", "The ID token has the wrong issuer.", ["expected": issuer, "actual": iss ?? ""])
        }
        guard let sub = payload["sub"]?.stringValue, !sub.isEmpty, sub.count <= 128 else {
            throw reject("sub", "The ID token's subject must be a non-empty string of at most 128 characters.")
        }
        let now = clock.now.timeIntervalSince1970
        guard let exp = payload["exp"]?.doubleValue else { throw reject("exp", "The ID token has no expiry.") }
        // Range first: these numbers come from outside (unsigned in emulator mode) and must never reach a conversion.
        guard SessionTimeLimits.isValidDate(exp) else { throw reject("exp", "The ID token's expiry is not a date between 1970 and 9999.") }
        guard exp > now - leeway else {
            throw reject("exp", "The ID token has expired.", ["exp": String(Int(exp)), "now": String(Int(now))])
        }
        guard let iat = payload["iat"]?.doubleValue else { throw reject("iat", "The ID token has no issue time.") }
        guard SessionTimeLimits.isValidDate(iat) else { throw reject("iat", "The ID token's issue time is not a date between 1970 and 9999.") }
        guard iat <= now + leeway else {
            throw reject("iat", "The ID token was issued in the future.", ["iat": String(Int(iat)), "now": String(Int(now))])
        }
        var authTime: Date?
        if let value = payload["auth_time"] {
            guard let seconds = value.doubleValue, SessionTimeLimits.isValidDate(seconds), seconds <= now + leeway else {
                throw reject("auth_time", "The ID token's authentication time is in the future or malformed.")
            }
            authTime = Date(timeIntervalSince1970: seconds)
        }
        return FirebaseIDToken(claims: payload, uid: sub, issuedAt: Date(timeIntervalSince1970: iat),
                               expiresAt: Date(timeIntervalSince1970: exp), authTime: authTime, isUnsigned: unsigned)
    }

    private func reject(_ reason: String, _ message: String, _ extra: [String: String] = [:]) -> AuthError {
        AuthError(.invalidToken, message: message, provider: provider,
                  details: extra.merging(["reason": reason]) { _, new in new })
    }
}

/// A payload jwt-kit decodes without checking anything: ``FirebaseIDTokenVerifier`` checks the
/// claims itself, in the spec's order.
struct UncheckedFirebasePayload: JWTPayload {
    init(from decoder: any Decoder) throws {}
    func encode(to encoder: any Encoder) throws {}
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
