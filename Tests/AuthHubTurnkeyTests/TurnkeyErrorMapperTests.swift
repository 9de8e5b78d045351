import AuthHub
@_spi(Internals) @testable import AuthHubTurnkey
import Foundation
import Testing

@Suite struct TurnkeyErrorMapperTests {
    static func map(_ status: Int, _ body: String, _ context: TurnkeyErrorMapper.Context = .request,
                    headerFields headers: HTTPFields = [:]) -> AuthError {
        TurnkeyErrorMapper(context: context).map(HTTPReply(status: status, headerFields: headers, body: Data(body.utf8)), provider: "tk")
    }

    static let unknownKey = #"{"code":16,"message":"could not find public key in organization or its parent organization","details":[]}"#
    static let expiredKey = #"{"code":17,"message":"Unauthenticated desc = expired api key publicKey","details":null}"#

    /// §10 golden: code 16 unknown key, in every context.
    @Test func unknownPublicKeyDependsOnTheRequest() {
        let login = Self.map(401, Self.unknownKey, .passkeyLogin)
        #expect(login.code == .invalidCredentials)
        #expect(login.message.contains("passkey is not registered"))
        #expect(login.providerCode == "16")
        #expect(login.statusCode == 401)
        #expect(login.provider == "tk")
        #expect(Self.map(401, Self.unknownKey, .session).code == .sessionExpired)
        #expect(Self.map(401, Self.unknownKey, .refresh).code == .refreshTokenInvalid)
        #expect(Self.map(401, Self.unknownKey, .request).code == .invalidToken)
    }

    /// §7: the expired-key message, matched on its text whatever the code.
    @Test func expiredKeyMessage() {
        #expect(Self.map(401, Self.expiredKey, .session).code == .sessionExpired)
        #expect(Self.map(401, Self.expiredKey, .session).providerCode == "17")
        #expect(Self.map(400, #"{"code":3,"message":"expired api key"}"#, .session).code == .sessionExpired)
        #expect(Self.map(401, Self.expiredKey, .refresh).code == .refreshTokenInvalid)
        #expect(Self.map(401, Self.expiredKey, .request).code == .invalidToken)
        #expect(Self.map(401, Self.expiredKey, .passkeyLogin).code == .invalidToken)
    }

    /// Other 16/401: a stamp that does not verify.
    @Test func otherUnauthenticated() {
        let body = #"{"code":16,"message":"failed to verify stamp signature","details":[]}"#
        #expect(Self.map(401, body).code == .invalidToken)
        #expect(Self.map(401, body, .passkeyLogin).code == .invalidToken)
        #expect(Self.map(401, body, .session).code == .invalidToken)
        #expect(Self.map(401, body, .refresh).code == .refreshTokenInvalid)
        #expect(Self.map(401, "").code == .invalidToken)
    }

    /// §10 validation golden with BadRequest field violations.
    @Test func invalidArgumentCarriesFieldViolations() {
        let body = #"{"code":3,"message":"invalid request","details":[{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"parameters.publicKey","description":"must be a compressed P-256 key"},{"field":"timestampMs","description":"required"}]}]}"#
        let error = Self.map(400, body)
        #expect(error.code == .invalidRequest)
        #expect(error.providerCode == "3")
        #expect(error.details["fieldViolations"] == "parameters.publicKey: must be a compressed P-256 key; timestampMs: required")
        #expect(error.message.contains("invalid request"))
        #expect(Self.map(400, #"{"code":9,"message":"failed precondition"}"#).code == .invalidRequest)
    }

    @Test func grpcCodes() {
        #expect(Self.map(404, #"{"code":5,"message":"organization not found"}"#, .passkeyLogin).code == .userNotFound)
        #expect(Self.map(404, #"{"code":5,"message":"activity not found"}"#).code == .invalidRequest)
        let denied = Self.map(403, #"{"code":7,"message":"policy engine denied request explicitly","details":[]}"#)
        #expect(denied.code == .accessDenied)
        #expect(denied.message.contains("policy engine denied"))
        let limited = Self.map(429, #"{"code":8,"message":"too many requests"}"#, headerFields: [.retryAfter: "7"])
        #expect(limited.code == .rateLimited)
        #expect(limited.retryAfter == .seconds(7))
        #expect(limited.isRetryable)
        for (status, code) in [(500, 13), (503, 14)] {
            let e = Self.map(status, #"{"code":\#(code),"message":"internal"}"#)
            #expect(e.code == .providerUnavailable)
            #expect(e.isRetryable)
            #expect(e.providerCode == "\(code)")
        }
        #expect(Self.map(400, #"{"code":"16","message":"x"}"#).code == .invalidToken, "a numeric string code")
    }

    /// Junk, truncated, HTML and empty bodies map by status.
    @Test(arguments: [
        (500, "<html><body>Bad gateway</body></html>", AuthErrorCode.providerUnavailable),
        (502, "", .providerUnavailable),
        (429, "rate limited", .rateLimited),
        (400, #"{"code":3,"message":"trunc"#, .invalidRequest),
        (403, "[1,2,3]", .accessDenied),
        (404, "null", .invalidRequest),
        (401, #"{"message": 5}"#, .invalidToken),
        (418, "{}", .unknown),
    ])
    func junkBodies(status: Int, body: String, code: AuthErrorCode) {
        let e = Self.map(status, body)
        #expect(e.code == code)
        #expect(e.statusCode == status)
        #expect(e.providerCode == nil)
    }

    /// Activity-level failures (HTTP 200) go through the same rules.
    @Test func activityFailures() {
        let mapper = TurnkeyErrorMapper(context: .passkeyLogin)
        let e = mapper.map(activityFailure: ["code": 16, "message": "could not find public key in organization or its parent organization"], provider: "tk")
        #expect(e.code == .invalidCredentials)
        #expect(e.statusCode == nil)
        let other = TurnkeyErrorMapper().map(activityFailure: ["code": 7, "message": "policy engine denied request explicitly"], provider: "tk")
        #expect(other.code == .accessDenied)
        #expect(other.message.contains("activity failed"))
        #expect(TurnkeyErrorMapper().map(activityFailure: nil, provider: "tk").code == .unknown)
    }
}
