import AuthHub
@_spi(Internals) @testable import AuthHubFirebase
import Foundation
import Testing

/// Every error code of spec/firebase.md §5.1 and §3, the envelope forms of §5, and bodies that are
/// not the envelope at all.
@Suite struct FirebaseErrorMapperTests {
    private func map(_ status: Int, _ body: String, endpoint: FirebaseErrorMapper.Endpoint = .identityToolkit,
                     headerFields headers: HTTPFields = [:]) -> AuthError {
        FirebaseErrorMapper(endpoint: endpoint).map(HTTPReply(status: status, headerFields: headers, body: Data(body.utf8)), provider: "firebase")
    }

    private func envelope(_ message: String, status: String? = nil) -> String {
        let json = FB.error(message, status: status)
        return String(decoding: (try? JSONEncoder().encode(json)) ?? Data(), as: UTF8.self)
    }

    /// (server code, canonical code, iOS code) — §5.1 first, then the §3 extras (iOS: internalError 17999).
    static let table: [(String, AuthErrorCode, String)] = [
        ("EMAIL_EXISTS", .emailAlreadyInUse, "17007"),
        ("EMAIL_NOT_FOUND", .userNotFound, "17011"),
        ("USER_NOT_FOUND", .userNotFound, "17011"),
        ("INVALID_PASSWORD", .invalidCredentials, "17009"),
        ("INVALID_LOGIN_CREDENTIALS", .invalidCredentials, "17004"),
        ("INVALID_IDP_RESPONSE", .invalidCredentials, "17004"),
        ("INVALID_PENDING_TOKEN", .invalidCredentials, "17004"),
        ("USER_DISABLED", .accessDenied, "17005"),
        ("OPERATION_NOT_ALLOWED", .unsupported, "17006"),
        ("PASSWORD_LOGIN_DISABLED", .unsupported, "17006"),
        ("INVALID_EMAIL", .invalidEmail, "17008"),
        ("INVALID_IDENTIFIER", .invalidEmail, "17008"),
        ("TOO_MANY_ATTEMPTS_TRY_LATER", .rateLimited, "17010"),
        ("WEAK_PASSWORD", .weakPassword, "17026"),
        ("PASSWORD_DOES_NOT_MEET_REQUIREMENTS", .weakPassword, "17211"),
        ("INVALID_ID_TOKEN", .sessionExpired, "17017"),
        ("TOKEN_EXPIRED", .sessionExpired, "17021"),
        ("CREDENTIAL_TOO_OLD_LOGIN_AGAIN", .requiresRecentLogin, "17014"),
        ("EXPIRED_OOB_CODE", .expiredActionCode, "17029"),
        ("INVALID_OOB_CODE", .invalidActionCode, "17030"),
        ("MISSING_EMAIL", .invalidEmail, "17034"),
        ("MISSING_CONTINUE_URI", .invalidConfiguration, "17040"),
        ("INVALID_CONTINUE_URI", .invalidConfiguration, "17039"),
        ("UNAUTHORIZED_DOMAIN", .invalidConfiguration, "17038"),
        ("MISSING_IOS_BUNDLE_ID", .invalidConfiguration, "17036"),
        ("MISSING_ANDROID_PACKAGE_NAME", .invalidConfiguration, "17037"),
        ("INVALID_MESSAGE_PAYLOAD", .invalidConfiguration, "17031"),
        ("INVALID_SENDER", .invalidConfiguration, "17032"),
        ("INVALID_RECIPIENT_EMAIL", .invalidEmail, "17033"),
        ("INVALID_CUSTOM_TOKEN", .invalidToken, "17000"),
        ("CREDENTIAL_MISMATCH", .invalidToken, "17002"),
        ("QUOTA_EXCEEDED", .rateLimited, "17052"),
        ("ADMIN_ONLY_OPERATION", .accessDenied, "17085"),
        ("EMAIL_CHANGE_NEEDS_VERIFICATION", .verificationRequired, "17090"),
        ("UNVERIFIED_EMAIL", .emailNotVerified, "17086"),
        ("TENANT_ID_MISMATCH", .invalidConfiguration, "17072"),
        ("UNSUPPORTED_TENANT_OPERATION", .unsupported, "17073"),
        ("BLOCKING_FUNCTION_ERROR_RESPONSE", .accessDenied, "17105"),
        ("FEDERATED_USER_ID_ALREADY_LINKED", .credentialAlreadyInUse, "17025"),
        ("MISSING_PASSWORD", .invalidRequest, "17999"),
        ("MISSING_OOB_CODE", .invalidActionCode, "17999"),
        ("MISSING_REQ_TYPE", .invalidRequest, "17999"),
        ("MISSING_ID_TOKEN", .invalidRequest, "17999"),
        ("RESET_PASSWORD_EXCEED_LIMIT", .rateLimited, "17999"),
        ("PROJECT_DISABLED", .invalidConfiguration, "17999"),
        ("PROJECT_NUMBER_MISMATCH", .invalidConfiguration, "17999"),
        ("INVALID_REFRESH_TOKEN", .refreshTokenInvalid, "17999"),
        ("MISSING_REFRESH_TOKEN", .invalidRequest, "17999"),
        ("INVALID_GRANT_TYPE", .invalidRequest, "17999"),
        ("MISSING_GRANT_TYPE", .invalidRequest, "17999"),
    ]

