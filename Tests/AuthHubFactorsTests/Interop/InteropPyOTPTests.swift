import AuthHub
import AuthHubFactors
import AuthHubTesting
import Foundation
import Testing

/// HOTP, TOTP and otpauth URIs against pyotp (PyPI), an implementation nobody here wrote.
///
/// `.ci/interop` installs pyotp into a virtual environment and sets `AUTHHUB_INTEROP_PYTHON` to its
/// interpreter; the suite is skipped otherwise so that `swift test` alone needs only the toolchain.
/// Each test sends one batch of requests to `Tests/Interop/pyotp_bridge.py` as JSON on stdin and
/// reads pyotp's answers from stdout.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["AUTHHUB_INTEROP_PYTHON"] != nil,
                "set by .ci/interop (pyotp from PyPI)"))
struct InteropPyOTPTests {
    /// `Tests/Interop/pyotp_bridge.py`, found from this file (`Tests/AuthHubFactorsTests/Interop/…`).
    static let bridge = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Interop").appendingPathComponent("pyotp_bridge.py")

    static let algorithms: [OTPAlgorithm] = [.sha1, .sha256, .sha512]
    static let digitCounts = [6, 8]
    static let periods = [30, 60]
    /// The RFC 6238 times plus 2026-01-01T00:00:15Z.
    static let times: [Int] = [59, 1_111_111_109, 1_234_567_890, 1_767_225_615, 2_000_000_000, 20_000_000_000]
    static let counters: [UInt64] = [0, 1, 9, 1000, 4_294_967_301, 1 << 40]

    /// RFC 6238's seed for each algorithm (20, 32 and 64 ASCII digits).
    static func seed(_ algorithm: OTPAlgorithm) -> Secret<[UInt8]> {
        let length = switch algorithm {
        case .sha1: 20
        case .sha256: 32
        case .sha512: 64
        }
        return Secret(Array(String(repeating: "1234567890", count: 7).prefix(length).utf8))
    }

    struct Combination {
        var algorithm: OTPAlgorithm
        var digits: Int
        var period: Int
        var secret: Secret<[UInt8]> { InteropPyOTPTests.seed(algorithm) }
        var base32: String { Base32.encode(secret.revealed()) }

        func totp(skew: Int = 0) throws -> TOTP {
            try TOTP(secret: secret, algorithm: algorithm, digits: digits, period: period, skew: skew)
        }

        func request(_ op: String, _ extra: [String: Any] = [:]) -> [String: Any] {
            var request: [String: Any] = ["op": op, "secret": base32, "algorithm": algorithm.rawValue, "digits": digits,
                                          "period": period]
            request.merge(extra) { _, new in new }
            return request
        }
    }

    static var combinations: [Combination] {
        algorithms.flatMap { algorithm in
            digitCounts.flatMap { digits in periods.map { Combination(algorithm: algorithm, digits: digits, period: $0) } }
        }
    }

    /// Runs one batch through pyotp and returns its results, one per request.
    func pyotp(_ requests: [[String: Any]]) throws -> [[String: Any]] {
        let python = try #require(ProcessInfo.processInfo.environment["AUTHHUB_INTEROP_PYTHON"])
        let run = try SpawnedProcess.run(URL(fileURLWithPath: python), [Self.bridge.path],
                                         input: try JSONSerialization.data(withJSONObject: ["requests": requests]))
        try #require(run.status == 0, "pyotp_bridge.py failed: \(run.standardError)")
        let object = try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
        let results = try #require(object["results"] as? [[String: Any]])
        try #require(results.count == requests.count)
        return results
    }

    // MARK: - (a) Swift → pyotp: TOTP

    @Test func totpCodesFromSwiftVerifyInPyOTPAndEqualItsOwn() throws {
        var requests: [[String: Any]] = []
        var expected: [String] = []
        for combination in Self.combinations {
            let totp = try combination.totp()
            for time in Self.times {
                let code = try totp.code(at: Date(timeIntervalSince1970: TimeInterval(time))).revealed()
                requests.append(combination.request("totp_at", ["time": time]))
                requests.append(combination.request("totp_verify", ["time": time, "code": code]))
                expected.append(code)
            }
        }
        #expect(expected.count == 72)
        let results = try pyotp(requests)
        for (index, code) in expected.enumerated() {
            let at = results[2 * index]
            let verify = results[2 * index + 1]
            #expect(at["code"] as? String == code, "\(requests[2 * index])")
            #expect(verify["valid"] as? Bool == true, "\(requests[2 * index + 1])")
        }
    }

    // MARK: - (b) pyotp → Swift: TOTP

