import AuthHub
@testable import AuthHubFactors
import Foundation
import Testing

/// Options as providers send them: Auth0's `authn_params_public_key` (spec/auth0.md §3.6, §6.4)
/// and WebAuthn's JSON forms.
@Suite struct PasskeyOptionsJSONTests {
    @Test func readsAuth0SignupOptions() throws {
        let json: JSONValue = [
            "challenge": "q83vEjRWeJA", "timeout": 60000,
            "rp": ["id": "login.example.com", "name": "Example"],
            "user": ["id": "dXNlci0x", "name": "ada@example.com", "displayName": "Ada"],
            "pubKeyCredParams": [["type": "public-key", "alg": -8], ["type": "public-key", "alg": -7], ["type": "public-key", "alg": -257]],
            "authenticatorSelection": ["residentKey": "required", "userVerification": "required"],
        ]
        let options = try PasskeyRegistrationOptions(json: json)
        #expect(options.relyingParty == PasskeyRelyingParty(id: "login.example.com", name: "Example"))
        #expect(options.user == PasskeyUser(id: Array("user-1".utf8), name: "ada@example.com", displayName: "Ada"))
        #expect(options.challenge == [0xab, 0xcd, 0xef, 0x12, 0x34, 0x56, 0x78, 0x90])
        #expect(options.algorithms == [.edDSA, .es256, .rs256])
        #expect(options.residentKey == .required && options.userVerification == .required)
        #expect(options.origin == "https://login.example.com")
        #expect(options.timeout == .seconds(60))
        #expect(options.attestation == "none")
    }

    /// What a page hands the browser (`json`) reads back as the same options, member by member.
    @Test func optionsWrittenAsJSONReadBackTheSame() throws {
        let creation = PasskeyRegistrationOptions(
            relyingParty: PasskeyRelyingParty(id: "app.example.com", name: "Example"),
            user: PasskeyUser(id: [1, 2, 3, 250], name: "ada@example.com", displayName: "Ada"), challenge: Array(0..<32),
            origin: "https://app.example.com", algorithms: [.es256, .rs256], userVerification: .required, residentKey: .required,
            excludeCredentials: [[9, 8, 7]], attestation: "none", timeout: .milliseconds(120_500))
        #expect(try PasskeyRegistrationOptions(json: creation.json, origin: "https://app.example.com") == creation)
        #expect(creation.json["challenge"]?.stringValue == Base64URL.encode(Array(0..<32)), "base64url, no padding")
        let request = PasskeyAssertionOptions(relyingPartyID: "app.example.com", challenge: [7, 7, 7], origin: "https://app.example.com",
                                              allowCredentials: [[1], [2, 3]], userVerification: .discouraged, timeout: .seconds(30))
        #expect(try PasskeyAssertionOptions(json: request.json, origin: "https://app.example.com") == request)
    }

    @Test func readsLoginOptionsAndDefaultsTheRPIDFromTheOrigin() throws {
        let options = try PasskeyAssertionOptions(json: [
            "challenge": "AAEC", "allowCredentials": [["type": "public-key", "id": "AQI"]], "userVerification": "discouraged",
        ], origin: "https://shop.example.com")
        #expect(options.relyingPartyID == "shop.example.com")
        #expect(options.challenge == [0, 1, 2] && options.allowCredentials == [[1, 2]] && options.userVerification == .discouraged)
        #expect(options.origin == "https://shop.example.com")

        let legacy = try PasskeyRegistrationOptions(json: [
            "challenge": "AA", "rp": ["name": "Legacy"], "user": ["id": "AQ", "name": "n", "displayName": "d"],
            "pubKeyCredParams": [], "authenticatorSelection": ["requireResidentKey": true, "userVerification": "bogus"],
        ], origin: "https://legacy.example.com")
        #expect(legacy.relyingParty.id == "legacy.example.com" && legacy.residentKey == .required && legacy.userVerification == .preferred)
    }

    /// Fuzzing (issue 16): a `timeout` of `1e300` (or negative) from a provider's options trapped in
    /// `Int64(_:)`. A hint that is not positive is ignored like an absent one; a huge one is clamped to
    /// ten minutes (see also `PasskeyOptionTimeoutTests`).
    @Test(arguments: [-1e300, -1, 0] as [Double])
    func outOfRangeTimeoutsAreIgnoredNotATrap(timeout: Double) throws {
        let creation = try PasskeyRegistrationOptions(json: [
            "challenge": "AA", "rp": ["id": "a.example", "name": "A"], "user": ["id": "AQ", "name": "n", "displayName": "d"],
            "pubKeyCredParams": [], "timeout": .number(timeout),
        ])
        #expect(creation.timeout == nil)
        let request = try PasskeyAssertionOptions(json: ["challenge": "AA", "timeout": .number(timeout)], origin: "https://a.example")
        #expect(request.timeout == nil)
        for huge in [1e300, 4_294_967_296, 9.3e18] {
            let clamped = try PasskeyAssertionOptions(json: ["challenge": "AA", "timeout": .number(huge)], origin: "https://a.example")
            #expect(clamped.timeout == .seconds(600))
        }
    }

    @Test(arguments: [
        (JSONValue.object([:]), "rp is missing"),
        (["rp": "x"], "rp must be an object"),
        (["rp": ["id": "a.example"]], "user is missing"),
        (["rp": ["id": "a.example"], "user": ["id": "!"]], "user.id is not base64url"),
        (["rp": ["id": "a.example"], "user": ["id": ""]], "1 to 64 bytes"),
        (["rp": ["id": "a.example"], "user": ["id": "AQ"], "pubKeyCredParams": [["alg": "x"]]], "pubKeyCredParams[0].alg"),
        (["rp": ["id": "a.example"], "user": ["id": "AQ"], "pubKeyCredParams": [], "challenge": 5], "challenge must be a string"),
        (["rp": ["id": "a.example"], "user": ["id": "AQ"], "pubKeyCredParams": [], "challenge": "AA", "excludeCredentials": [["id": 1]]],
         "excludeCredentials[0].id"),
        (["rp": [:], "user": ["id": "AQ"], "pubKeyCredParams": [], "challenge": "AA"], "rp.id is missing"),
    ] as [(JSONValue, String)])
    func malformedCreationOptionsNameTheMember(json: JSONValue, reason: String) {
        let error = #expect(throws: AuthError.self) { try PasskeyRegistrationOptions(json: json) }
        #expect(error?.code == .invalidRequest)
        #expect(error?.message.contains(reason) == true, "\(error?.message ?? "")")
    }

    @Test func malformedResponsesNameTheMember() {
        let mismatch = #expect(throws: AuthError.self) {
            try PasskeyAssertion(json: ["id": "AQ", "rawId": "Ag", "response": [:]])
        }
        #expect(mismatch?.message.contains("id and rawId differ") == true)
        let missing = #expect(throws: AuthError.self) {
            try PasskeyAssertion(json: ["id": "AQ", "response": ["clientDataJSON": "AA", "authenticatorData": "AA"]])
        }
        #expect(missing?.message.contains("response.signature is missing") == true)
        let type = #expect(throws: AuthError.self) {
            try PasskeyRegistration(json: ["id": "AQ", "type": "password", "response": [:]])
        }
        #expect(type?.message.contains("public-key") == true)
    }
}
