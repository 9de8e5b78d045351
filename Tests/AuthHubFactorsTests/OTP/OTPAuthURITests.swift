import AuthHub
import AuthHubFactors
import Foundation
import Testing

@Suite struct OTPAuthURITests {
    static let rfcSecret = Secret(Array("12345678901234567890".utf8))
    static let rfcBase32 = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
    /// "Hello!\xDE\xAD\xBE\xEF", the key of Google's Key Uri Format example.
    static let exampleBase32 = "JBSWY3DPEHPK3PXP"

    /// Found by the fuzz smoke: a label without an issuer prefix whose account starts with spaces,
    /// plus an `issuer` parameter, was written back as `Issuer:%20account`, which reads as another
    /// account. Leading spaces are now dropped either way, so the URI reads back the same.
    @Test func anAccountWithLeadingSpacesReadsBackTheSame() throws {
        let uri = try OTPAuthURI(parsing: "otpauth://totp/%20%20alice?secret=JBSWY3DPEHPK3PXP&issuer=Example+Co")
        #expect(uri.account == "alice" && uri.issuer == "Example Co")
        #expect(try OTPAuthURI(parsing: uri.string) == uri)
        let literal = try OTPAuthURI(parsing: "otpauth://totp/ bob?secret=JBSWY3DPEHPK3PXP")
        #expect(literal.account == "bob")
        #expect(throws: AuthError.self) { try OTPAuthURI(parsing: "otpauth://totp/%20%20?secret=JBSWY3DPEHPK3PXP") }
    }

