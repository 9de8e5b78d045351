import AuthHub
@_spi(Internals) @testable import AuthHubOpenfort
import Foundation
import Testing

/// Parsing the app redirect at the end of an OAuth sign-in (spec §4).
@Suite struct OpenfortOAuthCallbackTests {
    func parse(_ url: String) throws -> OpenfortOAuthCallback { try OpenfortOAuthCallback.parse(url, provider: "openfort") }

    @Test func queryParameters() throws {
        let callback = try parse("myapp://oauth?access_token=abc.sig%3D&user_id=user-1")
        #expect(callback.token.revealed() == "abc.sig=", "URL-decoded once, signed form kept")
        #expect(callback.userID == "user-1" && callback.refreshToken == nil)
    }

    @Test func fragmentParameters() throws {
        let callback = try parse("https://app.example.com/cb#access_token=t%2Bx+y&user_id=u-2")
        #expect(callback.token.revealed() == "t+x+y", "a plus stays a plus")
        #expect(callback.userID == "u-2")
    }

    @Test func queryWinsOverFragment() throws {
        #expect(try parse("myapp://cb?access_token=q#access_token=f").token.revealed() == "q")
    }

    @Test func legacyParameters() throws {
        let callback = try parse("myapp://cb?access_token=jwt&refresh_token=rt&player_id=pla_1")
        #expect(callback.userID == "pla_1" && callback.refreshToken?.revealed() == "rt")
    }

    @Test func missingUserIDIsTolerated() throws {
        #expect(try parse("myapp://cb?access_token=t").userID == nil)
    }

    @Test(arguments: [
        ("myapp://cb?error=access_denied", AuthErrorCode.accessDenied),
        ("myapp://cb?error=INVALID_TOKEN", .invalidToken),
        ("myapp://cb?error=please_restart_the_process", .stateMismatch),
        ("myapp://cb?error=state_mismatch&access_token=t", .stateMismatch),
        ("myapp://cb?error=SOMETHING_NEW", .accessDenied),
        ("myapp://cb#error=USER_NOT_FOUND", .userNotFound),
    ])
    func errors(_ url: String, _ code: AuthErrorCode) throws {
        do {
            _ = try parse(url)
            Issue.record("expected an error for \(url)")
        } catch let error as AuthError {
            #expect(error.code == code)
            #expect(error.providerCode == URLComponents(string: url)?.queryItems?.first { $0.name == "error" }?.value
                ?? url.components(separatedBy: "error=").last)
        }
    }

    @Test func errorDescriptionIsTheMessage() throws {
        #expect(throws: AuthError(.accessDenied)) { try parse("myapp://cb?error=access_denied&error_description=User%20said%20no") }
        do { _ = try parse("myapp://cb?error=access_denied&error_description=User%20said%20no") } catch let error as AuthError {
            #expect(error.message == "User said no")
        }
    }

    @Test(arguments: ["myapp://cb", "myapp://cb?user_id=u", "myapp://cb?access_token=&user_id=u", "not a url", "", "://", "%%%"])
    func missingOrMalformed(_ url: String) {
        #expect(throws: AuthError(.invalidRequest)) { try parse(url) }
    }
}
