import enum AuthHub.Base64URL
import enum AuthHub.JSONValue
import Crypto
import Foundation

/// The Auth Emulator's tokens (AuthHubFirebase docs, FirebaseEndpoints: “Emulator tokens” and “ID-token verification”): unsigned ID tokens, refresh tokens that
/// are base64 JSON, and MFA pending credentials of the same form.
enum FirebaseTokens {
    /// ID-token lifetime and `expiresIn`: 3600 s.
    static let lifetime = 3_600

    /// `{"alg":"none","typ":"JWT"}`, base64url.
    static let header = Base64URL.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8))

    /// The ID token of `user`: header `{"alg":"none","typ":"JWT"}`, the AuthHubFirebase docs, FirebaseEndpoints: “ID-token verification” claims, an empty
    /// signature (the token ends with `.`).
    /// - Parameters:
    ///   - issuedAt: `iat`, epoch seconds; `exp` is `iat + 3600`.
    ///   - authTime: `auth_time`, the time of the original sign-in (kept across refreshes).
    ///   - secondFactor: the factor of a second-factor sign-in: the claims then carry
    ///     `firebase.sign_in_second_factor` (its kind, `totp`) and `firebase.second_factor_identifier`
    ///     (its `mfaEnrollmentId`).
    static func idToken(user: FirebaseUser, projectId: String, issuedAt: Int, authTime: Int, secondFactor: SecondFactor? = nil) -> String {
        var claims: [String: JSONValue] = [
            "iss": .string("https://securetoken.google.com/\(projectId)"),
            "aud": .string(projectId),
            "sub": .string(user.localId),
            "user_id": .string(user.localId),
            "iat": .number(Double(issuedAt)),
            "exp": .number(Double(issuedAt + lifetime)),
            "auth_time": .number(Double(authTime)),
            "email_verified": .bool(user.emailVerified),
        ]
        var identities: [String: JSONValue] = [:]
        if let email = user.email {
            claims["email"] = .string(email)
            identities["email"] = [.string(email)]
        }
        if let name = user.displayName { claims["name"] = .string(name) }
        if let picture = user.photoUrl { claims["picture"] = .string(picture) }
        var firebase: [String: JSONValue] = ["identities": .object(identities), "sign_in_provider": "password"]
        if let tenant = user.tenantId { firebase["tenant"] = .string(tenant) }
        if let secondFactor {
            firebase["sign_in_second_factor"] = .string(secondFactor.provider)
            firebase["second_factor_identifier"] = .string(secondFactor.identifier)
        }
        claims["firebase"] = .object(firebase)
        return header + "." + Base64URL.encode(encode(.object(claims))) + "."
    }

    /// The second factor a sign-in used: its kind (`totp`) and `mfaEnrollmentId`.
    struct SecondFactor: Sendable, Equatable {
        var provider: String
        var identifier: String
    }

    /// The claims of an ID token the emulator accepts back: any header and signature, a payload
    /// that decodes to an object with a string `sub` (or `user_id`) and a numeric `iat`.
    struct IDTokenClaims: Sendable {
        var localId: String
        var issuedAt: Int
        var authTime: Int
        var audience: String?
    }

    /// `seconds` rounded down, or nil when it is not finite or beyond ±10^15 (no real time is).
    private static func wholeSeconds(_ seconds: Double) -> Int? {
        guard seconds.isFinite, abs(seconds) < 1e15 else { return nil }
        return Int(seconds.rounded(.down))
    }

    /// Decodes `token`, or nil when it is not a decodable JWT (→ `INVALID_ID_TOKEN`). `exp` is not
    /// checked (AuthHubFirebase docs, FirebaseEndpoints: “Emulator tokens”).
    static func decodeIDToken(_ token: String) -> IDTokenClaims? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
              let headerData = Base64URL.decode(String(parts[0])), (try? JSONValue.parse(headerData))?.objectValue != nil,
              let payloadData = Base64URL.decode(String(parts[1])),
              let payload = (try? JSONValue.parse(payloadData))?.objectValue,
              let localId = payload["sub"]?.stringValue ?? payload["user_id"]?.stringValue, !localId.isEmpty,
              let iat = payload["iat"]?.doubleValue, let issuedAt = wholeSeconds(iat)
        else { return nil }
        // A client's token is outside input: a time that is no whole-seconds date is an invalid token.
        guard let authTime = wholeSeconds(payload["auth_time"]?.doubleValue ?? iat) else { return nil }
        return IDTokenClaims(
            localId: localId, issuedAt: issuedAt, authTime: authTime,
            audience: payload["aud"]?.stringValue
        )
    }

    /// What a refresh token carries. The spec's fields (`_AuthEmulatorRefreshToken`, `localId`,
    /// `provider`, `extraClaims`, `projectId`) plus two AuthHub additions: `issuedAt` (epoch
    /// seconds, compared with the user's `validSince` so old refresh tokens become `TOKEN_EXPIRED`
    /// as in production) and `authTime` (kept as the ID tokens' `auth_time` across refreshes).
    struct RefreshToken: Sendable, Equatable {
        var localId: String
        var projectId: String
        var issuedAt: Int
        var authTime: Int
        var provider = "password"
        /// The spec's `secondFactor` (`{identifier, provider}`) of a second-factor sign-in, so
        /// refreshed ID tokens keep its claims.
        var secondFactor: SecondFactor? = nil
    }

    /// The refresh token for `record`: standard base64 of its JSON.
    static func refreshToken(_ record: RefreshToken) -> String {
        var json: [String: JSONValue] = [
            "_AuthEmulatorRefreshToken": "DO NOT MODIFY",
            "localId": .string(record.localId),
            "provider": .string(record.provider),
            "extraClaims": [:],
            "projectId": .string(record.projectId),
            "issuedAt": .number(Double(record.issuedAt)),
            "authTime": .number(Double(record.authTime)),
        ]
        if let factor = record.secondFactor {
            json["secondFactor"] = ["identifier": .string(factor.identifier), "provider": .string(factor.provider)]
        }
        return Data(encode(.object(json))).base64EncodedString()
    }

    /// Decodes a refresh token, or nil when it is not one of the emulator's (→ `INVALID_REFRESH_TOKEN`).
    static func decodeRefreshToken(_ token: String) -> RefreshToken? {
        guard let data = Data(base64Encoded: token) ?? Base64URL.decode(token),
              let object = (try? JSONValue.parse(data))?.objectValue,
              object["_AuthEmulatorRefreshToken"] != nil,
              let localId = object["localId"]?.stringValue, let projectId = object["projectId"]?.stringValue,
              let issuedAt = object["issuedAt"]?.intValue
        else { return nil }
        var secondFactor: SecondFactor?
        if let factor = object["secondFactor"]?.objectValue, let identifier = factor["identifier"]?.stringValue,
           let provider = factor["provider"]?.stringValue
        {
            secondFactor = SecondFactor(provider: provider, identifier: identifier)
        }
        return RefreshToken(
            localId: localId, projectId: projectId, issuedAt: issuedAt,
            authTime: object["authTime"]?.intValue ?? issuedAt, provider: object["provider"]?.stringValue ?? "password",
            secondFactor: secondFactor
        )
    }

    /// The `mfaPendingCredential` of a password sign-in that needs a second factor: standard
    /// base64 of `{"_AuthEmulatorMfaPendingCredential":"DO NOT MODIFY","localId","signInProvider",
    /// "projectId","nonce"}`. The emulator also keeps every credential it issued
    /// (``FirebaseProject/pendingMFA``), so `mfaSignIn:finalize` accepts only those, for their
    /// user and lifetime: the random `nonce` makes a forged or edited credential unknown.
    static func mfaPendingCredential(localId: String, projectId: String, nonce: String) -> String {
        let json: JSONValue = [
            "_AuthEmulatorMfaPendingCredential": "DO NOT MODIFY",
            "localId": .string(localId),
            "signInProvider": "password",
            "projectId": .string(projectId),
            "nonce": .string(nonce),
        ]
        return Data(encode(json)).base64EncodedString()
    }

    /// A numeric-looking project number derived from the project id (12 digits, stable), the
    /// `project_id` of `/v1/token` replies.
    static func projectNumber(for projectId: String) -> String {
        let digest = Array(SHA256.hash(data: Data(projectId.utf8)))
        let value = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return String(100_000_000_000 + value % 900_000_000_000)
    }

    /// Compact JSON with sorted keys.
    static func encode(_ value: JSONValue) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map(Array.init) ?? Array("{}".utf8)
    }
}
