import AuthHub
import Foundation
import Testing
@testable import AuthHubOIDC

@Suite struct CallbackTests {
    let tx: OIDCAuthorizationTransaction
    let state: String

    init() throws {
        tx = try OIDCAuthorizationRequest(authorizationEndpoint: authorizeURL, clientId: "client-1", redirectURI: redirect)
            .makeTransaction(random: CountingRandom())
        state = CountingRandom.token(2)
    }

    @Test func codeFromQuery() throws {
        let response = try tx.parseCallback(URL(string: "\(redirect)?code=the-code&state=\(state)&iss=x")!)
        #expect(response.code.revealed() == "the-code")
        #expect(response.state.revealed() == state)
        #expect(response.parameters == ["iss": "x"])
    }

    @Test func codeFromFragment() throws {
        #expect(try tx.parseCallback("\(redirect)#code=frag-code&state=\(state)").code.revealed() == "frag-code")
    }

    @Test func queryWinsOverFragment() throws {
        let response = try tx.parseCallback("\(redirect)?code=query-code&state=\(state)#code=frag-code&state=wrong")
        #expect(response.code.revealed() == "query-code")
    }

    @Test func percentEncodedValuesAreDecoded() throws {
        #expect(try tx.parseCallback("\(redirect)?code=a%2Fb%2Bc&state=\(state)").code.revealed() == "a/b+c")
    }

    @Test(arguments: ["?code=c&state=other", "?code=c", "?error=access_denied&state=other", "?error=access_denied"])
    func wrongOrMissingStateIsRejectedFirst(suffix: String) {
        let error = authError { _ = try tx.parseCallback(redirect + suffix) }
        #expect(error?.code == .stateMismatch)
    }

    @Test func accessDeniedIsMappedWithTheRawCode() {
        let error = authError {
            _ = try tx.parseCallback("\(redirect)?error=access_denied&error_description=User%20said%20no&state=\(state)")
        }
        #expect(error?.code == .accessDenied)
        #expect(error?.providerCode == "access_denied")
        #expect(error?.message == "User said no")
        #expect(error?.statusCode == 302)
    }

    @Test(arguments: [
        ("login_required", AuthErrorCode.requiresRecentLogin),
        ("interaction_required", .requiresRecentLogin),
        ("invalid_scope", .invalidRequest),
        ("unauthorized_client", .invalidConfiguration),
        ("server_error", .providerUnavailable),
        ("temporarily_unavailable", .providerUnavailable),
        ("something_new", .unknown),
    ])
    func errorCodesAreMapped(raw: String, expected: AuthErrorCode) {
        let error = authError { _ = try tx.parseCallback("\(redirect)#error=\(raw)&state=\(state)") }
        #expect(error?.code == expected)
        #expect(error?.providerCode == raw)
        #expect(error?.message.isEmpty == false)
    }

    @Test func missingCodeIsAClearError() {
        let error = authError { _ = try tx.parseCallback("\(redirect)?state=\(state)") }
        #expect(error?.code == .invalidRequest)
        #expect(error?.message.contains("authorization code") == true)
    }

    @Test func emptyCodeIsMissing() {
        #expect(authError { _ = try tx.parseCallback("\(redirect)?code=&state=\(state)") }?.code == .invalidRequest)
    }

    @Test func repeatedParameterIsRejected() {
        let error = authError { _ = try tx.parseCallback("\(redirect)?code=a&code=b&state=\(state)") }
        #expect(error?.code == .invalidRequest)
        #expect(error?.message.contains("repeats") == true)
    }

    @Test(arguments: ["http://exa mple.com/cb?code=1", "", "::::", "?%"])
    func malformedCallbackIsAnErrorNotACrash(raw: String) {
        let error = authError { _ = try tx.parseCallback(raw) }
        #expect(error != nil)
        #expect(error?.code == .invalidRequest || error?.code == .stateMismatch)
    }

    @Test func errorMessageNeverContainsTheCode() {
        let error = authError { _ = try tx.parseCallback("\(redirect)?code=SECRETCODE&state=bad") }
        #expect(error.map { !"\($0)".contains("SECRETCODE") } == true)
    }
}
