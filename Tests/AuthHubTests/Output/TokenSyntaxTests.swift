import AuthHub
import AuthHubTesting
import Foundation
import Testing

/// A token that could add a header (`curl -H "Authorization: Bearer $(authhub token)"`) or act on a
/// terminal is a malformed reply: refused before it is stored, at sign-in and at renewal alike.
@Suite struct TokenSyntaxTests {
    static let hostile: [(String, String)] = [
        ("CR LF header", "abc\r\nX-Injected: 1"), ("LF", "abc\ndef"), ("ESC", "abc\u{1B}[2J"), ("NUL", "abc\u{0}"),
        ("space", "abc def"), ("DEL", "abc\u{7F}"), ("C1", "abc\u{9B}1m"), ("non-ASCII", "abcé"), ("RLO", "abc\u{202E}"),
    ]

    @Test func visibleASCIIIsAcceptedAndNothingElse() {
        #expect(TokenSyntax.isVisibleASCII("eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln-_~+/="))
        #expect(TokenSyntax.isVisibleASCII("v1.M!#$%&'()*,:;<>?@[]^`{|}"))
        for (name, token) in Self.hostile { #expect(!TokenSyntax.isVisibleASCII(token), "\(name)") }
        #expect(TokenSyntax.isTokenType("Bearer") && TokenSyntax.isTokenType("DPoP") && TokenSyntax.isTokenType("bearer"))
        #expect(!TokenSyntax.isTokenType("") && !TokenSyntax.isTokenType("Bearer\r\nX: 1") && !TokenSyntax.isTokenType("Bearer x"))
    }

    @Test(arguments: ["accessToken", "refreshToken", "idToken", "tokenType"])
    func aSignInWithAHostileTokenStoresNothing(field: String) async throws {
        for (name, bad) in Self.hostile {
            let store = InMemorySessionStore()
            let manager = SessionManager(key: SessionKey(provider: "p"), provider: StubRefreshProvider(), store: store)
            var session = Session(providerID: "p", accessToken: Secret("good"), refreshToken: Secret("refresh"))
            switch field {
            case "accessToken": session.accessToken = Secret(bad)
            case "refreshToken": session.refreshToken = Secret(bad)
            case "idToken": session.idToken = Secret(bad)
            default: session.tokenType = bad
            }
            do {
                try await manager.store(session)
                Issue.record("\(field) with \(name) was stored")
            } catch let error as AuthError {
                #expect(error.code == .invalidRequest)
                #expect(error.details["field"] == field)
                #expect(!error.message.contains(bad), "the message quotes the token")
            }
            #expect(try await store.load(SessionKey(provider: "p")) == nil)
        }
    }

    @Test func aRenewalWithAHostileTokenKeepsTheStoredSession() async throws {
        let store = InMemorySessionStore()
        let provider = StubRefreshProvider(renewedAccessToken: "new\r\nX-Injected: 1")
        let manager = SessionManager(key: SessionKey(provider: "p"), provider: provider, store: store)
        let stored = try await manager.store(Session(providerID: "p", accessToken: Secret("old"), refreshToken: Secret("refresh"),
                                                     expiresAt: Date(timeIntervalSinceNow: -10)))
        await #expect(throws: AuthError(.invalidRequest)) { try await manager.session(minTTL: 60) }
        let kept = try #require(try await store.load(SessionKey(provider: "p")))
        #expect(kept.accessToken.revealed() == "old" && kept.version == stored.version)
    }
}

/// A provider whose renewals answer with `renewedAccessToken`.
struct StubRefreshProvider: AuthProvider {
    var renewedAccessToken = "renewed"
    var id: String { "p" }
    var type: String { "stub" }
    var capabilities: Set<AuthCapability> { [.refresh] }
    func refresh(_ session: Session, scope: String?) async throws -> Session {
        Session(providerID: "p", accessToken: Secret(renewedAccessToken), refreshToken: Secret("refresh-2"), expiresAt: Date(timeIntervalSinceNow: 3600))
    }
}