    @Test func totpCodesFromPyOTPVerifyInSwift() throws {
        var requests: [[String: Any]] = []
        for combination in Self.combinations {
            for time in Self.times {
                requests.append(combination.request("totp_at", ["time": time]))
                requests.append(combination.request("totp_at", ["time": time + combination.period]))
            }
        }
        let results = try pyotp(requests)
        var index = 0
        for combination in Self.combinations {
            let strict = try combination.totp(skew: 0)
            let lenient = try combination.totp(skew: 1)
            for time in Self.times {
                let now = Date(timeIntervalSince1970: TimeInterval(time))
                let current = try #require(results[index]["code"] as? String)
                let next = try #require(results[index + 1]["code"] as? String)
                index += 2
                let step = UInt64(time / combination.period)
                #expect(current.count == combination.digits)
                #expect(try strict.verify(Secret(current), at: now) == step, "\(combination) at \(time)")
                // pyotp's code for the next step: inside a one-step window, outside a zero-step one.
                #expect(try lenient.verify(Secret(next), at: now) == step + 1, "\(combination) at \(time)")
                #expect(throws: AuthError(.invalidMFACode)) { try strict.verify(Secret(next), at: now) }
            }
        }
    }

    // MARK: - (c) HOTP both ways

    @Test func hotpCodesAgreeBothWays() throws {
        var requests: [[String: Any]] = []
        var swiftCodes: [String] = []
        for combination in Self.combinations where combination.period == 30 {
            let hotp = try HOTP(secret: combination.secret, algorithm: combination.algorithm, digits: combination.digits)
            for counter in Self.counters {
                let code = hotp.code(counter: counter).revealed()
                swiftCodes.append(code)
                requests.append(combination.request("hotp_at", ["counter": counter]))
                requests.append(combination.request("hotp_verify", ["counter": counter, "code": code]))
            }
        }
        let results = try pyotp(requests)
        var index = 0
        for combination in Self.combinations where combination.period == 30 {
            let hotp = try HOTP(secret: combination.secret, algorithm: combination.algorithm, digits: combination.digits)
            for counter in Self.counters {
                let pyotpCode = try #require(results[2 * index]["code"] as? String)
                #expect(pyotpCode == swiftCodes[index], "\(combination) counter \(counter)")
                #expect(results[2 * index + 1]["valid"] as? Bool == true, "\(combination) counter \(counter)")
                #expect(try hotp.verify(Secret(pyotpCode), counter: counter) == counter)
                index += 1
            }
        }
        #expect(index == 36)
    }

    // MARK: - (d) otpauth URIs both ways

    static let labels: [(account: String, issuer: String?)] = [
        ("alice@example.com", "ACME Co"),
        ("jo hn+x@example.com", "Bücher & Söhne"),
        ("bob", nil),
    ]

    @Test func urisBuiltInSwiftParseInPyOTP() throws {
        var uris: [OTPAuthURI] = []
        for combination in Self.combinations {
            for label in Self.labels {
                uris.append(try OTPAuthURI(kind: .totp(period: combination.period), secret: combination.secret,
                                           account: label.account, issuer: label.issuer, algorithm: combination.algorithm,
                                           digits: combination.digits))
            }
            uris.append(try OTPAuthURI(kind: .hotp(counter: 1 << 33), secret: combination.secret, account: "carol",
                                       issuer: "HOTP Inc", algorithm: combination.algorithm, digits: combination.digits))
        }
        let results = try pyotp(uris.map { ["op": "parse_uri", "uri": $0.string.revealed()] })
        for (uri, parsed) in zip(uris, results) {
            #expect(parsed["error"] == nil, "\(uri): \(parsed)")
            #expect(parsed["secret"] as? String == Base32.encode(uri.secret.revealed()), "\(uri)")
            #expect(parsed["name"] as? String == uri.account, "\(uri)")
            #expect(parsed["issuer"] as? String == uri.issuer, "\(uri)")
            #expect(parsed["digits"] as? Int == uri.digits, "\(uri)")
            #expect(parsed["algorithm"] as? String == uri.algorithm.rawValue, "\(uri)")
            switch uri.kind {
            case .totp(let period):
                #expect(parsed["type"] as? String == "totp")
                #expect(parsed["period"] as? Int == period, "\(uri)")
            case .hotp(let counter):
                #expect(parsed["type"] as? String == "hotp")
                #expect((parsed["counter"] as? NSNumber)?.uint64Value == counter, "\(uri)")
            }
        }
    }

