import AuthHub
import AuthHubEmulator
import AuthHubTesting
import Foundation
import Testing

@Suite struct OpenfortSocialTests {
    @Test func oauthStartAuthorizeAndRedirectWithAccessToken() async throws {
        let wire = try await OpenfortWire.start()
        let start = try await wire.post(
            "sign-in/social", ["provider": "google", "callbackURL": "myapp://oauth", "disableRedirect": true, "loginHint": "G@Example.com"]
        )
        let url = try #require(start.string("url"))
        let redirect = try await wire.authorize(url)
        let replay = try await wire.authorize(url)
        let query = redirect.locationQuery
        let token = try #require(query["access_token"])
        let session = try await wire.session(token)
        let me = try await wire.me(token)
        let unknown = try await wire.post("sign-in/social", ["provider": "myspace", "callbackURL": "myapp://oauth"])
        let noCallback = try await wire.post("sign-in/social", ["provider": "google"])
        await wire.emulator.stop()

        #expect(start.status == 200)
        #expect(start["redirect"] == false)
        #expect(redirect.status == 302)
        #expect(redirect.location?.hasPrefix("myapp://oauth?access_token=") == true)
        #expect(query["user_id"] == session["user"]?["id"]?.stringValue)
        #expect(session["user"]?["email"] == "g@example.com")
        #expect(session["user"]?["emailVerified"] == true)
        #expect(me["linkedAccounts"]?.arrayValue?.map { $0["provider"] } == ["google"])
        #expect(replay.status == 400 && replay.code == "INVALID_STATE", "a state is used once")
        #expect(unknown.status == 404 && unknown.code == "PROVIDER_NOT_FOUND")
        #expect(noCallback.status == 400 && noCallback.code == "CALLBACK_URL_REQUIRED")
    }

