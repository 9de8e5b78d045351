import AuthHub
@_spi(Internals) import AuthHubAuth0
import AuthHubFactors
@_spi(Internals) import AuthHubFirebase
import AuthHubOIDC
@_spi(Internals) import AuthHubOpenfort
@_spi(Internals) import AuthHubTurnkey
import Crypto
import Foundation

// MARK: 6. Provider replies

/// What one provider operation needs: a context whose transport answers from the fuzz script.
struct ProviderKit: Sendable {
    var context: ProviderContext
    var clock: FuzzClock
}

/// A signed-in session of each provider, as the operations that need one take it.
func fuzzSession(provider: String, extras: [String: JSONValue] = [:], secretExtras: [String: Secret<String>] = [:]) -> Session {
    Session(providerID: provider, accountKey: "default", accessToken: Secret("access-token"), tokenType: "Bearer",
            idToken: Secret("header.payload.signature"), refreshToken: Secret("refresh-token"),
            expiresAt: Date(timeIntervalSince1970: 1_767_229_200), scope: "openid profile email offline_access", userID: "user-1",
            claims: ["sub": "user-1"], extras: extras, secretExtras: secretExtras, version: 3,
            issuedAt: Date(timeIntervalSince1970: 1_767_225_600))
}

/// A Turnkey provider whose passkey authenticator is the fuzzers' software one.
func turnkeyWithPasskeys(_ kit: ProviderKit) -> TurnkeyProvider {
    var context = kit.context
    context.passkeyAuthenticator = fuzzAuthenticator
    let url = URL(string: "https://api.turnkey.example")!  // a literal: cannot fail
    return TurnkeyProvider(id: "turnkey", configuration: TurnkeyConfiguration(baseURL: url, organizationId: "parent-org",
                                                                             rpId: "example.com", proxyURL: url, activityPollAttempts: 3),
                           context: context)
}

/// The Turnkey session: its session key (fixed P-256 key) and organization.
let turnkeySession: Session = {
    let key = fuzzP256Key(seed: 3)
    return fuzzSession(provider: "turnkey",
                       extras: ["organizationId": "org-1", "sessionPublicKey": .string(TurnkeyKeys.compressedHex(key.publicKey))],
                       secretExtras: [TurnkeyProvider.sessionPrivateKeyExtra: Secret(TurnkeyHex.encode(key.rawRepresentation))])
}()

/// A software passkey for `example.com` (registered once per process), for Auth0 and Turnkey
/// passkey sign-ins.
let fuzzPasskeyStore = InMemoryPasskeyCredentialStore()
let fuzzAuthenticator: SoftwarePasskeyAuthenticator = {
    guard let authenticator = try? SoftwarePasskeyAuthenticator(store: fuzzPasskeyStore, random: FuzzRandom(), clock: FuzzClock()) else {
        fatalError("software authenticator")
    }
    runBlocking {
        let options = PasskeyRegistrationOptions(relyingParty: PasskeyRelyingParty(id: "example.com", name: "Example"),
                                                 user: PasskeyUser(id: Array("user-1".utf8), name: "ada@example.com", displayName: "Ada"),
                                                 challenge: fuzzChallenge)
        _ = try? await authenticator.makeCredential(options)
    }
    return authenticator
}()

let auth0Configuration: Auth0Configuration = {
    guard let configuration = try? Auth0Configuration(domain: "tenant.example.com", clientId: "fuzz-client", audience: "https://api.example.com") else {
        fatalError("Auth0 configuration")
    }
    return configuration
}()

