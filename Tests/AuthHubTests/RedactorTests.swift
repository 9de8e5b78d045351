import AuthHub
import Foundation
import Testing

@Suite struct RedactorTests {
    @Test func redactsJSONAtAnyDepth() {
        let body = Data(#"{"user":{"email":"a@b.c","password":"pw-1"},"refresh_token":"rt-1","list":[{"otp_code":"123456"}],"token_type":"Bearer"}"#.utf8)
        let out = Redactor.body(body, contentType: "application/json")
        for secret in ["pw-1", "rt-1", "123456"] { #expect(!out.contains(secret), "\(out)") }
        #expect(out.contains("a@b.c"))
        #expect(out.contains("Bearer"))
    }

    @Test func redactsFormsQueriesAndHeaders() {
        let form = Redactor.body(Data("grant_type=password&username=u&password=p%40ss&client_id=c".utf8),
                                 contentType: "application/x-www-form-urlencoded")
        #expect(form == "grant_type=password&username=u&password=<redacted>&client_id=c")
        let url = Redactor.url(URL(string: "https://u:pw@h.example/cb?code=abc&state=xyz&x=1#access_token=tok")!)
        for s in ["abc", "xyz", "tok", "pw"] { #expect(!url.contains(s), "\(url)") }
        #expect(url.contains("x=1"))
        let headers = Redactor.headers([.authorization: "Bearer t0k", HTTPField.Name.constant("X-Stamp-WebAuthn"): "s", .contentType: "application/json"])
        #expect(!headers.contains("t0k"))
        #expect(headers.contains("application/json"))
    }

    @Test func redactsSecretsWhoseNamesSayNothingOfTokens() {
        let body = Data(#"{"barcode_uri":"otpauth://totp/T:a?secret=JBSWY3DP","link_with":"eyJ.id.token","oobLink":"http://h/a?oobCode=c1","id":"totp|dev_1"}"#.utf8)
        let out = Redactor.body(body, contentType: "application/json")
        for secret in ["JBSWY3DP", "eyJ.id.token", "c1"] { #expect(!out.contains(secret), "\(out)") }
        #expect(out.contains("totp|dev_1"))
    }

    /// Debug logs hide secrets only: flags, numbers, error codes and token metadata stay readable.
    @Test func nonSecretsUnderSecretSoundingNamesAreShown() {
        let request = Data(#"{"email":"a@b.c","password":"pw-9","returnSecureToken":true,"disableCookieCache":true,"timestampMs":"1767225600000","challenge_type":"otp oob","otp":123456,"pin":4321}"#.utf8)
        let out = Redactor.body(request, contentType: "application/json")
        for shown in [#""returnSecureToken":true"#, #""disableCookieCache":true"#, #""timestampMs":"1767225600000""#, #""challenge_type":"otp oob""#] {
            #expect(out.contains(shown), "\(out)")
        }
        for secret in ["pw-9", "123456", "4321"] { #expect(!out.contains(secret), "\(out)") }

        let error = Data(#"{"error":{"code":400,"message":"INVALID_OOB_CODE","errors":[{"message":"INVALID_OOB_CODE","reason":"invalid","domain":"global"}]}}"#.utf8)
        let shownError = Redactor.body(error, contentType: "application/json")
        #expect(shownError.contains(#""code":400"#) && shownError.contains("INVALID_OOB_CODE") && shownError.contains("global"), "\(shownError)")
        let auth0Error = Data(#"{"error":{"code":"invalid_password","message":"too weak"},"code":"authz-code-1","session_expires_in":3600}"#.utf8)
        let mixed = Redactor.body(auth0Error, contentType: "application/json")
        #expect(mixed.contains("invalid_password") && mixed.contains("3600") && !mixed.contains("authz-code-1"), "\(mixed)")
    }

    @Test func nonJSONBodiesShowOnlyTheirSize() {
        #expect(Redactor.body(Data("secret-bytes".utf8), contentType: "text/plain") == "<12 bytes>")
    }
}
