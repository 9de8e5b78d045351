import AuthHub
import Foundation
import Testing

/// The whole demo — every provider's flows: passwords, codes, tokens, passkeys, session keys — at
/// `AUTHHUB_LOG_LEVEL=trace`, which logs every request and reply with headers and bodies: no secret may
/// reach a log line. The scan looks for JWTs, the demo's passwords, and any secret-named JSON member
/// or header whose value is not `<redacted>`. RELIABILITY.md quotes the counts.
@Suite struct TraceLogSecretScanTests {
    static let secretMembers = ["access_token", "refresh_token", "id_token", "idToken", "refreshToken", "accessToken", "password",
                                "newPassword", "oobCode", "otp", "code", "binding_code", "recovery_code", "mfa_token", "token",
                                "client_secret", "subject_token", "privateKey", "credentialBundle", "session"]

    @Test func traceLogsOfTheWholeDemoHoldNoSecret() async throws {
        let result = try await AuthHubBinary.runDetached(["demo"], environment: ["AUTHHUB_LOG_LEVEL": "trace"])
        #expect(result.status == 0, "\(result.stderr.suffix(2000))")
        let lines = result.stderr.split(separator: "\n").map(String.init)
        let bodies = lines.filter { $0.contains("body=") }
        #expect(bodies.count > 100, "the trace log carries the request and reply bodies (\(bodies.count) lines)")

        var findings: [String] = []
        let jwt = try Regex(#"eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*"#)
        for line in lines {
            if line.contains(jwt) { findings.append("a JWT: \(line.prefix(160))") }
            for password in ["demo: correct horse battery staple", "demo: firebase password", "demo: openfort password"]
            where line.contains(password) {
                findings.append("a demo password: \(line.prefix(160))")
            }
            for member in Self.secretMembers {
                let pattern = try Regex("\"\(member)\"\\s*:\\s*\"([^\"]*)\"")
                for match in line.matches(of: pattern) {
                    let value = match.output[1].substring.map(String.init) ?? ""
                    if value != "<redacted>", !value.isEmpty { findings.append("\(member) in clear: \(line.prefix(160))") }
                }
            }
            for header in ["Authorization: ", "X-Stamp: ", "X-Stamp-WebAuthn: ", "Cookie: ", "Set-Cookie: "] {
                var rest = line[...]
                while let range = rest.range(of: header) {
                    if !rest[range.upperBound...].hasPrefix("<redacted>") { findings.append("a \(header)header: \(line.prefix(160))") }
                    rest = rest[range.upperBound...]
                }
            }
        }
        print("TraceLogSecretScanTests: \(lines.count) trace lines (\(bodies.count) with bodies) scanned, \(findings.count) secrets found")
        #expect(findings.isEmpty, "\(findings.joined(separator: "\n"))")
    }
}
