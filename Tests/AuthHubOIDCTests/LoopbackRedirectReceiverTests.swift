import AuthHub
import AuthHubTesting
import Foundation
import Testing
@testable import AuthHubOIDC

/// These tests talk to the receiver over real loopback HTTP with the core URLSessionTransport.
@Suite struct LoopbackRedirectReceiverTests {
    let client = URLSessionTransport(defaultTimeout: .seconds(60), followRedirects: false)

    func get(_ url: String) async throws -> HTTPReply {
        try await client.send(.get, try #require(URL(string: url)))
    }

    @Test func redirectURIUsesLoopbackIPAndAnEphemeralPort() throws {
        let receiver = try LoopbackRedirectReceiver()
        defer { receiver.close() }
        #expect(receiver.port > 0)
        #expect(receiver.redirectURI == "http://127.0.0.1:\(receiver.port)/callback")
    }

    @Test func receivesOneCallbackAndAnswersWithAPage() async throws {
        let receiver = try LoopbackRedirectReceiver()
        let clock = FakeClock(mode: .manual)  // never advanced: only the callback can end the wait
        let waiting = Task { try await receiver.waitForCallback(timeout: .seconds(300), clock: clock) }

        let other = try await get("http://127.0.0.1:\(receiver.port)/favicon.ico")
        #expect(other.status == 404)

        let tx = try OIDCAuthorizationRequest(authorizationEndpoint: authorizeURL, clientId: "client-1",
                                              redirectURI: receiver.redirectURI).makeTransaction(random: CountingRandom())
        let response = try await get("\(receiver.redirectURI)?code=abc%2B1&state=\(tx.state.revealed())")
        #expect(response.status == 200)
        #expect(response.headerFields["Content-Type"] == "text/html; charset=utf-8")
        let page = String(decoding: response.body, as: UTF8.self)
        #expect(page.contains("return to the application"))
        #expect(!page.contains("abc"))

        let url = try await waiting.value
        #expect(url.absoluteString == "\(receiver.redirectURI)?code=abc%2B1&state=\(tx.state.revealed())")
        #expect(try tx.parseCallback(url).code.revealed() == "abc+1")

        // Single use: the port is closed and the receiver cannot wait again.
        await expectNotServing(receiver.redirectURI + "?code=again")
        let again = await asyncAuthError { _ = try await receiver.waitForCallback(timeout: .seconds(1), clock: clock) }
        #expect(again?.code == .invalidRequest)
    }

    @Test func postToTheCallbackIsNotAccepted() async throws {
        let receiver = try LoopbackRedirectReceiver()
        let waiting = Task { try await receiver.waitForCallback(timeout: .seconds(300), clock: FakeClock(mode: .manual)) }
        let post = try await client.send(.post, try #require(URL(string: receiver.redirectURI + "?code=x")))
        #expect(post.status == 405)
        _ = try await get(receiver.redirectURI + "?code=y")
        #expect(try await waiting.value.query == "code=y")
    }

    /// The receiver no longer serves its port: the connection fails — or, when another test's
    /// server was given the freed port meanwhile (tests run in parallel), what answers is not the
    /// receiver's page. (A plain "the request fails" failed one full run that way.)
    func expectNotServing(_ uri: String) async {
        guard let reply = try? await get(uri) else { return }
        #expect(!String(decoding: reply.body, as: UTF8.self).contains("return to the application"), "the receiver still answers: \(reply.status)")
    }

    @Test func timesOutOnTheInjectedClock() async throws {
        let receiver = try LoopbackRedirectReceiver()
        let clock = FakeClock()  // auto-advance: the timeout's sleep returns at once
        let error = await asyncAuthError { _ = try await receiver.waitForCallback(timeout: .seconds(120), clock: clock) }
        #expect(error?.code == .timeout)
        #expect(clock.sleeps == [.seconds(120)])
        await expectNotServing(receiver.redirectURI + "?code=late")
    }

    @Test func cancellingTheWaitIsUserCancelled() async throws {
        let receiver = try LoopbackRedirectReceiver()
        let waiting = Task { try await receiver.waitForCallback(timeout: .seconds(300), clock: FakeClock(mode: .manual)) }
        waiting.cancel()
        let error = await asyncAuthError { _ = try await waiting.value }
        #expect(error?.code == .userCancelled)
    }

    @Test func closeBeforeWaitingMakesTheReceiverUnusable() async throws {
        let receiver = try LoopbackRedirectReceiver()
        receiver.close()
        let error = await asyncAuthError { _ = try await receiver.waitForCallback(timeout: .seconds(1)) }
        #expect(error?.code == .invalidRequest)
    }

    @Test func customPathAndInvalidPath() throws {
        let receiver = try LoopbackRedirectReceiver(path: "/oauth/done")
        defer { receiver.close() }
        #expect(receiver.redirectURI.hasSuffix("/oauth/done"))
        #expect(authError { _ = try LoopbackRedirectReceiver(path: "callback") }?.code == .invalidConfiguration)
    }
}
