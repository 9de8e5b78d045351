import AuthHub
@_spi(Internals) @testable import AuthHubFirebase
import AuthHubFactors
import AuthHubTesting
import Foundation
import Testing

/// The Identity Platform v2 second-factor calls: every request body pinned to the fields
/// firebase-js-sdk sends (`startEnrollTotpMfa`, `finalizeEnrollTotpMfa`, `withdrawMfa`,
/// `finalizeSignInTotpMfa`), their replies read with range checks, and `.mfa` sign-in.
@Suite struct FirebaseMFATests {
    let transport = StubTransport()
    let clock = FakeClock()

    init() { FB.serveKeys(transport) }

    func api(_ configuration: FirebaseConfiguration = FB.production) -> FirebaseAPI {
        FirebaseAPI(providerID: "firebase", configuration: configuration, context: ProviderContext(transport: transport, clock: clock))
    }

    static let v2 = "https://identitytoolkit.googleapis.com/v2/accounts/"
    static let sessionInfo: JSONValue = [
        "totpSessionInfo": ["sharedSecretKey": "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP", "verificationCodeLength": 6, "hashingAlgorithm": "SHA1",
                            "periodSec": 30, "sessionInfo": "session-1", "finalizeEnrollmentTime": "2026-01-01T00:10:00.000Z"],
    ]

    func stub(_ op: String, _ reply: JSONValue) {
        transport.on(.post, "/v2/accounts/\(op)") { _ in .json(200, reply) }
    }

    func only(_ op: String) throws -> StubTransport.Request {
        let requests = transport.requests.filter { $0.url.path.hasSuffix("accounts/\(op)") }
        #expect(requests.count == 1)
        let request = try #require(requests.first)
        #expect(request.method == .post && request.headerFields["Content-Type"] == "application/json")
        return request
    }

    func tokens() async throws -> JSONValue {
        ["idToken": .string(try await FB.signed(FB.claims(now: clock.now, ["firebase": ["sign_in_provider": "password", "sign_in_second_factor": "totp", "second_factor_identifier": "enr-2"]]))),
         "refreshToken": "rt-mfa"]
    }

    @Test func v2URLsInProductionAndWithTheEmulator() {
        #expect(FirebaseAPI.identityToolkitV2BaseURL(FB.production).absoluteString == "https://identitytoolkit.googleapis.com/v2/")
        #expect(FirebaseAPI.identityToolkitV2BaseURL(FB.emulator).absoluteString == "http://127.0.0.1:9099/identitytoolkit.googleapis.com/v2/")
    }

    @Test func startEnrollmentSendsIdTokenAndAnEmptyTotpEnrollmentInfo() async throws {
        stub("mfaEnrollment:start", Self.sessionInfo)
        let info = try await api(FB.tenant).startTOTPEnrollment(idToken: Secret("id-1"))
        let request = try only("mfaEnrollment:start")
        #expect(request.url.absoluteString == Self.v2 + "mfaEnrollment:start?key=AIza-test-key")
        #expect(request.jsonBody == ["idToken": "id-1", "totpEnrollmentInfo": [:], "tenantId": "tenant-1"])
        #expect(info.sharedSecretKey.revealed() == "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP" && info.verificationCodeLength == 6)
        #expect(info.hashingAlgorithm == "SHA1" && info.periodSec == 30 && info.sessionInfo.revealed() == "session-1")
        #expect(info.finalizeEnrollmentTime == "2026-01-01T00:10:00.000Z")

        let challenge = try FirebaseTOTPEnrollmentChallenge(sessionInfo: info, account: "a@example.com", issuer: "demo-proj", provider: "firebase")
        #expect(challenge.uri.string.revealed().hasPrefix("otpauth://totp/"))
        #expect(challenge.uri.string.revealed().contains("secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"))
        #expect(!challenge.description.contains("JBSWY3DP"))
        #expect(challenge.base32Secret.revealed() == "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP")
    }

    @Test(arguments: [
        ("sharedSecretKey", JSONValue.string("")), ("verificationCodeLength", 4), ("verificationCodeLength", 6.5),
        ("verificationCodeLength", 1e300), ("periodSec", 0), ("periodSec", 86_400), ("hashingAlgorithm", .number(1)), ("sessionInfo", .null),
    ])
    func outOfRangeSessionInfoIsRefused(_ member: String, _ value: JSONValue) async throws {
        var info = try #require(Self.sessionInfo["totpSessionInfo"]?.objectValue)
        info[member] = value
        stub("mfaEnrollment:start", ["totpSessionInfo": .object(info)])
        let error = await #expect(throws: AuthError(.invalidRequest)) { try await api().startTOTPEnrollment(idToken: Secret("id-1")) }
        #expect(error?.message.contains(member) == true)
    }