    @Test func urisFromPyOTPParseInSwift() throws {
        var requests: [[String: Any]] = []
        var expectations: [(OTPAuthURI.Kind, Combination, account: String, issuer: String?)] = []
        for combination in Self.combinations {
            for label in Self.labels {
                var request = combination.request("provisioning_uri", ["type": "totp", "name": label.account])
                if let issuer = label.issuer { request["issuer"] = issuer }
                requests.append(request)
                expectations.append((.totp(period: combination.period), combination, label.account, label.issuer))
            }
            requests.append(combination.request("provisioning_uri",
                                                ["type": "hotp", "name": "carol", "issuer": "HOTP Inc", "counter": 12]))
            expectations.append((.hotp(counter: 12), combination, "carol", "HOTP Inc"))
        }
        let results = try pyotp(requests)
        for (result, expected) in zip(results, expectations) {
            let text = try #require(result["uri"] as? String, "\(result)")
            let uri = try OTPAuthURI(parsing: Secret(text))
            #expect(uri.kind == expected.0, "\(uri)")
            #expect(uri.secret == expected.1.secret, "\(uri)")
            #expect(uri.algorithm == expected.1.algorithm, "\(uri)")
            #expect(uri.digits == expected.1.digits, "\(uri)")
            #expect(uri.account == expected.account, "\(uri)")
            #expect(uri.issuer == expected.issuer, "\(uri)")
        }
        // pyotp leaves out parameters at their defaults, so the defaults were exercised too.
        let plain = try #require(results.first?["uri"] as? String)
        #expect(!plain.contains("digits=") && !plain.contains("period=") && !plain.contains("algorithm="), "\(plain)")
    }

    // MARK: - Negatives

    static func altered(_ code: String) -> String {
        guard let last = code.last?.wholeNumberValue else { return code }
        return String(code.dropLast()) + String((last + 1) % 10)
    }

    @Test func aWrongCodeIsRejectedByBoth() throws {
        let combination = Combination(algorithm: .sha256, digits: 8, period: 30)
        let totp = try combination.totp()
        let time = 1_767_225_615
        let now = Date(timeIntervalSince1970: TimeInterval(time))
        let swiftWrong = Self.altered(try totp.code(at: now).revealed())
        let hotp = try HOTP(secret: combination.secret, algorithm: .sha256, digits: 8)
        let hotpWrong = Self.altered(hotp.code(counter: 5).revealed())

        let results = try pyotp([
            combination.request("totp_verify", ["time": time, "code": swiftWrong, "window": 1]),  // Swift → pyotp
            combination.request("hotp_verify", ["counter": 5, "code": hotpWrong]),
            combination.request("totp_at", ["time": time]),                                     // pyotp → Swift
            combination.request("hotp_at", ["counter": 5]),
        ])
        #expect(results[0]["valid"] as? Bool == false)
        #expect(results[1]["valid"] as? Bool == false)
        #expect(throws: AuthError(.invalidMFACode)) { try totp.verify(Secret(swiftWrong), at: now) }
        #expect(throws: AuthError(.invalidMFACode)) { try hotp.verify(Secret(hotpWrong), counter: 5) }

        let pyotpWrong = Self.altered(try #require(results[2]["code"] as? String))
        #expect(throws: AuthError(.invalidMFACode)) { try totp.verify(Secret(pyotpWrong), at: now) }
        let pyotpHOTPWrong = Self.altered(try #require(results[3]["code"] as? String))
        #expect(throws: AuthError(.invalidMFACode)) { try hotp.verify(Secret(pyotpHOTPWrong), counter: 5) }
        // And the unaltered pyotp codes are accepted, so the rejections above are about the digit.
        #expect(try totp.verify(Secret(try #require(results[2]["code"] as? String)), at: now) == UInt64(time / 30))
    }

    @Test func bothRejectTheSameMalformedURIs() throws {
        let secret = Base32.encode(Self.seed(.sha1).revealed())
        let bad = [
            "https://totp/ACME:alice?secret=\(secret)",
            "otpauth://totp/ACME:alice?issuer=ACME",
            "otpauth://totp/ACME:alice?secret=\(secret)&issuer=Other",
            "otpauth://totp/ACME:alice?secret=\(secret)&digits=9",
            "otpauth://totp/ACME:alice?secret=\(secret)&algorithm=MD5",
            "otpauth://totp/ACME:alice?secret=\(secret)&secret=\(secret)",
        ]
        let results = try pyotp(bad.map { ["op": "parse_uri", "uri": $0] })
        for (uri, result) in zip(bad, results) {
            #expect(result["error"] is String, "pyotp accepted \(uri)")
            let error = #expect(throws: AuthError.self, "\(uri)") { try OTPAuthURI(parsing: uri) }
            #expect(error?.code == .invalidRequest)
        }
    }
}
