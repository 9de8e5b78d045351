import enum AuthHub.JSONValue
import Foundation
import Hummingbird

extension OpenfortService {
    /// The path of the emulated social provider's authorize page (the `url` OAuth start returns).
    static let authorizePath = "/openfort/__emulator/oauth/authorize"
    /// The ID-token form the emulator accepts: `emulator:<email>`.
    static let idTokenPrefix = "emulator:"

    /// `POST /iam/v2/auth/sign-in/social` (AuthHubOpenfort docs, OpenfortEndpoints: “Endpoints”, “OAuth redirect”, “Examples”).
    ///
    /// With `idToken: {token}` (Apple/Google native sign-in): `provider` must be `apple` or
    /// `google` (another known provider → `ID_TOKEN_NOT_SUPPORTED`), the token `emulator:<email>`
    /// (else `INVALID_TOKEN`) → `{redirect: false, token, url: null, user}`.
    /// Otherwise starts a redirect flow: `{provider, callbackURL, disableRedirect?, errorCallbackURL?,
    /// loginHint?}` → `{url, redirect: !disableRedirect}` where `url` is the emulator's authorize
    /// hook. An unknown provider → `404 PROVIDER_NOT_FOUND`; no `callbackURL` →
    /// `CALLBACK_URL_REQUIRED`. With a Bearer session of an anonymous user the social account is
    /// linked to that user.
    func signInSocial(_ request: Request) async throws -> JSONValue {
        let body = try await Self.body(request)
        let provider = try Self.string(body, "provider")
        guard Self.socialProviders.contains(provider) else { throw OpenfortFailure.providerNotFound }
        if let idToken = body["idToken"], idToken != .null {
            let email = try Self.idTokenEmail(provider: provider, idToken)
            return try await state.update(OpenfortProject.key) { project -> JSONValue in
                let user = try socialUser(provider: provider, email: email, linkTo: nil, in: &project)
                let session = startSession(for: user.id, in: &project)
                return ["redirect": false, "token": .string(session.token), "url": .null, "user": user.json]
            }
        }
        let project = await state.get(OpenfortProject.key)
        let anonymous = currentUser(request, in: project).flatMap { $0.isAnonymous ? $0.id : nil }
        return try await startOAuth(request, body: body, provider: provider, linkUserId: anonymous)
    }

    /// `POST /iam/v2/auth/link-social` (Bearer) `{provider, callbackURL, idToken?, …}` →
    /// `{url, redirect, status: true}`; the authorize hook then links the account to the signed-in
    /// user. With `idToken` the account is linked at once → `{url: "", redirect: false, status: true}`.
    /// No session → `401 UNAUTHORIZED`; an account already linked to another user →
    /// `SOCIAL_ACCOUNT_ALREADY_LINKED`.
    func linkSocial(_ request: Request) async throws -> JSONValue {
        let body = try await Self.body(request)
        let project = await state.get(OpenfortProject.key)
        guard let user = currentUser(request, in: project) else { throw OpenfortFailure.unauthorized }
        let provider = try Self.string(body, "provider")
        guard Self.socialProviders.contains(provider) else { throw OpenfortFailure.providerNotFound }
        if let idToken = body["idToken"], idToken != .null {
            let email = try Self.idTokenEmail(provider: provider, idToken)
            try await state.update(OpenfortProject.key) { project in
                _ = try socialUser(provider: provider, email: email, linkTo: user.id, in: &project)
            }
            return ["url": "", "redirect": false, "status": true]
        }
        var reply = try await startOAuth(request, body: body, provider: provider, linkUserId: user.id)
        if case .object(var fields) = reply {
            fields["status"] = true
            reply = .object(fields)
        }
        return reply
    }

    /// Stores an OAuth state and answers `{url, redirect}`.
    private func startOAuth(_ request: Request, body: [String: JSONValue], provider: String, linkUserId: String?) async throws -> JSONValue {
        guard let callbackURL = try Self.optionalString(body, "callbackURL"), !callbackURL.isEmpty else {
            throw OpenfortFailure.callbackURLRequired
        }
        let oauth = OpenfortOAuthState(
            state: newId(), provider: provider, callbackURL: callbackURL,
            errorCallbackURL: try Self.optionalString(body, "errorCallbackURL"),
            loginHint: try Self.optionalString(body, "loginHint")?.lowercased(), linkUserId: linkUserId,
            expiresAt: now.addingTimeInterval(Self.oauthStateLifetime)
        )
        await state.update(OpenfortProject.key) { $0.oauthStates[oauth.state] = oauth }
        let url = Self.appending([("provider", provider), ("state", oauth.state)], to: await baseURL(for: request) + Self.authorizePath)
        let disableRedirect = body["disableRedirect"]?.boolValue ?? false
        return ["url": .string(url), "redirect": .bool(!disableRedirect)]
    }

