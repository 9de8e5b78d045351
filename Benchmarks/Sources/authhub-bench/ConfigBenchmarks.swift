import AuthHub
import AuthHubProviders
import Foundation

enum ConfigBenchmarks {
    /// A valid providers.json with `count` providers of mixed types (auth0, firebase, openfort,
    /// turnkey, oidc in turn), a file store and `${VAR:-default}` references.
    static func generate(count: Int) -> String {
        var entries: [String] = []
        for i in 0..<count {
            switch i % 5 {
            case 0:
                entries.append(#"{ "id": "auth0-\#(i)", "type": "auth0", "domain": "tenant\#(i).eu.auth0.com", "clientId": "${AUTH0_CLIENT_ID:-client\#(i)}", "audience": "https://api\#(i).example.com" }"#)
            case 1:
                entries.append(#"{ "id": "firebase-\#(i)", "type": "firebase", "apiKey": "${FIREBASE_API_KEY:-key-\#(i)}", "projectId": "project-\#(i)" }"#)
            case 2:
                entries.append(#"{ "id": "openfort-\#(i)", "type": "openfort", "publishableKey": "pk_test_00000000-0000-4000-8000-\#(String(format: "%012d", i))" }"#)
            case 3:
                entries.append(#"{ "id": "turnkey-\#(i)", "type": "turnkey", "baseURL": "https://api.turnkey.com", "organizationId": "00000000-0000-4000-8000-\#(String(format: "%012d", i))", "rpId": "app\#(i).example.com", "proxyURL": "https://proxy\#(i).example.com" }"#)
            default:
                entries.append(#"{ "id": "oidc-\#(i)", "type": "oidc", "issuer": "https://issuer\#(i).example.com/", "clientId": "client-\#(i)", "scopes": ["openid", "profile", "email", "offline_access"] }"#)
            }
        }
        return """
            {
              "defaultEnvironment": "production",
              "environments": {
                "production": {
                  "defaultProvider": "auth0-0",
                  "sessionStore": { "type": "file", "path": "${AUTHHUB_STATE_DIR:-/var/lib/authhub}/sessions" },
                  "providers": [
                    \(entries.joined(separator: ",\n        "))
                  ]
                }
              }
            }
            """
    }

    static func run(_ options: BenchOptions) async throws -> [Row] {
        var rows: [Row] = []
        let loader = ConfigLoader(registry: .builtIn, environmentVariables: [:])
        for count in [4, 200] where options.wants("config.load.\(count)") {
            let data = Data(generate(count: count).utf8)
            let environment = try loader.load(data: data, environment: "production", file: "providers.json")
            guard environment.providers.count == count else { throw BenchFailure("the loader kept \(environment.providers.count) of \(count) providers") }
            let ops = options.batch(count == 4 ? 2_000 : 100)
            // CPU time of the calling thread: the load is synchronous, so it stays on one thread.
            let result = try await paired(samples: options.samples, baseline: {
                let start = Clock.threadCPUNanoseconds()
                for _ in 0..<ops { _ = try JSONSerialization.jsonObject(with: data) }
                return Double(Clock.threadCPUNanoseconds() - start) / Double(ops)
            }, subject: {
                let start = Clock.threadCPUNanoseconds()
                for _ in 0..<ops { _ = try loader.load(data: data, environment: "production", file: "providers.json") }
                return Double(Clock.threadCPUNanoseconds() - start) / Double(ops)
            })
            let allocOps = options.batch(count == 4 ? 200 : 10)
            let allocs = try await Allocations.perOp(allocOps) {
                for _ in 0..<allocOps { _ = try loader.load(data: data, environment: "production", file: "providers.json") }
            }
            let baseAllocs = try await Allocations.perOp(allocOps) { for _ in 0..<allocOps { _ = try JSONSerialization.jsonObject(with: data) } }
            let medianMs = result.subject.median / 1_000_000
            var row = timeRow("config.load.\(count)", result, unit: "ms/op", baseline: "JSONSerialization parse of the same bytes",
                              targetRatio: .infinity, allocs: allocs, baselineAllocs: baseAllocs)
            row.unit = "ms CPU/op"
            row.target = "< 10 ms CPU"
            row.verdict = medianMs < 10 ? "pass" : "MISS"
            row.note = "\(data.count) bytes; ratio is informational (the target is absolute)"
            rows.append(row)
        }

        // The CLI: spawn the release binary on a file, against spawning /bin/true and `authhub --help`.
        let cliNames = ["cli.validate.4", "cli.validate.200"]
        guard cliNames.contains(where: options.wants) else { return rows }
        guard let authhub = options.authhubPath, access(authhub, X_OK) == 0 else {
            for name in cliNames where options.wants(name) {
                rows.append(Row.skipped(name, target: "dominated by process start", reason: "no --authhub binary given (Benchmarks/run passes the release build)"))
            }
            return rows
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authhub-bench-cli-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let runs = options.quick ? 3 : 11
        for count in [4, 200] where options.wants("cli.validate.\(count)") {
            let file = directory.appendingPathComponent("providers-\(count).json").path
            try Data(generate(count: count).utf8).write(to: URL(fileURLWithPath: file))
            let validate = [authhub, "validate", "--config", file]
            guard Spawn.run(validate) == 0 else { throw BenchFailure("authhub validate rejected the generated \(count)-provider file") }
            var help: [Double] = []
            let result = await paired(samples: runs, baseline: {
                Double(Clock.perOp(1) { Spawn.run(["/bin/true"]) })
            }, subject: {
                let v = Clock.perOp(1) { Spawn.run(validate) }
                help.append(Clock.perOp(1) { Spawn.run([authhub, "--help"]) })
                return v
            })
            let helpMedian = Samples(values: help).median
            let share = (result.subject.median - helpMedian) / result.subject.median
            var row = timeRow("cli.validate.\(count)", result, unit: "ms/op", baseline: "spawn /bin/true", targetRatio: .infinity)
            row.perSecond = nil
            row.target = "validation < 50% of wall"
            row.verdict = share < 0.5 ? "pass" : "MISS"
            row.note = String(format: "`authhub --help` (the same binary starting and exiting) takes %.2f ms; validation is %.0f%% of the validate wall time",
                              helpMedian / 1_000_000, Swift.max(0, share) * 100)
            rows.append(row)
        }
        return rows
    }
}

extension Clock {
    static func perOp(_ ops: Int, _ body: () -> Void) -> Double {
        let start = monotonicNanoseconds()
        body()
        return Double(monotonicNanoseconds() - start) / Double(ops)
    }
}
