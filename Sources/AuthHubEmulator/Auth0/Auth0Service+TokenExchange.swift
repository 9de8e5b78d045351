import enum AuthHub.JSONValue
import Foundation
import HTTPTypes
import Hummingbird

extension Auth0Service {
    /// The token-exchange grant (RFC 8693, AuthHubAuth0 docs, Auth0Endpoints: “Token exchange”).
    static let tokenExchangeGrant = "urn:ietf:params:oauth:grant-type:token-exchange"
    /// The `subject_token_type` of Sign in with Apple: the subject token is an Apple authorization code.
    static let appleTokenType = "http://auth0.com/oauth/token-type/apple-authz-code"
    /// The `subject_token_type` of Facebook: the subject token is a session info access token.
    static let facebookTokenType = "http://auth0.com/oauth/token-type/facebook-info-session-access-token"
    /// The prefix of the subject tokens the emulator accepts for Apple and Facebook in place of
    /// the real ones, which only Apple or Facebook could check: `emulator:<email>`.
    static let socialSubjectPrefix = "emulator:"

    /// The social connection of Apple or Facebook subject tokens, nil for a custom type.
    static func socialConnection(for type: String) -> String? {
        switch type {
        case appleTokenType: "apple"
        case facebookTokenType: "facebook"
        default: nil
        }
    }

    /// The validated values of a token-exchange request.
    private struct Exchange: Sendable {
        var subjectToken: String
        var subjectType: String
        var actorToken: String?
        var actorType: String?
        /// Root profile attributes taken from `user_profile` (Apple and Facebook only).
        var profile: [String: JSONValue]
    }

    /// Who a token-exchange request signs in, or why it may not.
    private enum ExchangeOutcome: Sendable {
        case user(Auth0User, actor: JSONValue?)
        case refused(Auth0Failure)
    }

    /// `urn:ietf:params:oauth:grant-type:token-exchange` (AuthHubAuth0 docs, Auth0Endpoints: “Token exchange”): `{subject_token,
    /// subject_token_type, audience?, scope, organization?, actor_token?, actor_token_type?,
    /// user_profile?}`.
    ///
    /// - Apple and Facebook: the emulator cannot ask Apple or Facebook, so it accepts a subject
    ///   token `emulator:<email>` (or one registered with the hook) and signs in the user with that
    ///   email in the `apple` or `facebook` connection, creating them on first use. The optional
    ///   `user_profile` must be a JSON-encoded string of an object; its name fields (Apple's
    ///   `{"name":{"firstName","lastName"}}`, Facebook's `name`, `first_name`, `last_name`) become
    ///   the user's `name`, `given_name` and `family_name`.
    /// - Any other `subject_token_type`: only subject tokens registered through
    ///   `POST /auth0/__emulator/token-exchange` are accepted.
    /// - `actor_token` and `actor_token_type` come together or not at all; with them no refresh
    ///   token is issued, and when the actor token is itself registered under its type, the ID
    ///   token carries `act: {sub}` naming that user.
    /// - `organization` is accepted and ignored (the emulator has no organizations).
    ///
    /// Refusals: `400 invalid_request` for a missing parameter, an actor token without its type
    /// (or the reverse), a malformed `user_profile`, or a custom `subject_token_type` for which no
    /// token was ever registered; `403 invalid_grant` "Invalid subject_token." for a token the
    /// emulator does not accept. A user who must pass MFA gets `mfa_required`.
    func tokenExchangeGrant(_ parameters: Auth0Parameters, clientId: String, request: Request, dpop: Auth0DPoPProof?) async throws -> Response {
        let exchange = try exchangeRequest(parameters)
        let scopes = Auth0Grant.scopes(parameters.string("scope") ?? Self.defaultScope)
        let at = now
        let newUserId = environment.random.bytes(12).map { String(format: "%02x", $0) }.joined()
        let social = Self.socialConnection(for: exchange.subjectType)
        let outcome: ExchangeOutcome = await state.update(Auth0Tenant.key) { tenant in
            let registered = tenant.exchangeSubjects[Auth0Tenant.exchangeKey(type: exchange.subjectType, token: exchange.subjectToken)]
            let subject: Auth0ExchangeSubject
            if let registered {
                subject = registered
            } else if let social {
                guard exchange.subjectToken.hasPrefix(Self.socialSubjectPrefix),
                      let email = Self.validEmail(String(exchange.subjectToken.dropFirst(Self.socialSubjectPrefix.count)))
                else { return .refused(.invalidGrant("Invalid subject_token.")) }
                subject = Auth0ExchangeSubject(email: email, connection: social)
            } else if tenant.exchangeTypes.contains(exchange.subjectType) {
                return .refused(.invalidGrant("Invalid subject_token."))
            } else {
                return .refused(.invalidRequest("Unsupported subject_token_type: no token exchange is set up for this type."))
            }
            var actor: JSONValue?
            if let actorToken = exchange.actorToken, let actorType = exchange.actorType,
               let actorSubject = tenant.exchangeSubjects[Auth0Tenant.exchangeKey(type: actorType, token: actorToken)],
               let actorUser = tenant.user(email: actorSubject.email, connection: actorSubject.connection) {
                actor = ["sub": .string(actorUser.userId)]
            }
            if var user = tenant.user(email: subject.email, connection: subject.connection) {
                if !exchange.profile.isEmpty {
                    user.attributes.merge(exchange.profile) { _, new in new }
                    user.updatedAt = at
                    tenant.users[user.userId] = user
                }
                return .user(user, actor: actor)
            }
            // Social users are `apple|…`/`facebook|…`; everyone else is a database user, `auth0|…`.
            let prefix = ["apple", "facebook"].contains(subject.connection) ? subject.connection : "auth0"
            let user = Auth0User(
                userId: prefix + "|" + newUserId, connection: subject.connection, email: subject.email, username: nil,
                passwordHash: nil, emailVerified: true, attributes: exchange.profile, userMetadata: [:],
                mfaRequired: false, totp: nil, recovery: nil, createdAt: at, updatedAt: at
            )
            tenant.users[user.userId] = user
            return .user(user, actor: actor)
        }
        switch outcome {
        case .refused(let failure):
            throw failure
        case .user(let user, let actor):
            var grant = Auth0Grant(
                userId: user.userId, clientId: clientId, scopes: scopes, audience: parameters.string("audience"),
                nonce: nil, authTime: at
            )
            grant.delegated = exchange.actorToken != nil
            grant.actor = actor
            if user.requiresSecondFactor { throw await mfaRequired(grant: grant, user: user) }
            return try await issue(grant, request: request, dpop: dpop)
        }
    }

