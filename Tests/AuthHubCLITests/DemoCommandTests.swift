import AuthHub
import Foundation
import Testing

/// `authhub demo` as a user runs it: an in-process emulator on an ephemeral port, the embedded
/// providers.json loaded against it, a result table, exit status 0.
@Suite struct DemoCommandTests {
    @Test func demoRunsAgainstTheInProcessEmulator() async throws {
        let result = try await AuthHubBinary.runDetached(["demo", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let document = try JSONValue.parse(Data(result.stdout.utf8))
        #expect(document["ok"] == true)
        let rows = document["rows"]?.arrayValue ?? []
        func row(_ provider: String, _ flow: String) -> JSONValue? {
            rows.first { $0["provider"] == .string(provider) && $0["flow"] == .string(flow) }
        }
        for module in ["auth0", "firebase", "openfort", "turnkey"] {
            #expect(row(module, "emulator routes")?["result"] == "ok", "\(module)")
        }
        #expect(row("all", "load providers.json")?["result"] == "ok")
        for flow in ["sign-up, then password sign-in", "user info", "refresh with rotation", "web auth (PKCE, loopback, ID token)",
                     "MFA with a TOTP code", "passkey sign-up, then login", "My Account: enroll TOTP (QR code), list, delete",
                     "My Account: enroll a passkey, sign in with it", "sign out (revoke)", "organization sign-in (org_id checked)",
                     "federated logout ends the browser session", "token (renewed when it expires within min-ttl)",
                     "web sign-in (Hummingbird example app, login form, cookie session)",
                     "web sign-in (Vapor example app, login form, cookie session)", "device sign-in (code approved on another device)"] {
            #expect(row("auth0", flow)?["result"] == "ok", "auth0 \(flow): \(String(describing: row("auth0", flow)))")
        }
        #expect(row("oidc", "browser sign-in (discovery, PKCE, ID token), refresh")?["result"] == "ok")
        for flow in ["sign-up, then password sign-in", "token refresh (Secure Token), current user",
                     "password reset (code from the emulator)", "TOTP second factor: enroll, then MFA sign-in",
                     "account API: methods, name, remove the TOTP factor", "delete account"] {
            #expect(row("firebase", flow)?["result"] == "ok", "firebase \(flow): \(String(describing: row("firebase", flow)))")
        }
        for flow in ["guest sign-in", "sign-up (guest upgraded), sign-out, sign-in", "me, get-session", "sign out"] {
            #expect(row("openfort", flow)?["result"] == "ok", "openfort \(flow): \(String(describing: row("openfort", flow)))")
        }
        for flow in ["register a passkey user (emulator)", "email lookup (proxy)", "passkey login, stamped whoami",
                     "refresh (new session key)", "read-write session (HPKE credential bundle)", "sign out",
                     "passkey sign-up (backend proxy), then login"] {
            #expect(row("turnkey", flow)?["result"] == "ok", "turnkey \(flow): \(String(describing: row("turnkey", flow)))")
        }
        // Every built-in provider of the embedded configuration has flow rows of its own.
        #expect(rows.allSatisfy { $0["result"] == "ok" })
        let providers = Set(rows.compactMap { $0["provider"]?.stringValue })
        #expect(providers.isSuperset(of: ["auth0", "firebase", "openfort", "turnkey", "oidc"]))
    }

    @Test func demoTableIsReadable() async throws {
        let result = try await AuthHubBinary.runDetached(["demo"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("provider | flow"))
        #expect(result.stdout.contains("0 failed"))
        // A newcomer's first run: nothing failed, so nothing on standard error says "error" (the
        // in-process servers shut down gracefully; a cancelled Hummingbird server logs at error).
        let errorLines = result.stderr.split(separator: "\n").filter { $0.lowercased().contains("error") }
        #expect(errorLines.isEmpty, "\(errorLines)")
    }

    /// `demo --metrics`: what swift-metrics received during the run, after the table — sign-ins,
    /// renewals, sign-outs by provider and outcome, provider round trips, lock waits — and nothing
    /// that looks like a token or an email address.
    @Test func demoPrintsTheMetricsOfTheRun() async throws {
        let result = try await AuthHubBinary.runDetached(["demo", "--metrics"])
        #expect(result.status == 0, "\(result.stderr)")
        let parts = result.stdout.components(separatedBy: "Metrics (swift-metrics, recorded during the run):")
        #expect(parts.count == 2)
        let lines = (parts.last ?? "").split(separator: "\n").map(String.init)
        func value(_ prefix: String) -> Int? {
            lines.first { $0.hasPrefix(prefix + " ") }.flatMap { Int($0.split(separator: " ").last ?? "") }
        }
        #expect((value(#"authhub_sign_ins{provider="auth0",method="password",outcome="success"}"#) ?? 0) >= 1, "\(lines)")
        #expect((value(#"authhub_sign_ins{provider="auth0",method="password",outcome="mfaRequired"}"#) ?? 0) >= 1)
        #expect((value(#"authhub_refreshes{provider="auth0",trigger="forced",outcome="success"}"#) ?? 0) >= 1)
        #expect((value(#"authhub_sign_outs{provider="auth0",outcome="success"}"#) ?? 0) >= 1)
        #expect(lines.contains { $0.hasPrefix(#"authhub_provider_request_duration{provider="auth0",operation="sign-in",method="POST",status="200"} count="#) })
        #expect(lines.contains { $0.hasPrefix(#"authhub_refresh_lock_wait{provider="auth0"} count="#) })
        for line in lines {
            #expect(!line.contains("eyJ") && !line.contains("@"), "\(line)")
        }
    }
}