    @Test func buildsATOTPURIWithEveryParameter() throws {
        let uri = try OTPAuthURI(secret: Self.rfcSecret, account: "john.doe@email.com", issuer: "ACME Co")
        #expect(uri.string.revealed()
            == "otpauth://totp/ACME%20Co:john.doe%40email.com?secret=\(Self.rfcBase32)&issuer=ACME%20Co&algorithm=SHA1&digits=6&period=30")
    }

    @Test func buildsAnHOTPURIWithItsCounterAndWithoutAPeriod() throws {
        let uri = try OTPAuthURI(kind: .hotp(counter: 42), secret: Self.rfcSecret, account: "alice", issuer: nil,
                                 algorithm: .sha256, digits: 8)
        #expect(uri.string.revealed() == "otpauth://hotp/alice?secret=\(Self.rfcBase32)&algorithm=SHA256&digits=8&counter=42")
    }

    @Test func parsesGooglesExampleWithDefaults() throws {
        let uri = try OTPAuthURI(parsing: "otpauth://totp/Example:alice@google.com?secret=\(Self.exampleBase32)&issuer=Example")
        #expect(uri.kind == .totp(period: 30))
        #expect(uri.account == "alice@google.com")
        #expect(uri.issuer == "Example")
        #expect(uri.algorithm == .sha1)
        #expect(uri.digits == 6)
        #expect(uri.secret.revealed() == [0x48, 0x65, 0x6C, 0x6C, 0x6F, 0x21, 0xDE, 0xAD, 0xBE, 0xEF])
    }

    @Test func parsesAnHOTPURI() throws {
        let uri = try OTPAuthURI(parsing: Secret(
            "otpauth://hotp/ACME:bob?secret=\(Self.rfcBase32)&counter=18446744073709551615&digits=7&algorithm=sha512"))
        #expect(uri.kind == .hotp(counter: .max))
        #expect(uri.digits == 7)
        #expect(uri.algorithm == .sha512)
        #expect(uri.issuer == "ACME")
        #expect(try uri.hotp().code(counter: 0) == HOTP(secret: Self.rfcSecret, algorithm: .sha512, digits: 7).code(counter: 0))
    }

    static let roundTrips: [OTPAuthURI] = {
        let secret = Secret(Array("12345678901234567890".utf8))
        return [
            try? OTPAuthURI(secret: secret, account: "alice@example.com", issuer: "Example"),
            try? OTPAuthURI(kind: .totp(period: 60), secret: Secret([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]), account: "a b+c&d=e?f#g/h",
                            issuer: "Bücher & Söhne", algorithm: .sha512, digits: 8),
            try? OTPAuthURI(kind: .hotp(counter: 7), secret: secret, account: "user:with:colons", issuer: "Issuer:Colon",
                            algorithm: .sha256, digits: 7),
            try? OTPAuthURI(secret: secret, account: "ünïcødé ✓", issuer: nil),
            try? OTPAuthURI(kind: .hotp(counter: 0), secret: secret, account: "100%", issuer: "50% off"),
        ].compactMap { $0 }
    }()

    @Test func everyBuiltURIParsesBackToTheSameValue() throws {
        #expect(Self.roundTrips.count == 5)
        for uri in Self.roundTrips {
            let text = uri.string.revealed()
            #expect(text.unicodeScalars.allSatisfy { $0.isASCII && $0 != " " }, "\(uri)")
            let parsed = try OTPAuthURI(parsing: uri.string)
            #expect(parsed == uri, "\(uri)")
            #expect(parsed.account == uri.account && parsed.issuer == uri.issuer && parsed.kind == uri.kind)
        }
    }

    @Test func aLiteralColonSplitsTheLabelButAnEncodedOneDoesNot() throws {
        let split = try OTPAuthURI(parsing: "otpauth://totp/ACME:alice?secret=\(Self.exampleBase32)")
        #expect(split.issuer == "ACME" && split.account == "alice")
        let whole = try OTPAuthURI(parsing: "otpauth://totp/ACME%3Aalice?secret=\(Self.exampleBase32)")
        #expect(whole.issuer == nil && whole.account == "ACME:alice")
        let both = try OTPAuthURI(parsing: "otpauth://totp/A%3AB:c%3Ad?secret=\(Self.exampleBase32)")
        #expect(both.issuer == "A:B" && both.account == "c:d")
    }

    @Test func spacesAreDecodedAndLeadingSpacesOfTheAccountDropped() throws {
        let uri = try OTPAuthURI(parsing: "otpauth://totp/Big%20Corp:%20%20alice%20smith?secret=\(Self.exampleBase32)&issuer=Big+Corp")
        #expect(uri.issuer == "Big Corp")
        #expect(uri.account == "alice smith")
    }

    @Test func theIssuerMayComeFromEitherPlace() throws {
        let fromParameter = try OTPAuthURI(parsing: "otpauth://totp/alice?secret=\(Self.exampleBase32)&issuer=Param%20Co")
        #expect(fromParameter.issuer == "Param Co" && fromParameter.account == "alice")
        let fromLabel = try OTPAuthURI(parsing: "otpauth://totp/Label%20Co:alice?secret=\(Self.exampleBase32)")
        #expect(fromLabel.issuer == "Label Co")
        let emptyParameter = try OTPAuthURI(parsing: "otpauth://totp/Label:alice?secret=\(Self.exampleBase32)&issuer=")
        #expect(emptyParameter.issuer == "Label")
    }

    @Test func parameterNamesAndAlgorithmAreCaseInsensitiveAndUnknownParametersIgnored() throws {
        let uri = try OTPAuthURI(parsing:
            "OTPAUTH://TOTP/x:y?SECRET=\(Self.exampleBase32.lowercased())&Algorithm=sha256&Digits=8&Period=45&image=https%3A%2F%2Fe.com%2Fi.png#frag")
        #expect(uri.algorithm == .sha256 && uri.digits == 8 && uri.kind == .totp(period: 45))
        #expect(uri.secret.revealed().count == 10)
        #expect(try OTPAuthURI(parsing: "otpauth://totp/a?secret=\(Self.exampleBase32)&algorithm=Sha512").algorithm == .sha512)
    }

    @Test func paddedAndSpacedSecretsAreAccepted() throws {
        let padded = try OTPAuthURI(parsing: "otpauth://totp/a?secret=MZXW6YTBOI======")
        #expect(padded.secret.revealed() == Array("foobar".utf8))
        let spaced = try OTPAuthURI(parsing: "otpauth://totp/a?secret=MZXW%206YTB+OI")
        #expect(spaced.secret.revealed() == Array("foobar".utf8))
    }

    struct Malformed: Sendable, CustomTestStringConvertible {
        var uri: String
        var reason: String
        var mentions: String
        var testDescription: String { reason + ": " + uri }
    }

    static let secret = "JBSWY3DPEHPK3PXP"
    static let malformed: [Malformed] = [
        Malformed(uri: "https://totp/Example:alice?secret=\(secret)", reason: "wrongScheme", mentions: "otpauth://"),
        Malformed(uri: "otpauth:totp/Example:alice?secret=\(secret)", reason: "wrongScheme", mentions: "otpauth://"),
        Malformed(uri: "\(secret)", reason: "wrongScheme", mentions: "otpauth://"),
        Malformed(uri: "otpauth://motp/Example:alice?secret=\(secret)", reason: "unknownType", mentions: "totp or hotp"),
        Malformed(uri: "otpauth://\(secret)?secret=\(secret)", reason: "unknownType", mentions: "totp or hotp"),
        Malformed(uri: "otpauth://totp?secret=\(secret)", reason: "missingAccount", mentions: "account"),
        Malformed(uri: "otpauth://totp/?secret=\(secret)", reason: "missingAccount", mentions: "account"),
        Malformed(uri: "otpauth://totp/Example:?secret=\(secret)&issuer=Example", reason: "missingAccount", mentions: "account"),
        Malformed(uri: "otpauth://totp/Example:alice?issuer=Example", reason: "missingSecret", mentions: "secret"),
        Malformed(uri: "otpauth://totp/Example:alice?secret=&issuer=Example", reason: "missingSecret", mentions: "secret"),
        Malformed(uri: "otpauth://totp/Example:alice?secret=====", reason: "invalidSecret", mentions: "base32"),
        Malformed(uri: "otpauth://totp/Example:alice?secret=JBSWY3DPEHPK3PX1", reason: "invalidSecret", mentions: "'1' at position 16"),
        Malformed(uri: "otpauth://totp/Example:alice?secret=JBSWY3DPEHPK3P", reason: "invalidSecret", mentions: "14 base32 characters do not encode a whole number of bytes"),
        Malformed(uri: "otpauth://totp/a?secret=\(secret)&algorithm=MD5", reason: "invalidAlgorithm", mentions: "'MD5'"),
        Malformed(uri: "otpauth://totp/a?secret=\(secret)&algorithm=", reason: "invalidAlgorithm", mentions: "SHA1, SHA256 or SHA512"),
        Malformed(uri: "otpauth://totp/a?secret=\(secret)&digits=5", reason: "invalidDigits", mentions: "6, 7 or 8"),
        Malformed(uri: "otpauth://totp/a?secret=\(secret)&digits=9", reason: "invalidDigits", mentions: "'9'"),
        Malformed(uri: "otpauth://totp/a?secret=\(secret)&digits=six", reason: "invalidDigits", mentions: "'six'"),
        Malformed(uri: "otpauth://totp/a?secret=\(secret)&period=0", reason: "invalidPeriod", mentions: "positive"),
        Malformed(uri: "otpauth://totp/a?secret=\(secret)&period=-30", reason: "invalidPeriod", mentions: "'-30'"),
        Malformed(uri: "otpauth://totp/a?secret=\(secret)&period=30s", reason: "invalidPeriod", mentions: "'30s'"),
        Malformed(uri: "otpauth://hotp/a?secret=\(secret)", reason: "missingCounter", mentions: "counter"),
        Malformed(uri: "otpauth://hotp/a?secret=\(secret)&counter=-1", reason: "invalidCounter", mentions: "'-1'"),
        Malformed(uri: "otpauth://hotp/a?secret=\(secret)&counter=", reason: "invalidCounter", mentions: "non-negative integer"),
        Malformed(uri: "otpauth://totp/ACME:a?secret=\(secret)&issuer=Other", reason: "issuerMismatch", mentions: "(Other)"),
        Malformed(uri: "otpauth://totp/a?secret=\(secret)&secret=\(secret)", reason: "duplicateParameter", mentions: "secret"),
        Malformed(uri: "otpauth://totp/a?secret=\(secret)&digits=6&digits=8", reason: "duplicateParameter", mentions: "digits"),
        Malformed(uri: "otpauth://totp/a%G1?secret=\(secret)", reason: "malformed", mentions: "%-escape"),
        Malformed(uri: "otpauth://totp/a%FF?secret=\(secret)", reason: "malformed", mentions: "UTF-8"),
        Malformed(uri: "otpauth://totp/a?secret=\(secret)&issuer=%", reason: "malformed", mentions: "issuer parameter"),
    ]

    @Test(arguments: malformed)
    func malformedURIsFailWithASpecificErrorThatNeverContainsTheSecret(_ bad: Malformed) {
        let error = #expect(throws: AuthError.self) { try OTPAuthURI(parsing: Secret(bad.uri)) }
        #expect(error?.code == .invalidRequest)
        #expect(error?.details["reason"] == bad.reason)
        #expect(error?.message.contains(bad.mentions) == true, "\(String(describing: error?.message))")
        for text in [error?.message ?? "", error?.description ?? "", "\(error?.details ?? [:])"] {
            #expect(!text.contains("JBSWY3DPEHPK3PX"), "\(text)")
            #expect(!text.contains("JBSWY3DP"), "\(text)")
        }
    }

    @Test func eachKindOfProblemHasItsOwnReason() {
        let reasons = Set(Self.malformed.map(\.reason))
        #expect(reasons == ["wrongScheme", "unknownType", "missingAccount", "missingSecret", "invalidSecret", "invalidAlgorithm",
                            "invalidDigits", "invalidPeriod", "missingCounter", "invalidCounter", "issuerMismatch",
                            "duplicateParameter", "malformed"])
    }

    @Test func theSecretIsRedactedInEveryPrintedForm() throws {
        let uri = try OTPAuthURI(parsing: "otpauth://totp/ACME:alice?secret=\(Self.exampleBase32)&issuer=ACME")
        var dumped = ""
        dump(uri, to: &dumped)
        for text in [uri.description, uri.debugDescription, "\(uri)", String(reflecting: uri), dumped, "\(uri.string)",
                     "\(try uri.url())"] {
            #expect(!text.contains(Self.exampleBase32), "\(text)")
            #expect(!text.contains("72, 101, 108"), "\(text)")  // "Hel" as bytes
        }
        #expect(uri.description
            == "otpauth://totp/ACME:alice?secret=<redacted>&issuer=ACME&algorithm=SHA1&digits=6&period=30")
    }

    @Test func theFullTextIsReachableThroughExplicitAccessors() throws {
        let uri = try OTPAuthURI(secret: Self.rfcSecret, account: "alice", issuer: "ACME")
        #expect(uri.string.revealed().contains("secret=\(Self.rfcBase32)&"))
        let url = try uri.url().revealed()
        #expect(url.scheme == "otpauth")
        #expect(url.host == "totp")
        #expect(url.absoluteString == uri.string.revealed())
    }

    @Test func invalidPartsAreRejectedWhenBuilding() {
        let cases: [(String, () throws -> Void)] = [
            ("empty secret", { _ = try OTPAuthURI(secret: Secret([]), account: "a") }),
            ("empty account", { _ = try OTPAuthURI(secret: Self.rfcSecret, account: "") }),
            ("digits 4", { _ = try OTPAuthURI(secret: Self.rfcSecret, account: "a", digits: 4) }),
            ("period 0", { _ = try OTPAuthURI(kind: .totp(period: 0), secret: Self.rfcSecret, account: "a") }),
            ("T0 not epoch", {
                _ = try OTPAuthURI(totp: TOTP(secret: Self.rfcSecret, t0: Date(timeIntervalSince1970: 5)), account: "a", issuer: nil)
            }),
        ]
        for (label, make) in cases {
            let error = #expect(throws: AuthError.self, "\(label)") { try make() }
            #expect(error?.code == .invalidConfiguration, "\(label)")
        }
    }

    @Test func anEmptyIssuerMeansNone() throws {
        let uri = try OTPAuthURI(secret: Self.rfcSecret, account: "alice", issuer: "")
        #expect(uri.issuer == nil)
        #expect(uri.string.revealed().hasPrefix("otpauth://totp/alice?secret="))
    }

    @Test func convertsToAndFromGenerators() throws {
        let totp = try TOTP(secret: Self.rfcSecret, algorithm: .sha256, digits: 8, period: 60)
        let uri = try OTPAuthURI(totp: totp, account: "alice", issuer: "ACME")
        #expect(uri.kind == .totp(period: 60))
        let back = try uri.totp(skew: 2)
        #expect(back.secret == totp.secret && back.algorithm == .sha256 && back.digits == 8 && back.period == 60 && back.skew == 2)
        #expect(throws: AuthError(.invalidConfiguration)) { try uri.hotp() }

        let hotp = try HOTP(secret: Self.rfcSecret, digits: 7)
        let hotpURI = try OTPAuthURI(hotp: hotp, counter: 5, account: "bob", issuer: nil)
        #expect(hotpURI.kind == .hotp(counter: 5))
        #expect(try hotpURI.hotp() == hotp)
        #expect(throws: AuthError(.invalidConfiguration)) { try hotpURI.totp() }
    }
}