    @Test func deniedAuthorizationRedirectsWithError() async throws {
        let wire = try await OpenfortWire.start()
        let start = try await wire.post("sign-in/social", ["provider": "apple", "callbackURL": "myapp://oauth"])
        let errorStart = try await wire.post(
            "sign-in/social", ["provider": "apple", "callbackURL": "myapp://oauth", "errorCallbackURL": "myapp://failed"]
        )
        let denied = try await wire.authorize(try #require(start.string("url")), extra: "&authhub_emulator_deny=1")
        let deniedToError = try await wire.authorize(try #require(errorStart.string("url")), extra: "&authhub_emulator_deny=1")
        await wire.emulator.stop()

        #expect(start["redirect"] == true)
        #expect(denied.status == 302 && denied.location == "myapp://oauth?error=access_denied")
        #expect(deniedToError.location == "myapp://failed?error=access_denied")
    }

    @Test func idTokenSignIn() async throws {
        let wire = try await OpenfortWire.start()
        let apple = try await wire.post("sign-in/social", ["provider": "apple", "idToken": ["token": "emulator:Ann@Example.com", "nonce": "n"]])
        let google = try await wire.post("sign-in/social", ["provider": "google", "idToken": ["token": "emulator:ann@example.com"]])
        let forged = try await wire.post("sign-in/social", ["provider": "apple", "idToken": ["token": "eyJhbGciOiJub25lIn0.e30."]])
        let twitter = try await wire.post("sign-in/social", ["provider": "twitter", "idToken": ["token": "emulator:ann@example.com"]])
        let me = try await wire.me(try #require(google.string("token")))
        await wire.emulator.stop()

        #expect(apple.status == 200)
        #expect(apple["redirect"] == false && apple["url"] == .null)
        #expect(apple["user"]?["email"] == "ann@example.com")
        #expect(google["user"]?["id"] == apple["user"]?["id"], "same email, same user")
        #expect(forged.status == 400 && forged.code == "INVALID_TOKEN")
        #expect(twitter.status == 400 && twitter.code == "ID_TOKEN_NOT_SUPPORTED")
        #expect(Set(me["linkedAccounts"]?.arrayValue?.compactMap { $0["provider"]?.stringValue } ?? []) == ["apple", "google"])
    }

    @Test func guestLinksGoogleThenLinkAndUnlink() async throws {
        let wire = try await OpenfortWire.start()
        let guest = try await wire.post("sign-in/anonymous")
        let guestToken = try #require(guest.string("token"))
        let start = try await wire.send(
            .post, OpenfortWire.auth + "sign-in/social", json: ["provider": "google", "callbackURL": "myapp://oauth"], bearer: guestToken
        )
        let redirect = try await wire.authorize(try #require(start.string("url")), extra: "&email=guest.google@example.com")
        let token = try #require(redirect.locationQuery["access_token"])
        let linkNoSession = try await wire.post("link-social", ["provider": "apple", "callbackURL": "myapp://link"])
        let link = try await wire.send(
            .post, OpenfortWire.auth + "link-social", json: ["provider": "apple", "callbackURL": "myapp://link"], bearer: token
        )
        let linked = try await wire.authorize(try #require(link.string("url")), extra: "&email=guest.apple@example.com")
        let other = try await wire.post("sign-in/social", ["provider": "discord", "idToken": ["token": "emulator:x@example.com"]])
        let meLinked = try await wire.me(token)
        let unlink = try await wire.send(.post, OpenfortWire.auth + "unlink-account", json: ["providerId": "apple"], bearer: token)
        let unlinkMissing = try await wire.send(.post, OpenfortWire.auth + "unlink-account", json: ["providerId": "apple"], bearer: token)
        let unlinkLast = try await wire.send(.post, OpenfortWire.auth + "unlink-account", json: ["providerId": "google"], bearer: token)
        let unlinkNoSession = try await wire.post("unlink-account", ["providerId": "google"])
        let me = try await wire.me(token)
        await wire.emulator.stop()

        #expect(redirect.locationQuery["user_id"] == guest["user"]?["id"]?.stringValue, "the guest became the Google user")
        #expect(linkNoSession.status == 401 && linkNoSession.code == "UNAUTHORIZED")
        #expect(link["status"] == true)
        #expect(linked.locationQuery["user_id"] == guest["user"]?["id"]?.stringValue)
        #expect(other.code == "ID_TOKEN_NOT_SUPPORTED")
        #expect(meLinked["isAnonymous"] == false)
        #expect(meLinked["email"] == "guest.google@example.com")
        #expect(meLinked["linkedAccounts"]?.arrayValue?.map { $0["provider"] } == ["google", "apple"])
        #expect(unlink.json == ["status": true])
        #expect(unlinkMissing.status == 400 && unlinkMissing.code == "ACCOUNT_NOT_FOUND")
        #expect(unlinkLast.status == 400 && unlinkLast.code == "FAILED_TO_UNLINK_LAST_ACCOUNT")
        #expect(unlinkNoSession.status == 401)
        #expect(me["linkedAccounts"]?.arrayValue?.map { $0["provider"] } == ["google"])
    }

    @Test func linkingAnAccountHeldByAnotherUserFails() async throws {
        let wire = try await OpenfortWire.start()
        _ = try await wire.post("sign-in/social", ["provider": "google", "idToken": ["token": "emulator:taken@example.com"]])
        try await wire.seed("me@example.com")
        let token = try #require(try await wire.signIn("me@example.com").string("token"))
        let viaToken = try await wire.send(
            .post, OpenfortWire.auth + "link-social",
            json: ["provider": "google", "idToken": ["token": "emulator:taken@example.com"]], bearer: token
        )
        let link = try await wire.send(
            .post, OpenfortWire.auth + "link-social", json: ["provider": "google", "callbackURL": "myapp://link"], bearer: token
        )
        let redirect = try await wire.authorize(try #require(link.string("url")), extra: "&email=taken@example.com")
        await wire.emulator.stop()

        #expect(viaToken.status == 400 && viaToken.code == "SOCIAL_ACCOUNT_ALREADY_LINKED")
        #expect(redirect.location == "myapp://link?error=SOCIAL_ACCOUNT_ALREADY_LINKED")
    }
}
