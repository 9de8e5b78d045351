import AuthHub
import Foundation
import HTTPTypes

/// A held-factor service for the suite: one recovery code, accepted once, for every user of the
/// provider while it is on — enough to drive an adapter's second-step route (the factors themselves
/// are `AuthHubFactors`' and tested there).
package final class ConformanceHeldFactors: HeldFactorService {
    package static let code = "conformance-code-1"
    let provider: String
    private let used = Mutex(false)

    package init(provider: String) { self.provider = provider }

    package func covers(_ provider: any AuthProvider) -> Bool { provider.id == self.provider }
    package var accountCapabilities: Set<AccountCapability> { [] }
    package func methods(of owner: HeldFactorOwner) async throws -> [AccountMethod] { [] }
    package func startEnrollment(_ request: MethodEnrollmentRequest, options: MethodEnrollmentOptions, owner: HeldFactorOwner) async throws
        -> MethodEnrollmentChallenge { throw AuthError(.unsupported) }
    package func confirmEnrollment(_ challenge: MethodEnrollmentChallenge, response: MethodEnrollmentResponse, owner: HeldFactorOwner) async throws
        -> AccountMethod? { throw AuthError(.unsupported) }
    package func deleteMethod(id: String, owner: HeldFactorOwner) async throws { throw AuthError(.unsupported) }
    package func secondStep(for owner: HeldFactorOwner) async throws -> HeldSecondStep? {
        HeldSecondStep(kinds: [.recoveryCode], factors: [.init(id: "authhub.conformance", kind: FactorKind.recoveryCode.rawValue)])
    }
    package func verify(_ response: HeldSecondStepResponse, step: HeldSecondStep, owner: HeldFactorOwner) async throws {
        guard case .recoveryCode(let code) = response, code.revealed() == Self.code,
              used.withLock({ used in defer { used = true }; return !used }) else {
            throw AuthError(.invalidMFACode, message: "wrong or used")
        }
    }
}

extension WebConformanceCheck {
    /// The account pages and the second step of AuthHub-held factors through the adapter's routes:
    /// a signed-out browser is sent to sign in (from the password page too); the sign-in form's POST
    /// is routed (an answer without its pre-session is 400); the overview is HTML with a nonce CSP; its form
    /// refuses another origin and a missing token; with held factors on, the callback sends the
    /// browser to the second step (no session yet), whose page takes the code once and then sets
    /// the session cookie.
    func accountPagesAndTheHeldSecondStep() async throws -> [String] {
        var f = Failures()
        let account = web.configuration.accountPath
        let anonymous = try await client.get(account)
        f.expectStatus(anonymous, 303, "the account page for a signed-out browser")
        f.expect(anonymous.location?.hasPrefix("\(prefix)/login?provider=") == true, "it is sent to sign in: \(anonymous.location ?? "none")")
        // The password and profile forms, and the sign-in form's POST, are routed too.
        let edit = try await client.get(account + "/edit?what=password")
        f.expectStatus(edit, 303, "the password page for a signed-out browser")
        f.expectStatus(try await client.send(.post, "\(prefix)/login", headers: [.origin: WebConformanceCheck.origin],
                                             form: "csrf=x&email=a%40example.com&password=x"),
                       400, "the sign-in form's POST without its pre-session")
        let sid = try await signIn()
        let page = try await client.get(account, cookies: [(sessionName, sid)])
        f.expectStatus(page, 200, "the account page")
        f.expect(page.headers[.contentType]?.hasPrefix("text/html") == true, "the account page is HTML")
        let csp = page.headers[.contentSecurityPolicy] ?? ""
        f.expect(csp.contains("default-src 'none'") && csp.contains("'nonce-") && csp.contains("frame-ancestors 'none'"),
                 "the account page's CSP: \(csp)")
        f.expect(page.body.contains(environment.userEmail), "the account page names the user")
        let csrf = try await self.csrf(sid)
        f.expectStatus(try await client.send(.post, account, cookies: [(sessionName, sid)], headers: [.origin: "https://evil.example"],
                                             form: "csrf=\(csrf)&action=sign-out-others"), 403, "an account form from another origin")
        f.expectStatus(try await client.send(.post, account, cookies: [(sessionName, sid)], headers: [.origin: WebConformanceCheck.origin],
                                             form: "action=sign-out-others"), 403, "an account form without the token")

        hub.useHeldFactors(ConformanceHeldFactors(provider: provider))
        defer { hub.useHeldFactors(nil) }
        let (pre, _, callback) = try await begin()
        let finished = try await client.get(callback, cookies: [(preName, pre)])
        f.expectStatus(finished, 303, "the callback of a user holding a held factor")
        f.expect(finished.location == web.configuration.secondFactorPath, "it goes to the second step: \(finished.location ?? "none")")
        f.expect(finished.cookie(sessionName) == nil, "no session cookie before the second step")
        guard let waiting = finished.cookie(web.configuration.secondStepCookieName), !waiting.isEmpty else {
            return f.messages + ["no second-step cookie: \(finished.summary)"]
        }
        let cookies = [(web.configuration.secondStepCookieName, waiting)]
        let step = try await client.get(web.configuration.secondFactorPath, cookies: cookies)
        f.expectStatus(step, 200, "the second-step page")
        guard let range = step.body.range(of: "name=\"csrf\" value=\"") else { return f.messages + ["the second-step page has no form token"] }
        let token = String(step.body[range.upperBound...].prefix { $0 != "\"" })
        let origin: HTTPFields = [.origin: WebConformanceCheck.origin]
        f.expectStatus(try await client.send(.post, web.configuration.secondFactorPath, cookies: cookies, headers: origin,
                                             form: "csrf=\(token)&kind=recoveryCode&code=wrong"), 401, "a wrong code")
        let done = try await client.send(.post, web.configuration.secondFactorPath, cookies: cookies, headers: origin,
                                         form: "csrf=\(token)&kind=recoveryCode&code=\(ConformanceHeldFactors.code)")
        f.expectStatus(done, 303, "the right code")
        guard let second = done.cookie(sessionName), !second.isEmpty else { return f.messages + ["no session cookie after the second step"] }
        f.expectStatus(try await me(second), 200, "the session made by the second step")
        f.expectStatus(try await client.send(.post, web.configuration.secondFactorPath, cookies: cookies, headers: origin,
                                             form: "csrf=\(token)&kind=recoveryCode&code=\(ConformanceHeldFactors.code)"), 400,
                       "the same second step again")
        return f.messages
    }
}