    @Test func aSecretThatIsNotBase32OrAnUnknownAlgorithmCannotMakeAChallenge() throws {
        let good = FirebaseTOTPSessionInfo(sharedSecretKey: Secret("JBSWY3DPEHPK3PXP"), verificationCodeLength: 6, hashingAlgorithm: "SHA1",
                                           periodSec: 30, sessionInfo: Secret("s"))
        var notBase32 = good
        notBase32.sharedSecretKey = Secret("not base32 !!")
        var md5 = good
        md5.hashingAlgorithm = "MD5"
        for info in [notBase32, md5] {
            #expect(throws: AuthError(.invalidRequest)) { try FirebaseTOTPEnrollmentChallenge(sessionInfo: info, account: "a", issuer: nil, provider: "firebase") }
        }
    }

    @Test func finalizeEnrollmentSendsTheSessionInfoAndCode() async throws {
        stub("mfaEnrollment:finalize", try await tokens())
        let reply = try await api(FB.tenant).finalizeTOTPEnrollment(idToken: Secret("id-1"), sessionInfo: Secret("session-1"),
                                                                    code: Secret("123456"), displayName: "Phone app")
        let request = try only("mfaEnrollment:finalize")
        #expect(request.url.absoluteString == Self.v2 + "mfaEnrollment:finalize?key=AIza-test-key")
        #expect(request.jsonBody == ["idToken": "id-1", "displayName": "Phone app", "tenantId": "tenant-1",
                                     "totpVerificationInfo": ["sessionInfo": "session-1", "verificationCode": "123456"]])
        #expect(reply.refreshToken.revealed() == "rt-mfa" && reply.expiresIn == 3600)
    }

    @Test func withdrawSendsTheEnrollmentId() async throws {
        stub("mfaEnrollment:withdraw", try await tokens())
        _ = try await api().withdrawMFA(idToken: Secret("id-1"), enrollmentID: "enr-2")
        let request = try only("mfaEnrollment:withdraw")
        #expect(request.url.absoluteString == Self.v2 + "mfaEnrollment:withdraw?key=AIza-test-key")
        #expect(request.jsonBody == ["idToken": "id-1", "mfaEnrollmentId": "enr-2"])
    }

    /// `WithdrawMfaResponse`'s tokens are optional: a reply without both means the backend ended
    /// the session; it is read as "no tokens", not as a malformed reply.
    @Test func aWithdrawReplyWithoutBothTokensIsNoTokensNotAnError() async throws {
        let full = try await tokens()
        stub("mfaEnrollment:withdraw", full)
        let withTokens = try await api().withdrawMFA(idToken: Secret("id-1"), enrollmentID: "enr-2")
        #expect(withTokens?.refreshToken.revealed() == "rt-mfa")
        let partial: [JSONValue] = [[:], ["idToken": full["idToken"] ?? .null], ["refreshToken": "rt-mfa"],
                                    ["idToken": .null, "refreshToken": .null], ["idToken": "", "refreshToken": ""]]
        for reply in partial {
            transport.on(.post, "/v2/accounts/mfaEnrollment:withdraw", times: 1, first: true) { _ in .json(200, reply) }
            let tokens = try await api().withdrawMFA(idToken: Secret("id-1"), enrollmentID: "enr-2")
            #expect(tokens == nil, "\(reply)")
        }
    }

    @Test func mfaSignInFinishesWithTheFirstTOTPFactor() async throws {
        stub("mfaSignIn:finalize", try await tokens())
        let requirement = MFARequirement(token: Secret("pending-1"), challengeTypes: ["phone", "totp"], enrolledFactors: [
            .init(id: "enr-1", kind: "phone"), .init(id: "enr-2", kind: "totp", displayName: "app"), .init(id: "enr-3", kind: "totp"),
        ])
        let provider = FB.provider(transport, clock, configuration: FB.tenant)
        let session = try await provider.signIn(.mfa(requirement: requirement, response: .otp(Secret("654321"))))
        let request = try only("mfaSignIn:finalize")
        #expect(request.url.absoluteString == Self.v2 + "mfaSignIn:finalize?key=AIza-test-key")
        #expect(request.jsonBody == ["mfaPendingCredential": "pending-1", "mfaEnrollmentId": "enr-2", "tenantId": "tenant-1",
                                     "totpVerificationInfo": ["verificationCode": "654321"]])
        #expect(session.userID == "uid-1" && session.refreshToken?.revealed() == "rt-mfa")
        #expect(session.extras["firebase.sign_in_second_factor"] == "totp")
        #expect(session.expiresAt == clock.now.addingTimeInterval(3600))
    }

    @Test func otherAnswersAndUsersWithoutATOTPFactorAreUnsupported() async throws {
        let provider = FB.provider(transport, clock)
        let totp = MFARequirement(token: Secret("p"), challengeTypes: ["totp"], enrolledFactors: [.init(id: "e", kind: "totp")])
        await #expect(throws: AuthError(.unsupported)) {
            try await provider.signIn(.mfa(requirement: totp, response: .recoveryCode(Secret("r"))))
        }
        await #expect(throws: AuthError(.unsupported)) {
            try await provider.signIn(.mfa(requirement: totp, response: .oob(code: Secret("o"), bindingCode: nil)))
        }
        let phoneOnly = MFARequirement(token: Secret("p"), challengeTypes: ["phone"], enrolledFactors: [.init(id: "e", kind: "phone")])
        await #expect(throws: AuthError(.unsupported)) {
            try await provider.signIn(.mfa(requirement: phoneOnly, response: .otp(Secret("123456"))))
        }
        #expect(transport.requests.filter { $0.url.path.contains("/v2/") }.isEmpty)
    }

    @Test func aWrongCodeIsInvalidMFACodeAndAnExpiredCredentialIsSessionExpired() async throws {
        let replies = [("INVALID_CODE : Invalid verification code.", AuthErrorCode.invalidMFACode, "17044"),
                       ("INVALID_MFA_PENDING_CREDENTIAL", .sessionExpired, "17083"),
                       ("MFA_ENROLLMENT_NOT_FOUND", .invalidRequest, "17084")]
        for (message, code, ios) in replies {
            let transport = StubTransport()
            transport.on(.post, "/v2/accounts/mfaSignIn:finalize") { _ in .json(400, FB.error(message)) }
            let api = FirebaseAPI(providerID: "firebase", configuration: FB.production, context: ProviderContext(transport: transport, clock: clock))
            let error = await #expect(throws: AuthError(code)) {
                try await api.finalizeTOTPSignIn(pendingCredential: Secret("p"), enrollmentID: "e", code: Secret("000000"))
            }
            #expect(error?.details["iosCode"] == ios)
            #expect(transport.requests.count == 1, "a call consuming a code is never retried")
        }
    }

    @Test func mfaRequiredListsTheEnrolledFactors() throws {
        let reply: JSONValue = [
            "localId": "uid-1", "mfaPendingCredential": "pending",
            "mfaInfo": [["mfaEnrollmentId": "enr-1", "phoneInfo": "+*******1234"],
                        ["mfaEnrollmentId": "enr-2", "displayName": "Authenticator", "totpInfo": [:], "enrolledAt": "2026-01-01T00:00:00Z"],
                        ["displayName": "no id", "totpInfo": [:]]],
        ]
        let pending = try JSONDecoder().decode(FirebaseMFAPendingReply.self, from: try reply.serialized())
        let error = FirebaseAPI.mfaRequired(pending, provider: "firebase")
        #expect(error.mfa?.token.revealed() == "pending")
        #expect(error.mfa?.challengeTypes == ["phone", "totp"])
        #expect(error.mfa?.enrolledFactors == [.init(id: "enr-1", kind: "phone"), .init(id: "enr-2", kind: "totp", displayName: "Authenticator")])
        #expect(error.details["localId"] == "uid-1")
    }

    @Test func recentLoginAndSecondFactorCodesMap() {
        let mapper = FirebaseErrorMapper()
        let cases: [(String, AuthErrorCode)] = [
            ("CREDENTIAL_TOO_OLD_LOGIN_AGAIN", .requiresRecentLogin), ("INVALID_CODE", .invalidMFACode), ("MISSING_CODE", .invalidMFACode),
            ("SESSION_EXPIRED", .sessionExpired), ("INVALID_SESSION_INFO", .sessionExpired), ("SECOND_FACTOR_LIMIT_EXCEEDED", .conflict),
            ("MISSING_MFA_PENDING_CREDENTIAL", .invalidRequest), ("UNVERIFIED_EMAIL", .emailNotVerified),
        ]
        for (server, code) in cases {
            let body = (try? JSONEncoder().encode(FB.error(server))) ?? Data()
            #expect(mapper.map(HTTPReply(status: 400, headerFields: [:], body: body), provider: "firebase").code == code, "\(server)")
        }
    }
}