    /// The email of an emulator ID token `emulator:<email>` for `provider`.
    private static func idTokenEmail(provider: String, _ idToken: JSONValue) throws -> String {
        guard idTokenProviders.contains(provider) else { throw OpenfortFailure.idTokenNotSupported }
        guard let token = idToken["token"]?.stringValue ?? idToken.stringValue, token.hasPrefix(idTokenPrefix) else {
            throw OpenfortFailure.invalidToken
        }
        let email = String(token.dropFirst(idTokenPrefix.count)).lowercased()
        guard isValidEmail(email) else { throw OpenfortFailure.invalidToken }
        return email
    }

    /// The user a social sign-in for `email` at `provider` lands on: the holder of that account;
    /// else `linkTo` (link-social / anonymous user); else the user with that email (the account is
    /// linked, as for better-auth's trusted providers); else a new verified user.
    /// - Throws: `SOCIAL_ACCOUNT_ALREADY_LINKED` when linking an account another user holds.
    func socialUser(provider: String, email: String, linkTo: String?, in project: inout OpenfortProject) throws -> OpenfortUser {
        if let holder = project.user(provider: provider, accountId: email) {
            if let linkTo, holder.id != linkTo { throw OpenfortFailure.socialAccountAlreadyLinked }
            return holder
        }
        var user: OpenfortUser
        if let linkTo, let target = project.users[linkTo] {
            user = target
            if user.isAnonymous {
                if project.user(email: email) != nil { throw OpenfortFailure.socialAccountAlreadyLinked }
                user.email = email
                user.isAnonymous = false
                user.emailVerified = true
                user.name = email
            }
        } else if let existing = project.user(email: email) {
            user = existing
            user.emailVerified = true
        } else {
            user = OpenfortUser(
                id: newId(), email: email, name: email, image: nil, emailVerified: true, isAnonymous: false,
                createdAt: now, updatedAt: now
            )
        }
        user.accounts.append(OpenfortAccount(provider: provider, accountId: email, createdAt: now, updatedAt: now))
        user.updatedAt = now
        project.users[user.id] = user
        return user
    }

    /// `POST /iam/v2/auth/unlink-account` (Bearer) `{providerId, accountId?}` → `{status: true}`.
    /// No such account → `ACCOUNT_NOT_FOUND`; the user's only account → `FAILED_TO_UNLINK_LAST_ACCOUNT`.
    func unlinkAccount(_ request: Request) async throws -> JSONValue {
        let body = try await Self.body(request)
        let providerId = try Self.string(body, "providerId")
        let accountId = try Self.optionalString(body, "accountId")
        return try await state.update(OpenfortProject.key) { project -> JSONValue in
            guard var user = currentUser(request, in: project) else { throw OpenfortFailure.unauthorized }
            guard let index = user.accounts.firstIndex(where: { $0.provider == providerId && (accountId == nil || $0.accountId == accountId) }) else {
                throw OpenfortFailure.accountNotFound
            }
            if user.accounts.count == 1 { throw OpenfortFailure.failedToUnlinkLastAccount }
            user.accounts.remove(at: index)
            user.updatedAt = now
            project.users[user.id] = user
            return ["status": true]
        }
    }

    /// The emulated social provider (emulator hook, not Openfort):
    /// `GET /openfort/__emulator/oauth/authorize?state=…[&email=…][&authhub_emulator_deny=1]`.
    /// Redirects (302) at once to the start's `callbackURL` with `access_token` (a new session
    /// token) and `user_id`; with `authhub_emulator_deny=1` to `errorCallbackURL` (or `callbackURL`)
    /// with `error=access_denied`; a failed link with `error=SOCIAL_ACCOUNT_ALREADY_LINKED`. The
    /// provider's user is `email`, else the start's `loginHint`, else `<provider>.user@example.com`.
    /// Unknown or expired state → `400 INVALID_STATE` (JSON, there is nowhere to redirect).
    func authorize(_ request: Request) async throws -> Response {
        let query = request.queryValues
        let now = self.now
        let oauth: OpenfortOAuthState? = await state.update(OpenfortProject.key) { project in
            guard let state = query["state"], let oauth = project.oauthStates.removeValue(forKey: state) else { return nil }
            return oauth.expiresAt > now ? oauth : nil
        }
        guard let oauth else { throw OpenfortFailure.bad("INVALID_STATE", "Invalid or expired OAuth state") }
        let errorURL = oauth.errorCallbackURL ?? oauth.callbackURL
        if query["authhub_emulator_deny"] == "1" {
            return Self.redirect(Self.appending([("error", "access_denied")], to: errorURL))
        }
        let email = (query["email"] ?? oauth.loginHint ?? "\(oauth.provider).user@example.com").lowercased()
        guard Self.isValidEmail(email) else { return Self.redirect(Self.appending([("error", "INVALID_EMAIL")], to: errorURL)) }
        do {
            let (token, userId) = try await state.update(OpenfortProject.key) { project -> (String, String) in
                let user = try socialUser(provider: oauth.provider, email: email, linkTo: oauth.linkUserId, in: &project)
                return (startSession(for: user.id, in: &project).token, user.id)
            }
            return Self.redirect(Self.appending([("access_token", token), ("user_id", userId)], to: oauth.callbackURL))
        } catch let failure as OpenfortFailure {
            return Self.redirect(Self.appending([("error", failure.code)], to: errorURL))
        }
    }
}