    @Test(arguments: table)
    func everyServerCodeMaps(_ entry: (String, AuthErrorCode, String)) {
        let (server, code, ios) = entry
        let error = map(400, envelope(server))
        #expect(error.code == code, "\(server)")
        #expect(error.providerCode == server && error.details["iosCode"] == ios && error.statusCode == 400 && error.provider == "firebase")
        // Without `errors` and with a status, as production secure-token replies come.
        let bare = map(400, #"{"error":{"code":400,"message":"\#(server)","status":"INVALID_ARGUMENT"}}"#)
        #expect(bare.providerCode == server && bare.details["status"] == "INVALID_ARGUMENT")
    }

    @Test func theTableCoversEveryCodeOfTheSpec() {
        for (server, _, _) in Self.table { #expect(FirebaseErrorMapper.table[server] != nil, "\(server)") }
    }

    @Test func codeAndDetailAreSplitAtTheFirstColon() {
        let weak = map(400, envelope("WEAK_PASSWORD : Password should be at least 6 characters"))
        #expect(weak.code == .weakPassword && weak.providerCode == "WEAK_PASSWORD")
        #expect(weak.message == "Password should be at least 6 characters" && weak.details["detail"] == weak.message)
        let throttled = map(400, envelope("TOO_MANY_ATTEMPTS_TRY_LATER : Access to this account has been temporarily disabled due to many failed login attempts: try later."))
        #expect(throttled.code == .rateLimited && throttled.isRetryable)
        #expect(throttled.message == "Access to this account has been temporarily disabled due to many failed login attempts: try later.")
        let noSpace = map(400, envelope("INVALID_CONTINUE_URI:bad url"))
        #expect(noSpace.providerCode == "INVALID_CONTINUE_URI" && noSpace.message == "bad url")
        let bare = FirebaseErrorMapper.split("  EMAIL_EXISTS  ")
        #expect(bare.code == "EMAIL_EXISTS" && bare.detail == nil)
        // A code without detail gets the core's message for its canonical code.
        #expect(map(400, envelope("EMAIL_EXISTS")).message == AuthError(.emailAlreadyInUse).message)
    }

    @Test func secureTokenSignOutCodesEndTheSession() {
        for server in ["USER_NOT_FOUND", "USER_DISABLED", "TOKEN_EXPIRED", "INVALID_ID_TOKEN", "INVALID_REFRESH_TOKEN"] {
            let error = map(400, #"{"error":{"code":400,"message":"\#(server)","status":"INVALID_ARGUMENT"}}"#, endpoint: .secureToken)
            #expect(error.code == .refreshTokenInvalid && error.providerCode == server, "\(server)")
        }
        for server in ["MISSING_REFRESH_TOKEN", "INVALID_GRANT_TYPE", "PROJECT_NUMBER_MISMATCH", "TOO_MANY_ATTEMPTS_TRY_LATER"] {
            #expect(map(400, envelope(server), endpoint: .secureToken).code != .refreshTokenInvalid, "\(server)")
        }
        #expect(map(503, "", endpoint: .secureToken).code == .providerUnavailable)
    }

    @Test func apiKeyProblems() {
        let modern = map(400, #"{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT","errors":[{"message":"API key not valid. Please pass a valid API key.","domain":"global","reason":"badRequest"}],"details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com"}]}}"#)
        #expect(modern.code == .invalidConfiguration && modern.providerCode == "API_KEY_INVALID" && modern.details["iosCode"] == "17023")
        #expect(modern.message == "API key not valid. Please pass a valid API key.")
        let legacy = map(400, #"{"error":{"code":400,"message":"Bad Request","errors":[{"reason":"keyInvalid","domain":"usageLimits","message":"Bad Request"}]}}"#)
        #expect(legacy.providerCode == "API_KEY_INVALID" && legacy.code == .invalidConfiguration)
        let blocked = map(403, #"{"error":{"code":403,"message":"Requests from this referer are blocked.","errors":[{"reason":"ipRefererBlocked"}],"status":"PERMISSION_DENIED"}}"#)
        #expect(blocked.providerCode == "ipRefererBlocked" && blocked.details["iosCode"] == "17028" && blocked.code == .invalidConfiguration)
        let missing = map(403, #"{"error":{"code":403,"message":"The request is missing a valid API key.","status":"PERMISSION_DENIED"}}"#)
        #expect(missing.providerCode == "PERMISSION_DENIED" && missing.code == .invalidConfiguration)
        #expect(missing.message == "The request is missing a valid API key.")
    }

    @Test func emulatorOnlyReplies() {
        let parse = map(400, #"{"error":{"code":400,"message":"Invalid JSON payload received.","status":"INVALID_ARGUMENT","errors":[{"reason":"parseError"}]}}"#)
        #expect(parse.code == .invalidRequest && parse.providerCode == "INVALID_ARGUMENT" && parse.details["reason"] == "parseError")
        let unimplemented = map(501, #"{"error":{"code":501,"message":"NOT_IMPLEMENTED","status":"NOT_IMPLEMENTED"}}"#)
        #expect(unimplemented.code == .unsupported)
    }

    @Test func tolerantBodies() {
        let statusOnly = map(400, #"{"error":{"code":400,"status":"INVALID_ARGUMENT"}}"#)
        #expect(statusOnly.code == .invalidRequest && statusOnly.providerCode == "INVALID_ARGUMENT")
        let html = map(502, "<html><body>Bad Gateway</body></html>")
        #expect(html.code == .providerUnavailable && html.providerCode == nil && html.details["body"] == "not-json" && html.isRetryable)
        #expect(!html.message.contains("<html>"))
        let empty = map(429, "", headerFields: [.retryAfter: "7"])
        #expect(empty.code == .rateLimited && empty.retryAfter == .seconds(7) && empty.details["body"] == "empty")
        let notObject = map(400, "[1,2]")
        #expect(notObject.code == .invalidRequest && notObject.providerCode == nil)
        let oauth = map(400, #"{"error":"invalid_grant","error_description":"Invalid refresh token"}"#)
        #expect(oauth.providerCode == "INVALID_GRANT" && oauth.code == .unknown && oauth.message == "Invalid refresh token")
        let noEnvelope = map(400, #"{"message":"INVALID_EMAIL"}"#)
        #expect(noEnvelope.code == .invalidEmail)
        #expect(map(401, "{}").code == .invalidCredentials)
    }

    @Test func unknownCodesKeepTheRawCode() {
        let unknown = map(400, envelope("SOMETHING_NEW : with a detail"))
        #expect(unknown.code == .unknown && unknown.providerCode == "SOMETHING_NEW" && unknown.details["iosCode"] == "17999")
        #expect(unknown.message == "with a detail")
        #expect(map(500, envelope("SOMETHING_NEW")).code == .providerUnavailable)
        #expect(map(400, envelope("SOMETHING_NEW")).message.contains("SOMETHING_NEW"), "a code without detail is named in the message")
        #expect(map(429, envelope("SOMETHING_NEW")).code == .rateLimited)
    }
}