func auth0(_ kit: ProviderKit) -> Auth0Provider { Auth0Provider(id: "auth0", configuration: auth0Configuration, context: kit.context) }
func firebase(_ kit: ProviderKit) -> FirebaseProvider {
    FirebaseProvider(id: "firebase", configuration: FirebaseConfiguration(apiKey: Secret("api-key"), projectId: "fuzz-project"),
                     context: kit.context)
}
func openfort(_ kit: ProviderKit, legacy: Bool = false) -> OpenfortProvider {
    let url = URL(string: "https://api.openfort.example")!  // a literal: cannot fail
    return OpenfortProvider(id: "openfort", configuration: OpenfortConfiguration(publishableKey: "pk_test_fuzz", baseURL: url,
                                                                                 apiVersion: legacy ? .v1 : .v2),
                            context: kit.context)
}
func turnkey(_ kit: ProviderKit) -> TurnkeyProvider {
    let url = URL(string: "https://api.turnkey.example")!  // a literal: cannot fail
    return TurnkeyProvider(id: "turnkey", configuration: TurnkeyConfiguration(baseURL: url, organizationId: "parent-org", rpId: "example.com",
                                                                              proxyURL: url, activityPollAttempts: 3),
                           context: kit.context)
}
func oidc(_ kit: ProviderKit) -> OIDCProvider {
    let url = URL(string: "https://issuer.example.com/")!  // a literal: cannot fail
    return OIDCProvider(id: "oidc", configuration: OIDCConfiguration(issuer: url, clientId: fuzzClientID), context: kit.context)
}

/// A fixed Auth0 API token for My Account and Management calls.
let auth0APIToken: Auth0APITokenProvider = { scope in
    Auth0APICredentials(accessToken: Secret("api-token"), tokenType: "Bearer", expiresAt: Date(timeIntervalSince1970: 1_767_229_200),
                        scope: scope)
}

