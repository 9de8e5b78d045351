import AuthHub
@_spi(Internals) @testable import AuthHubAuth0
import AuthHubOIDC
import Foundation
import Testing

/// Every error body of spec/auth0.md §4 (and §3.7) mapped, with its §4.3 helper answerable.
@Suite struct Auth0ErrorMapperTests {
    private func map(_ status: Int, _ body: String, headerFields headers: HTTPFields = [:]) -> AuthError {
        Auth0ErrorMapper().map(HTTPReply(status: status, headerFields: headers, body: Data(body.utf8)), provider: "auth0")
    }

    @Test func oauthErrorBody() {
        let error = map(403, #"{"error":"invalid_grant","error_description":"Wrong email or password."}"#)
        #expect(error.code == .invalidCredentials)
        #expect(error.providerCode == "invalid_grant" && error.statusCode == 403 && error.provider == "auth0")
        #expect(error.message == "Wrong email or password.")
        #expect(error.auth0.isInvalidCredentials && !error.auth0.isRetryable && !error.isRetryable)
    }

    /// Every standard OAuth code maps to the same AuthErrorCode from the Auth0 mapper and the
    /// generic one (this used to differ for unauthorized_client, unsupported_grant_type,
    /// invalid_client, invalid_grant, slow_down, server_error, …), for each status and operation.
    @Test(arguments: ["access_denied", "unauthorized", "login_required", "interaction_required", "consent_required",
                      "account_selection_required", "invalid_grant", "invalid_client", "unauthorized_client", "unsupported_grant_type",
                      "unsupported_response_type", "invalid_redirect_uri", "invalid_request", "invalid_scope", "invalid_request_uri",
                      "invalid_request_object", "request_not_supported", "server_error", "temporarily_unavailable", "too_many_attempts",
                      "slow_down", "mfa_required", "expired_token", "authorization_pending", "invalid_token"])
    func standardOAuthCodesMeanTheSameFromBothMappers(oauthCode: String) {
        for status in [400, 401, 403, 429, 500, 503] {
            for operation in [AuthOperation.signIn, .refresh, .tokenExchange, .other] {
                let reply = HTTPReply(status: status, body: Data(#"{"error":"\#(oauthCode)","error_description":"Some words."}"#.utf8))
                let auth0 = Auth0ErrorMapper().map(reply, provider: "p", operation: operation)
                let generic = OAuthErrorMapper().map(reply, provider: "p", operation: operation)
                #expect(auth0.code == generic.code, "\(oauthCode) \(status) \(operation): auth0 \(auth0.code), generic \(generic.code)")
            }
        }
        if oauthCode == "unauthorized_client" {
            #expect(map(403, #"{"error":"unauthorized_client","error_description":"Grant type not allowed for the client."}"#).code == .invalidConfiguration)
        }
    }

    @Test func databaseConnectionBodies() {
        let strength = map(400, #"{"name":"PasswordStrengthError","code":"invalid_password","description":{"rules":[{"message":"At least 8 characters","verified":false}]},"statusCode":400}"#)
        #expect(strength.code == .weakPassword && strength.auth0.isPasswordNotStrongEnough && !strength.auth0.isPasswordAlreadyUsed)
        #expect(strength.message == "Received error with code invalid_password.")
        let history = map(400, #"{"name":"PasswordHistoryError","code":"invalid_password","description":"Password has previously been used","statusCode":400}"#)
        #expect(history.code == .weakPassword && history.auth0.isPasswordAlreadyUsed)
        #expect(history.message == "Password has previously been used")
        let exists = map(409, #"{"name":"BadRequestError","code":"user_exists","description":"The user already exists.","statusCode":409}"#)
        #expect(exists.code == .emailAlreadyInUse && exists.providerCode == "user_exists" && exists.details["name"] == "BadRequestError")
    }

    @Test func mfaRequiredCarriesTheTokenAndRequirements() {
        let error = map(403, #"{"error":"mfa_required","error_description":"Multifactor authentication required","mfa_token":"mfa-tok","mfa_requirements":{"challenge":[{"type":"otp"},{"type":"recovery-code"}],"enroll":[{"type":"otp"}]}}"#)
        #expect(error.code == .mfaRequired && error.auth0.isMultifactorRequired)
        #expect(error.mfa?.token.revealed() == "mfa-tok")
        #expect(error.mfa?.challengeTypes == ["otp", "recovery-code"] && error.mfa?.enrollTypes == ["otp"])
        #expect(!error.description.contains("mfa-tok") && !error.message.contains("mfa-tok"))
        #expect(map(403, #"{"error":"a0.mfa_required","error_description":"x"}"#).code == .mfaRequired)
    }

    @Test(arguments: [
        (#"{"error":"a0.mfa_registration_required","error_description":"x"}"#, AuthErrorCode.mfaEnrollmentRequired, "isMultifactorEnrollRequired"),
        (#"{"error":"unsupported_challenge_type","error_description":"x"}"#, .mfaEnrollmentRequired, "isMultifactorEnrollRequired"),
        (#"{"error":"a0.mfa_invalid_code","error_description":"x"}"#, .invalidMFACode, "isMultifactorCodeInvalid"),
        (#"{"error":"invalid_grant","error_description":"Invalid otp_code."}"#, .invalidMFACode, "isMultifactorCodeInvalid"),
        (#"{"error":"invalid_grant","error_description":"Invalid binding_code."}"#, .invalidMFACode, "isMultifactorCodeInvalid"),
        (#"{"error":"invalid_grant","error_description":"MFA Authorization rejected."}"#, .invalidMFACode, "isMultifactorCodeInvalid"),
        (#"{"error":"expired_token","error_description":"mfa_token is expired"}"#, .sessionExpired, "isMultifactorTokenInvalid"),
        (#"{"error":"invalid_grant","error_description":"Malformed mfa_token"}"#, .sessionExpired, "isMultifactorTokenInvalid"),
        (#"{"error":"unauthorized","error_description":"user is blocked"}"#, .accessDenied, "isRuleError"),
        (#"{"error":"invalid_user_password","error_description":"x"}"#, .invalidCredentials, "isInvalidCredentials"),
        (#"{"error":"invalid_grant","error_description":"Wrong email or verification code."}"#, .invalidCredentials, "isInvalidCredentials"),
        (#"{"error":"invalid_grant","error_description":"Wrong phone number or verification code."}"#, .invalidCredentials, "isInvalidCredentials"),
        (#"{"error":"invalid_grant","error_description":"The refresh_token was generated for a user who doesn't exist anymore."}"#, .refreshTokenInvalid, "isRefreshTokenDeleted"),
        (#"{"error":"invalid_grant","error_description":"Unknown or invalid refresh token."}"#, .refreshTokenInvalid, "isInvalidRefreshToken"),
        (#"{"error":"access_denied","error_description":"x"}"#, .accessDenied, "isAccessDenied"),
        (#"{"error":"too_many_attempts","error_description":"x"}"#, .rateLimited, "isTooManyAttempts"),
        (#"{"error":"requires_verification","error_description":"x"}"#, .captchaRequired, "isVerificationRequired"),
        (#"{"error":"password_leaked","error_description":"x"}"#, .passwordLeaked, "isPasswordLeaked"),
        (#"{"error":"login_required","error_description":"x"}"#, .requiresRecentLogin, "isLoginRequired"),
        (#"{"error":"use_dpop_nonce","error_description":"x"}"#, .invalidRequest, "isDPoPNonceRequired"),
    ])
    func helpersAndCanonicalCodes(body: String, code: AuthErrorCode, helperName: String) throws {
        let helper = try #require(Self.helpers[helperName])
        let error = map(400, body)
        #expect(error.code == code)
        #expect(helper(error.auth0))
        // A near miss (same code, other description) does not satisfy description-bound helpers.
        if body.contains("invalid_grant") {
            #expect(!helper(map(400, #"{"error":"invalid_grant","error_description":"Something else."}"#).auth0))
        }
    }

    static let helpers: [String: @Sendable (Auth0ErrorHelpers) -> Bool] = [
        "isMultifactorEnrollRequired": { $0.isMultifactorEnrollRequired }, "isMultifactorCodeInvalid": { $0.isMultifactorCodeInvalid },
        "isMultifactorTokenInvalid": { $0.isMultifactorTokenInvalid }, "isRuleError": { $0.isRuleError },
        "isInvalidCredentials": { $0.isInvalidCredentials }, "isRefreshTokenDeleted": { $0.isRefreshTokenDeleted },
        "isInvalidRefreshToken": { $0.isInvalidRefreshToken }, "isAccessDenied": { $0.isAccessDenied },
        "isTooManyAttempts": { $0.isTooManyAttempts }, "isVerificationRequired": { $0.isVerificationRequired },
        "isPasswordLeaked": { $0.isPasswordLeaked }, "isLoginRequired": { $0.isLoginRequired },
        "isDPoPNonceRequired": { $0.isDPoPNonceRequired },
    ]

    @Test func emptyPlainAndUnknownBodies() {
        let empty = map(500, "")
        #expect(empty.providerCode == Auth0ErrorMapper.emptyBodyCode && empty.message == "Empty response body.")
        #expect(empty.code == .providerUnavailable && empty.isRetryable && empty.auth0.isRetryable)
        let plain = map(502, "<html>Bad gateway</html>")
        #expect(plain.providerCode == Auth0ErrorMapper.plainBodyCode && plain.code == .providerUnavailable)
        #expect(!plain.message.contains("html"))
        let unknown = map(400, #"{"foo":1}"#)
        #expect(unknown.providerCode == "a0.sdk.internal_error.unknown" && unknown.code == .invalidRequest)
        #expect(unknown.message == "Received error with code a0.sdk.internal_error.unknown.")
        let codeOnly = map(401, #"{"code":"invalid_token"}"#)
        #expect(codeOnly.providerCode == "invalid_token" && codeOnly.code == .invalidCredentials)
    }

    @Test func rateLimitsCarryRetryAfter() {
        let error = map(429, #"{"error":"too_many_requests","error_description":"Slow down"}"#, headerFields: [.retryAfter: "7"])
        #expect(error.code == .rateLimited && error.retryAfter == .seconds(7) && error.isRetryable && error.auth0.isRetryable)
    }

    @Test func transportFailuresAreNetworkErrorsForTheHelpers() {
        let error = AuthError(.network, message: "down", provider: "auth0")
        #expect(error.auth0.isNetworkError && error.auth0.isRetryable)
        #expect(AuthError(.timeout).auth0.isNetworkError)
        #expect(!AuthError(.invalidCredentials).auth0.isNetworkError)
    }
}