    /// Reads and checks the token-exchange parameters.
    private func exchangeRequest(_ parameters: Auth0Parameters) throws -> Exchange {
        let subjectToken = try parameters.required("subject_token")
        let subjectType = try parameters.required("subject_token_type")
        let actorToken = parameters.string("actor_token")
        let actorType = parameters.string("actor_token_type")
        guard (actorToken == nil) == (actorType == nil) else {
            throw Auth0Failure.invalidRequest("actor_token and actor_token_type must be sent together.")
        }
        var profile: [String: JSONValue] = [:]
        if Self.socialConnection(for: subjectType) != nil, let value = parameters["user_profile"] {
            profile = try Self.profileAttributes(value)
        }
        return Exchange(subjectToken: subjectToken, subjectType: subjectType, actorToken: actorToken, actorType: actorType,
                        profile: profile)
    }

    /// The root attributes in a `user_profile` value: a JSON-encoded string of an object (spec
    /// AuthHubAuth0 docs, Auth0Endpoints: “Token exchange”). Apple sends `{"name":{"firstName","lastName"}}`; Facebook sends Graph fields
    /// (`name`, `first_name`, `last_name`, `picture` as a URL string).
    /// - Throws: `400 invalid_request` when the value is not a string holding a JSON object.
    static func profileAttributes(_ value: JSONValue) throws -> [String: JSONValue] {
        let malformed = Auth0Failure.invalidRequest("user_profile must be a JSON-encoded string of an object.")
        guard let text = value.stringValue else { throw malformed }
        guard let object = (try? JSONValue.parse(Data(text.utf8)))?.objectValue else { throw malformed }
        var attributes: [String: JSONValue] = [:]
        var given = object["first_name"]?.stringValue ?? object["given_name"]?.stringValue
        var family = object["last_name"]?.stringValue ?? object["family_name"]?.stringValue
        var full = object["name"]?.stringValue
        if let name = object["name"]?.objectValue {
            given = name["firstName"]?.stringValue ?? given
            family = name["lastName"]?.stringValue ?? family
            full = nil
        }
        if let given, !given.isEmpty { attributes["given_name"] = .string(given) }
        if let family, !family.isEmpty { attributes["family_name"] = .string(family) }
        let joined = [given, family].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " ")
        if let full, !full.isEmpty {
            attributes["name"] = .string(full)
        } else if !joined.isEmpty {
            attributes["name"] = .string(joined)
        }
        if let picture = object["picture"]?.stringValue, !picture.isEmpty { attributes["picture"] = .string(picture) }
        return attributes
    }

    /// `text` lower-cased when it looks like an email address (`a@b.c`, no spaces), else nil.
    static func validEmail(_ text: String) -> String? {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !text.contains(" ") else { return nil }
        return text.lowercased()
    }

    // MARK: - Emulator-only hook

    /// `POST /auth0/__emulator/token-exchange` (emulator only): makes the token-exchange grant
    /// accept `subject_token` for `subject_token_type`, signing in the user with `email` in
    /// `connection` (default: `apple`/`facebook` for those types, else
    /// `Username-Password-Authentication`), who is created on first use. Body
    /// `{subject_token_type, subject_token, email, connection?}` → 201
    /// `{subject_token_type, email, connection}`. A registered token may be used more than once
    /// and also serves as an `actor_token` of that type.
    func registerExchangeToken(_ request: Request) async throws -> Response {
        let parameters = try await Auth0Parameters.body(of: request)
        let type = try parameters.required("subject_token_type")
        let token = try parameters.required("subject_token")
        guard let email = Self.validEmail(try parameters.required("email")) else {
            throw Auth0Failure.invalidRequest("email must be an email address.")
        }
        let connection = parameters.string("connection") ?? Self.socialConnection(for: type) ?? Auth0Tenant.defaultConnection
        let subject = Auth0ExchangeSubject(email: email, connection: connection)
        await state.update(Auth0Tenant.key) { tenant in
            tenant.exchangeSubjects[Auth0Tenant.exchangeKey(type: type, token: token)] = subject
            tenant.exchangeTypes.insert(type)
        }
        return EmulatorResponse.json(
            ["subject_token_type": .string(type), "email": .string(email), "connection": .string(connection)],
            status: .created
        )
    }
}