/// Every operation the provider target drives, by index (the first byte of the input).
let providerOperations: [(name: String, run: @Sendable (ProviderKit) async throws -> Void)] = [
    // Auth0: Authentication API
    ("auth0.password", { _ = try await auth0($0).signIn(.password(identifier: "ada@example.com", password: Secret("pw"), realm: "Username-Password-Authentication")) }),
    ("auth0.emailCode.start", { _ = try await auth0($0).startSignIn(.emailCode(email: "ada@example.com")) }),
    ("auth0.emailCode", { _ = try await auth0($0).signIn(.emailCode(email: "ada@example.com", code: Secret("123456"))) }),
    ("auth0.authorizationCode", { _ = try await auth0($0).signIn(.authorizationCode(code: Secret("code"), codeVerifier: Secret("verifier"), redirectURI: "http://127.0.0.1/cb")) }),
    ("auth0.signUp", { _ = try await auth0($0).signUp(SignUpRequest(email: "ada@example.com", password: Secret("pw"))) }),
    ("auth0.refresh", { _ = try await auth0($0).refresh(fuzzSession(provider: "auth0"), scope: nil) }),
    ("auth0.signOut", { try await auth0($0).signOut(fuzzSession(provider: "auth0")) }),
    ("auth0.passwordReset", { try await auth0($0).sendPasswordReset(email: "ada@example.com") }),
    ("auth0.userInfo", { _ = try await auth0($0).userInfo(fuzzSession(provider: "auth0")) }),
    ("auth0.passkey", { kit in
        var context = kit.context
        context.passkeyAuthenticator = fuzzAuthenticator
        _ = try await Auth0Provider(id: "auth0", configuration: auth0Configuration, context: context).signIn(.passkey(identifier: nil))
    }),
    ("auth0.mfa", { kit in
        let api = auth0(kit).authentication
        let token = Secret("mfa-token")
        _ = try? await api.listAuthenticators(mfaToken: token, factorsAllowed: ["otp", "oob"])
        _ = try? await api.challenge(mfaToken: token, authenticatorID: "sms|dev_1")
        _ = try? await api.enroll(mfaToken: token, .otp)
        _ = try await auth0(kit).signIn(mfa: MFARequirement(token: token), .otp(Secret("123456")))
    }),
    ("auth0.passwordless+otp", { kit in
        let api = auth0(kit).authentication
        _ = try? await api.startDatabaseOTP(email: "ada@example.com")
        _ = try await api.loginDatabaseOTP(authSession: Secret("session"), code: Secret("123456"))
    }),
    ("auth0.exchange+jwks", { kit in
        let api = auth0(kit).authentication
        _ = try? await api.exchange(subjectToken: Secret("subject"), subjectTokenType: "urn:ietf:params:oauth:token-type:id_token")
        _ = try? await api.ssoExchange(refreshToken: Secret("refresh"))
        _ = try await api.jwks()
    }),
    ("auth0.credentialsManager", { kit in
        let manager = Auth0CredentialsManager(provider: auth0(kit), store: InMemorySessionStore(), clock: kit.clock)
        _ = try? await manager.store(fuzzSession(provider: "auth0"))
        _ = try? await manager.renew()
        _ = try? await manager.apiCredentials(forAudience: "https://api.example.com", scope: "read:things")
        _ = try await manager.ssoCredentials()
    }),
    // Auth0: My Account
    ("auth0.myAccount.methods", { kit in
        let api = Auth0MyAccountAPI(provider: auth0(kit), tokenProvider: auth0APIToken)
        _ = try? await api.authenticationMethods()
        _ = try? await api.authenticationMethod(id: "totp|dev_1")
        _ = try? await api.updateAuthenticationMethod(id: "totp|dev_1", name: "phone")
        _ = try? await api.factors()
        try await api.deleteAuthenticationMethod(id: "totp|dev_1")
    }),
    ("auth0.myAccount.enroll", { kit in
        let api = Auth0MyAccountAPI(provider: auth0(kit), tokenProvider: auth0APIToken)
        let request: Auth0EnrollmentRequest = [.totp, .passkey(), .email("ada@example.com"), .recoveryCode, .password()][Int(kit.clock.now.timeIntervalSince1970) % 5]
        let challenge = try await api.startEnrollment(request, origin: "https://example.com")
        _ = try await api.confirmEnrollment(challenge, response: .code(Secret("123456")))
    }),
    ("auth0.myAccount.flow", { kit in
        let flow = Auth0AuthenticationMethodsFlow(api: Auth0MyAccountAPI(provider: auth0(kit), tokenProvider: auth0APIToken))
        _ = await flow.load()
        _ = await flow.rename(id: "totp|dev_1", to: "phone")
        _ = await flow.delete(id: "totp|dev_1")
    }),
    // Auth0: Management
    ("auth0.management", { kit in
        let api = Auth0ManagementAPI(provider: auth0(kit), tokenProvider: auth0APIToken)
        _ = try? await api.user(id: "auth0|1", fields: ["email"])
        _ = try? await api.updateUserMetadata(id: "auth0|1", ["theme": "dark"])
        _ = try? await api.link(userID: "auth0|1", withToken: Secret("other-id-token"))
        _ = try await api.unlink(userID: "auth0|1", provider: "google-oauth2", secondaryUserID: "g-1")
    }),
    // Firebase
    ("firebase.password", { _ = try await firebase($0).signIn(.password(identifier: "ada@example.com", password: Secret("pw"))) }),
    ("firebase.signUp", { _ = try await firebase($0).signUp(SignUpRequest(email: "ada@example.com", password: Secret("pw"))) }),
    ("firebase.refresh", { _ = try await firebase($0).refresh(fuzzSession(provider: "firebase"), scope: nil) }),
    ("firebase.userInfo", { _ = try await firebase($0).userInfo(fuzzSession(provider: "firebase")) }),
    ("firebase.account", { kit in
        let provider = firebase(kit)
        let session = fuzzSession(provider: "firebase")
        _ = try? await provider.currentUser(session)
        _ = try? await provider.verifyPasswordResetCode(Secret("oob"))
        _ = try? await provider.confirmPasswordReset(code: Secret("oob"), newPassword: Secret("pw2"))
        _ = try? await provider.confirmEmailVerification(code: Secret("oob"), session: session)
        _ = try? await provider.updateProfile(session, displayName: .set("Ada"))
        _ = try? await provider.updatePassword(session, newPassword: Secret("pw2"))
        _ = try? await provider.updateEmail(session, newEmail: "ada2@example.com")
        try await provider.deleteAccount(session)
    }),
    ("firebase.passwordReset", { try await firebase($0).sendPasswordReset(email: "ada@example.com") }),
    ("firebase.auth", { kit in
        let auth = FirebaseAuth(provider: firebase(kit), store: InMemorySessionStore())
        _ = try? await auth.signIn(email: "ada@example.com", password: Secret("pw"))
        _ = try? await auth.idToken(forceRefresh: true)
        _ = try await auth.currentUser()
    }),
    ("firebase.mfa", { kit in
        let provider = firebase(kit)
        let requirement = MFARequirement(token: Secret("pending"), challengeTypes: ["totp"], enrolledFactors: [.init(id: "enr-1", kind: "totp")])
        _ = try? await provider.signIn(.mfa(requirement: requirement, response: .otp(Secret("123456"))))
        // The second-factor calls through the app-facing object (the REST client is package).
        let store = InMemorySessionStore()
        let auth = FirebaseAuth(provider: provider, store: store)
        _ = try await store.save(fuzzSession(provider: "firebase"), for: auth.key, expectedVersion: nil)
        _ = try? await auth.withdrawMFA(enrollmentID: "enr-1")
        let challenge = try await auth.startTOTPEnrollment(issuer: "fuzz", account: "ada@example.com")
        _ = try? await auth.finalizeTOTPEnrollment(challenge, code: Secret("123456"))
    }),
    // Openfort (v2 and legacy v1)
    ("openfort.password", { _ = try await openfort($0).signIn(.password(identifier: "ada@example.com", password: Secret("pw"))) }),
    ("openfort.guest", { _ = try await openfort($0).signIn(.guest) }),
    ("openfort.signUp", { _ = try await openfort($0).signUp(SignUpRequest(email: "ada@example.com", password: Secret("pw"))) }),
    ("openfort.refresh", { _ = try await openfort($0).refresh(fuzzSession(provider: "openfort"), scope: nil) }),
    ("openfort.userInfo", { _ = try await openfort($0).userInfo(fuzzSession(provider: "openfort")) }),
    ("openfort.signOut", { try await openfort($0).signOut(fuzzSession(provider: "openfort")) }),
    ("openfort.account", { kit in
        let provider = openfort(kit)
        let session = fuzzSession(provider: "openfort")
        _ = try? await provider.currentUser(session)
        _ = try? await provider.linkSocial(session, provider: "google", redirectURL: "https://app.example.com/cb")
        _ = try? await provider.verifyEmail(token: Secret("token"), session: session)
        _ = try? await provider.verifyEmailOTP(email: "ada@example.com", otp: Secret("123456"), session: session)
        _ = try? await provider.signInWithEmailOTP(email: "ada@example.com", otp: Secret("123456"), upgrading: nil)
        _ = try? await provider.unlink(session, provider: "google")
        // Changing the email through the app-facing client (the REST client is package).
        let store = InMemorySessionStore()
        let auth = OpenfortAuth(provider: provider, store: store)
        _ = try await store.save(session, for: auth.key, expectedVersion: nil)
        _ = try await auth.changeEmail("ada2@example.com")
    }),
    ("openfort.oauth", { kit in
        let provider = openfort(kit)
        _ = try? await provider.oauthURL(provider: "google", redirectURL: "https://app.example.com/cb")
        _ = try await provider.signIn(idTokenProvider: "google", token: Secret("id-token"))
    }),
    ("openfort.legacy", { kit in
        let provider = openfort(kit, legacy: true)
        _ = try? await provider.signIn(.password(identifier: "ada@example.com", password: Secret("pw")))
        _ = try? await provider.signIn(.guest)
        _ = try? await provider.refresh(fuzzSession(provider: "openfort"), scope: nil)
        _ = try? await provider.currentUser(fuzzSession(provider: "openfort"))
        _ = try await provider.oauthURL(provider: "google", redirectURL: "https://app.example.com/cb")
    }),
    // Turnkey
    ("turnkey.passkey", { kit in
        let provider = turnkeyWithPasskeys(kit)
        _ = try await provider.signIn(.passkey(identifier: kit.clock.now.timeIntervalSince1970 > 0 ? "ada@example.com" : nil))
    }),
    ("turnkey.refresh", { _ = try await turnkey($0).refresh(turnkeySession, scope: nil) }),
    ("turnkey.userInfo", { _ = try await turnkey($0).userInfo(turnkeySession) }),
    ("turnkey.readWrite", { _ = try await turnkey($0).createReadWriteSession(turnkeySession, expirationSeconds: 900) }),
    ("turnkey.lookup", { kit in
        // The sub-organization lookup and creation through passkey sign-up (the typed endpoints are package).
        let provider = turnkeyWithPasskeys(kit)
        _ = try await provider.signUpWithPasskey(email: "ada@example.com", displayName: nil)
    }),
    // Generic OIDC (discovery, token endpoint, ID-token validation over the fetched JWKS)
    ("oidc.authorizationCode", { kit in
        let provider = oidc(kit)
        let transaction = try await provider.makeTransaction(redirectURI: "http://127.0.0.1:8080/callback")
        _ = try await provider.completeSignIn(callbackURL: URL(string: "http://127.0.0.1:8080/callback?code=c&state=\(transaction.state.revealed())")!,
                                              transaction: transaction)
    }),
    ("oidc.refresh", { _ = try await oidc($0).refresh(fuzzSession(provider: "oidc"), scope: nil) }),
    // Device authorization (RFC 8628): the provider's start and poll, and the flow that waits (the
    // fuzz clock jumps each pause, so expiry, slow_down and the poll cap are all reached).
    ("auth0.device", { kit in
        let provider = auth0(kit)
        let options = DeviceSignInOptions(scope: "openid offline_access", audience: "https://api.example.com")
        let authorization = try await provider.startDeviceSignIn(options: options)
        _ = try? await provider.pollDeviceSignIn(authorization, options: options)
        _ = try await provider.pollDeviceSignIn(authorization, options: options)
    }),
    ("oidc.device", { kit in
        let flow = DeviceSignInFlow(provider: oidc(kit), clock: kit.clock)
        _ = try await flow.start()
        _ = try await flow.waitForApproval()
    }),
]

