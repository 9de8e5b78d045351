import AuthHub
import Foundation
import Testing
@testable import AuthHubOIDC

@Suite struct AuthorizationRequestTests {
    func request() -> OIDCAuthorizationRequest {
        OIDCAuthorizationRequest(authorizationEndpoint: authorizeURL, clientId: "client-1", redirectURI: redirect)
    }

    @Test func defaultQueryHasPKCEStateNonceInLayerOrder() throws {
        let tx = try request().makeTransaction(random: CountingRandom())
        let verifier = CountingRandom.token(1)
        #expect(tx.codeVerifier.revealed() == verifier)
        #expect(verifier.count == 43)
        #expect(tx.state.revealed() == CountingRandom.token(2))
        #expect(tx.nonce?.revealed() == CountingRandom.token(3))
        let pairs = queryPairs(tx.url)
        #expect(pairs.map(\.0) == ["code_challenge", "code_challenge_method", "nonce", "scope", "client_id",
                                   "response_type", "redirect_uri", "state"])
        let q = queryDict(tx.url)
        #expect(q["code_challenge"] == s256(verifier))
        #expect(q["code_challenge_method"] == "S256")
        #expect(q["nonce"] == CountingRandom.token(3))
        #expect(q["state"] == CountingRandom.token(2))
        #expect(q["scope"] == "openid profile email")
        #expect(q["client_id"] == "client-1")
        #expect(q["response_type"] == "code")
        #expect(q["redirect_uri"] == redirect)
        #expect(tx.url.host == "idp.example.com")
        #expect(tx.url.path == "/authorize")
        #expect(tx.redirectURI == redirect)
        #expect(tx.maxAge == nil)
    }

    @Test func secretsAreNotPrinted() throws {
        let tx = try request().makeTransaction(random: CountingRandom())
        let shown = "\(tx.codeVerifier) \(tx.state) \(String(describing: tx.nonce))"
        #expect(!shown.contains(CountingRandom.token(1)))
        #expect(!shown.contains(CountingRandom.token(2)))
    }

    @Test(arguments: [
        ("profile email", "openid profile email"),
        ("openid", "openid"),
        ("email openid", "email openid"),
        ("openidx read", "openid openidx read"),
        ("", "openid"),
    ])
    func scopeAlwaysHasOpenID(given: String, sent: String) throws {
        var r = request()
        r.scope = given
        let tx = try r.makeTransaction(random: CountingRandom())
        #expect(queryDict(tx.url)["scope"] == sent)
        #expect(tx.scope == sent)
    }

    @Test func defaultScopeWithoutOpenIDIsFixedToo() throws {
        var r = request()
        r.defaultScope = "profile"
        #expect(queryDict(try r.makeTransaction(random: CountingRandom()).url)["scope"] == "openid profile")
    }

    @Test func builderValuesAndParametersOverrideInSpecOrder() throws {
        var r = request()
        r.organization = "org_fixed"
        r.maxAge = 300
        r.connection = "github"
        r.connectionScope = "repo"
        r.audience = "https://api.example.com"
        r.prompt = "login"
        r.screenHint = "signup"
        r.scope = "read:items"
        r.additionalParameters = [("prompt", "consent"), ("login_hint", "a+b@example.com"), ("scope", "write:items")]
        r.trailingParameters = [("telemetry", "abc")]
        let tx = try r.makeTransaction(random: CountingRandom())
        let q = queryDict(tx.url)
        #expect(q["organization"] == "org_fixed")
        #expect(q["max_age"] == "300")
        #expect(q["connection"] == "github")
        #expect(q["connection_scope"] == "repo")
        #expect(q["audience"] == "https://api.example.com")
        #expect(q["prompt"] == "consent")  // parameters win over the builder value
        #expect(q["screen_hint"] == "signup")
        #expect(q["login_hint"] == "a+b@example.com")
        #expect(q["scope"] == "openid write:items")  // the parameter wins, then openid is prepended
        #expect(queryPairs(tx.url).last?.0 == "telemetry")
        #expect(tx.maxAge == 300)
        #expect(tx.organization == "org_fixed")
    }

    @Test func plusAndSpaceArePercentEncoded() throws {
        var r = request()
        r.additionalParameters = [("login_hint", "a+b c")]
        let raw = try r.makeTransaction(random: CountingRandom()).url.absoluteString
        #expect(raw.contains("login_hint=a%2Bb%20c"))
        #expect(raw.contains("scope=openid%20profile%20email"))
        #expect(!raw.contains("+"))
    }

    @Test func invitationURLSetsOrganizationAndInvitation() throws {
        var r = request()
        r.organization = "org_other"
        r.invitationURL = URL(string: "https://app.example.com/login?invitation=inv123&organization=org_abc&organization_name=acme")
        let tx = try r.makeTransaction(random: CountingRandom())
        let q = queryDict(tx.url)
        #expect(q["organization"] == "org_abc")
        #expect(q["invitation"] == "inv123")
        #expect(tx.organization == "org_abc")
    }

    @Test(arguments: ["https://app.example.com/login?invitation=inv123", "https://app.example.com/login?organization=org_abc",
                      "https://app.example.com/login"])
    func invitationURLWithoutBothValuesIsRejected(link: String) throws {
        var r = request()
        r.invitationURL = URL(string: link)
        let error = authError { _ = try r.makeTransaction(random: CountingRandom()) }
        #expect(error?.code == .invalidRequest)
        #expect(error?.message.contains("invitation") == true)
    }

    @Test func callerStateAndNonceAreTheOnesExpected() throws {
        var r = request()
        r.state = Secret("my-state")
        r.additionalParameters = [("nonce", "param-nonce")]
        let tx = try r.makeTransaction(random: CountingRandom())
        #expect(tx.state.revealed() == "my-state")
        #expect(tx.nonce?.revealed() == "param-nonce")
        #expect(queryDict(tx.url)["state"] == "my-state")
        #expect(queryDict(tx.url)["nonce"] == "param-nonce")
        #expect(try tx.parseCallback("\(redirect)?code=c&state=my-state").code.revealed() == "c")
    }

    @Test func failingRandomSourceFallsBackToUUIDForStateAndNonce() throws {
        let tx = try request().makeTransaction(random: CountingRandom(shortFrom: 2))
        #expect(tx.codeVerifier.revealed().count == 43)
        let state = tx.state.revealed()
        #expect(state.count == 32)
        #expect(state.allSatisfy { $0.isHexDigit })
        #expect(tx.nonce?.revealed().count == 32)
        #expect(tx.nonce?.revealed() != state)
    }

    @Test func failingRandomSourceForTheVerifierThrows() {
        let error = authError { _ = try request().makeTransaction(random: CountingRandom(shortFrom: 1)) }
        #expect(error?.code == .unknown)
    }

    @Test func concurrentTransactionsAreKeptApart() throws {
        let a = try request().makeTransaction()
        let b = try request().makeTransaction()
        #expect(a.codeVerifier != b.codeVerifier)
        #expect(a.state != b.state)
        #expect(a.nonce != b.nonce)
        let callbackForA = "\(redirect)?code=abc&state=\(a.state.revealed())"
        #expect(try a.parseCallback(callbackForA).code.revealed() == "abc")
        #expect(authError { _ = try b.parseCallback(callbackForA) }?.code == .stateMismatch)
    }

    @Test func existingEndpointQueryIsKept() throws {
        let r = OIDCAuthorizationRequest(authorizationEndpoint: URL(string: "https://idp.example.com/authorize?tenant=t1")!,
                                         clientId: "c", redirectURI: redirect)
        let pairs = queryPairs(try r.makeTransaction(random: CountingRandom()).url)
        #expect(pairs.first?.0 == "tenant")
        #expect(pairs.first?.1 == "t1")
    }

    @Test func relativeEndpointIsAConfigurationError() {
        let r = OIDCAuthorizationRequest(authorizationEndpoint: URL(string: "/authorize")!, clientId: "c", redirectURI: redirect)
        #expect(authError { _ = try r.makeTransaction(random: CountingRandom()) }?.code == .invalidConfiguration)
    }
}
