import AuthHub
import Foundation

extension Auth0AuthenticationAPI {
    /// Subject token types of the native social token exchanges (<doc:Auth0Endpoints>: “Token exchange”).
    public enum SubjectTokenType {
        public static let appleAuthorizationCode = "http://auth0.com/oauth/token-type/apple-authz-code"
        public static let facebookSessionAccessToken = "http://auth0.com/oauth/token-type/facebook-info-session-access-token"
    }

    /// RFC 8693 token exchange (<doc:Auth0Endpoints>: “Token exchange”): any subject token type, with `actor_token` and
    /// `actor_token_type` sent together or not at all.
    /// - Throws: ``AuthErrorCode/invalidRequest`` when only one of the actor pair is given.
    public func exchange(subjectToken: Secret<String>, subjectTokenType: String, audience: String? = nil,
                         scope: String = defaultScope, organization: String? = nil,
                         actorToken: Secret<String>? = nil, actorTokenType: String? = nil,
                         extra: [String: JSONValue] = [:], options: Options = .none) async throws -> Auth0Credentials {
        guard (actorToken == nil) == (actorTokenType == nil) else {
            throw AuthError(.invalidRequest, message: "actor_token and actor_token_type go together.", provider: api.provider)
        }
        return try await token(Auth0TokenRequest(grantType: GrantType.tokenExchange, audience: audience, scope: scope,
                                                 organization: organization, subjectToken: subjectToken.revealed(),
                                                 subjectTokenType: subjectTokenType, actorToken: actorToken?.revealed(),
                                                 actorTokenType: actorTokenType),
                               options: options, retry: .never, operation: .tokenExchange, extra: extra)
    }

    /// Sign in with Apple: exchanges the Apple authorization code. `user_profile` is a JSON-encoded
    /// string holding `name: {firstName, lastName}` (only when a name part is non-empty) and `profile`.
    public func loginWithApple(authorizationCode: Secret<String>, givenName: String? = nil, familyName: String? = nil,
                               profile: [String: JSONValue] = [:], audience: String? = nil, scope: String = defaultScope,
                               options: Options = .none) async throws -> Auth0Credentials {
        var userProfile = profile
        var name: [String: JSONValue] = [:]
        if let givenName, !givenName.isEmpty { name["firstName"] = .string(givenName) }
        if let familyName, !familyName.isEmpty { name["lastName"] = .string(familyName) }
        if !name.isEmpty { userProfile["name"] = .object(name) }
        return try await exchange(subjectToken: authorizationCode, subjectTokenType: SubjectTokenType.appleAuthorizationCode,
                                  audience: audience, scope: scope,
                                  extra: userProfile.isEmpty ? [:] : ["user_profile": .string(try Self.jsonString(.object(userProfile)))],
                                  options: options)
    }

    /// Facebook: exchanges the session-info access token, with the Graph profile as a JSON string.
    public func loginWithFacebook(sessionAccessToken: Secret<String>, profile: [String: JSONValue],
                                  audience: String? = nil, scope: String = defaultScope,
                                  options: Options = .none) async throws -> Auth0Credentials {
        try await exchange(subjectToken: sessionAccessToken, subjectTokenType: SubjectTokenType.facebookSessionAccessToken,
                           audience: audience, scope: scope,
                           extra: ["user_profile": .string(try Self.jsonString(.object(profile)))], options: options)
    }

    static func jsonString(_ value: JSONValue) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