/// Seam: every provider's public operations (`AuthProvider` and the provider-specific APIs) over a
/// `ProviderContext` whose `HTTPTransport` answers each request with the next status, headers and
/// body of the input (see `readReply`). First byte: the operation.
let providersTarget = FuzzTarget(name: "providers", summary: "every provider's operations against fuzzed replies") { bytes in
    var reader = FuzzReader(bytes)
    let operation = providerOperations[Int(reader.byte()) % providerOperations.count]
    let clock = FuzzClock()
    let kit = ProviderKit(context: ProviderContext(transport: FuzzTransport(reader), clock: clock, random: FuzzRandom()), clock: clock)
    runBlocking { try? await operation.run(kit) }
}

// MARK: 6b. Error mappers

let errorMappers: [any ErrorMapper] = [
    StatusErrorMapper(), OAuthErrorMapper(), Auth0ErrorMapper(), Auth0MyAccountErrorMapper(), Auth0ManagementErrorMapper(),
    FirebaseErrorMapper(), OpenfortErrorMapper(), OpenfortErrorMapper(sessionCall: true),
    TurnkeyErrorMapper(context: .request), TurnkeyErrorMapper(context: .passkeyLogin), TurnkeyErrorMapper(context: .session),
    TurnkeyErrorMapper(context: .refresh),
]

/// Seam: each `ErrorMapper.map(_:provider:)` directly on one fuzzed reply, and Turnkey's
/// `map(activityFailure:)`, `OpenfortErrorMapper.extract`.
let errorMappersTarget = FuzzTarget(name: "error-mappers", summary: "every provider's ErrorMapper on a fuzzed reply") { bytes in
    var reader = FuzzReader(bytes)
    let reply = readReply(&reader)
    for mapper in errorMappers {
        let error = mapper.map(reply, provider: "fuzz")
        _ = error.message
        _ = error.isRetryable
    }
    _ = OpenfortErrorMapper.extract(reply.body)
    if let json = try? JSONValue.parse(reply.body) {
        _ = TurnkeyErrorMapper(context: .passkeyLogin).map(activityFailure: json, provider: "fuzz")
    }
}
