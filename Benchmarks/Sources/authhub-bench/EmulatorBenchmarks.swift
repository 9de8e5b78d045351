import AuthHub
import AuthHubAsyncHTTPClient
import AuthHubEmulator
import AuthHubProviders
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

enum EmulatorBenchmarks {
    static func configuration(port: Int) -> String {
        """
        {
          "defaultEnvironment": "bench",
          "environments": {
            "bench": {
              "defaultProvider": "firebase",
              "sessionStore": { "type": "memory" },
              "providers": [
                { "id": "firebase", "type": "firebase", "apiKey": "bench-key", "projectId": "authhub-dev", "emulatorHost": "127.0.0.1:\(port)" }
              ]
            }
          }
        }
        """
    }

    /// Informational rows that split the sequential sign-in into layers, each against the next one down.
    static let layerNames = ["signin.layers.hub-vs-transport", "signin.layers.transport-vs-urlsession", "signin.layers.urlsession-vs-curl"]
    /// The same sign-in rows with `AsyncHTTPClientTransport` (AuthHubAsyncHTTPClient) in the hub.
    static let ahcNames = ["signin.ahc.password.seq", "signin.ahc.password.32", "signin.ahc.layers.hub-vs-transport", "signin.ahc.layers.transport-vs-curl"]

    static func run(_ options: BenchOptions) async throws -> [Row] {
        let refreshCounts = [1, 10, 100, 1_000]
        let names = refreshCounts.map { "refresh.contended.\($0)" } + ["refresh.contended.1000.vs-floor", "signin.password.seq", "signin.password.32"] + layerNames
            + ahcNames
        guard names.contains(where: options.wants) else { return [] }

        let emulator = try await Emulator.start()
        do {
            let rows = try await measure(options, emulator: emulator, refreshCounts: refreshCounts)
            await emulator.stop()
            return rows
        } catch {
            await emulator.stop()
            throw error
        }
    }

    static func measure(_ options: BenchOptions, emulator: RunningEmulator, refreshCounts: [Int]) async throws -> [Row] {
        let transport = CountingTransport(inner: URLSessionTransport(defaultTimeout: .seconds(30)), countingPathsContaining: "securetoken")
        let environment = try ConfigLoader(registry: .builtIn, environmentVariables: [:])
            .load(data: Data(configuration(port: emulator.port).utf8), environment: "bench", file: "<bench>")
        let store = InMemorySessionStore()
        let hub = try AuthHub(environment: environment, registry: .builtIn, context: ProviderContext(transport: transport), store: store)
        let email = "bench@example.com"
        let password = Secret("correct horse battery staple")
        _ = try await hub.signUp(SignUpRequest(email: email, password: password))
        try await hub.signIn(.password(identifier: email, password: password))
        guard let signInRequest = transport.last, signInRequest.url.absoluteString.contains("signInWithPassword") else {
            throw BenchFailure("could not observe the sign-in request")
        }
        let key = SessionKey(provider: "firebase")
        var rows: [Row] = []

        // 2. Refresh under contention.
        func expire() async throws {
            guard var session = try await store.load(key) else { throw BenchFailure("no stored session") }
            session.expiresAt = Date().addingTimeInterval(-120)
            _ = try await store.save(session, for: key, expectedVersion: nil)
            _ = try await hub.manager().reload()
        }
        /// One round: `callers` concurrent `session()` calls on an expired session; wall ns and refresh requests.
        func round(_ callers: Int) async throws -> (ns: Double, requests: Int) {
            try await expire()
            transport.reset()
            let ns = try await Clock.perOp(1) {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<callers { group.addTask { _ = try await hub.session() } }
                    try await group.waitForAll()
                }
            }
            return (ns, transport.matching)
        }
        for callers in refreshCounts where options.wants("refresh.contended.\(callers)") {
            var requestCounts: [Int] = []
            let result = try await paired(samples: options.samples, baseline: {
                let r = try await round(1)
                requestCounts.append(r.requests)
                return r.ns
            }, subject: {
                let r = try await round(callers)
                requestCounts.append(r.requests)
                return r.ns
            })
            let allOne = requestCounts.allSatisfy { $0 == 1 }
            var row = timeRow("refresh.contended.\(callers)", result, unit: "ms/op", baseline: "one uncontended refresh (1 caller)",
                              targetRatio: callers == 1_000 ? 1.5 : .infinity, extraCheck: allOne,
                              note: "refresh requests per round: \(Set(requestCounts).sorted().map(String.init).joined(separator: "/"))"
                                  + (allOne ? " (always 1)" : " — expected exactly 1"))
            row.unit = "ms/round"
            row.perSecond = nil
            if callers != 1_000 {
                row.target = "1 request/round"
                row.verdict = allOne ? "pass" : "MISS"
            } else {
                row.target = "≤ 1.5×, 1 request/round"
            }
            rows.append(row)
        }

        // The floor of 1,000 callers sharing one refresh: the provider's refresh in one plain Task
        // that 1,000 tasks await (no SessionManager, no store): what the runtime itself costs.
        let floorName = "refresh.contended.1000.vs-floor"
        if options.wants(floorName) {
            let provider = try hub.provider("firebase")
            guard let stored = try await store.load(key) else { throw BenchFailure("no stored session") }
            var requestCounts: [Int] = []
            func floorRound(_ callers: Int) async throws -> Double {
                transport.reset()
                let ns = try await Clock.perOp(1) {
                    let shared = Task { try await provider.refresh(stored, scope: nil) }
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for _ in 0..<callers { group.addTask { _ = try await shared.value } }
                        try await group.waitForAll()
                    }
                }
                guard transport.matching == 1 else { throw BenchFailure("the floor sent \(transport.matching) refreshes") }
                return ns
            }
            let result = try await paired(samples: options.samples, baseline: { try await floorRound(1_000) }, subject: {
                let r = try await round(1_000)
                requestCounts.append(r.requests)
                return r.ns
            })
            var row = timeRow(floorName, result, unit: "ms/op", baseline: "1,000 tasks awaiting one plain refresh Task",
                              targetRatio: .infinity, extraCheck: requestCounts.allSatisfy { $0 == 1 })
            row.unit = "ms/round"
            row.perSecond = nil
            row.target = "report"
            row.verdict = "info"
            row.note = "AuthHub's single-flight against the runtime's floor for the same fan-out"
            rows.append(row)
        }

        // 5. Password sign-in round trips against curl sending the same request.
        let seqName = "signin.password.seq"
        let parName = "signin.password.32"
        guard options.wants(seqName) || options.wants(parName) || (layerNames + ahcNames).contains(where: options.wants) else { return rows }
        guard let curl = Spawn.which("curl") else {
            for name in [seqName, parName] + layerNames where options.wants(name) {
                rows.append(Row.skipped(name, target: name == seqName ? "≤ 1.3× curl" : (name == parName ? "scales with callers" : "report"),
                                        reason: "curl is not installed"))
            }
            return rows
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authhub-bench-curl-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let bodyPath = directory.appendingPathComponent("body.json").path
        try (signInRequest.body ?? Data()).write(to: URL(fileURLWithPath: bodyPath))
        let outPath = directory.appendingPathComponent("codes.txt").path

        /// A curl config sending the observed sign-in request `count` times over keep-alive connections.
        func curlConfig(count: Int, parallel: Int?) throws -> String {
            var lines: [String] = []
            if let parallel { lines += ["parallel", "parallel-max = \(parallel)"] }
            lines.append("request = \"\(signInRequest.head.method.rawValue)\"")
            for field in signInRequest.head.headerFields { lines.append("header = \"\(field.name.rawName): \(field.value)\"") }
            lines.append("data-binary = \"@\(bodyPath)\"")
            lines.append("write-out = \"%{http_code}\\n\"")
            lines.append("silent")
            for _ in 0..<count {
                lines.append("url = \"\(signInRequest.url.absoluteString)\"")
                lines.append("output = \"/dev/null\"")
            }
            let path = directory.appendingPathComponent("curl-\(count)-\(parallel ?? 1).conf").path
            try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        func curlRun(_ config: String, expect count: Int) throws -> Double {
            let ns = Clock.perOp(count) { Spawn.run([curl, "--config", config], stdout: outPath) }
            let codes = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
            let ok = codes.split(separator: "\n").filter { $0 == "200" }.count
            guard ok == count else { throw BenchFailure("curl got \(ok) of \(count) 200 replies") }
            return ns
        }

        for (name, callers) in [(seqName, 1), (parName, 32)] where options.wants(name) {
            let ops = options.quick ? 32 : (callers == 1 ? 100 : 320)
            let config = try curlConfig(count: ops, parallel: callers == 1 ? nil : callers)
            let result = try await paired(samples: options.samples, baseline: {
                try curlRun(config, expect: ops)
            }, subject: {
                try await Clock.perOp(ops) {
                    try await SessionBenchmarks.concurrently(callers, ops) {
                        try await hub.signIn(.password(identifier: email, password: password))
                    }
                }
            })
            var row = timeRow(name, result, unit: "ms/op",
                              baseline: callers == 1 ? "curl, one process, keep-alive" : "curl --parallel --parallel-max 32",
                              targetRatio: callers == 1 ? 1.3 : .infinity,
                              note: String(format: "throughput %.0f sign-ins/s (curl %.0f/s) with %d caller%@; the curl figure includes starting one curl process per %d requests",
                                           1e9 / result.subject.median, 1e9 / result.baseline.median, callers, callers == 1 ? "" : "s", ops))
            if callers != 1 {
                row.target = "≤ 1.3× curl at 32"
                row.verdict = result.ratios.median <= 1.3 ? "pass" : "MISS"
            }
            rows.append(row)
        }
        // Layers of the sequential sign-in, each measured against the layer below it in the same run:
        // the hub (provider, API client, session, store) over the bare transport, the transport
        // (deadline task group, request and reply conversion) over URLSession, URLSession over curl.
        if layerNames.contains(where: options.wants) {
            let ops = options.quick ? 32 : 100
            let plain = URLSessionTransport(defaultTimeout: .seconds(30))
            var urlRequest = URLRequest(url: signInRequest.url)
            urlRequest.httpMethod = signInRequest.head.method.rawValue
            for field in signInRequest.head.headerFields { urlRequest.addValue(field.value, forHTTPHeaderField: field.name.rawName) }
            urlRequest.httpBody = signInRequest.body
            let prepared = urlRequest
            let config = URLSessionConfiguration.ephemeral
            config.httpCookieStorage = nil
            config.urlCache = nil
            let session = URLSession(configuration: config)
            let hubBatch: () async throws -> Double = {
                try await Clock.perOp(ops) { for _ in 0..<ops { try await hub.signIn(.password(identifier: email, password: password)) } }
            }
            let transportBatch: () async throws -> Double = {
                try await Clock.perOp(ops) {
                    for _ in 0..<ops {
                        guard try await plain.send(signInRequest.head, body: signInRequest.body, timeout: nil).status == 200 else { throw BenchFailure("transport sign-in failed") }
                    }
                }
            }
            let sessionBatch: () async throws -> Double = {
                try await Clock.perOp(ops) {
                    for _ in 0..<ops {
                        let (_, response) = try await session.data(for: prepared)
                        guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw BenchFailure("URLSession sign-in failed") }
                    }
                }
            }
            let curlConfigPath = try curlConfig(count: ops, parallel: nil)
            let curlBatch: () async throws -> Double = { try curlRun(curlConfigPath, expect: ops) }
            let layers: [(String, String, () async throws -> Double, () async throws -> Double)] = [
                (layerNames[0], "URLSessionTransport.send of the same request", hubBatch, transportBatch),
                (layerNames[1], "URLSession.data(for:) of the same request", transportBatch, sessionBatch),
                (layerNames[2], "curl, one process, keep-alive", sessionBatch, curlBatch),
            ]
            for (name, label, subject, baseline) in layers where options.wants(name) {
                let result = try await paired(samples: options.samples, baseline: baseline, subject: subject)
                var row = timeRow(name, result, unit: "ms/op", baseline: label, targetRatio: .infinity,
                                  note: String(format: "the layer adds %.0f µs per sign-in", (result.subject.median - result.baseline.median) / 1_000))
                row.target = "report"
                row.verdict = "info"
                rows.append(row)
            }
        }

        // The same sign-ins with AsyncHTTPClientTransport in a hub of their own (same emulator, user,
        // request and curl batches), and its layers: the hub over the bare transport, the transport
        // over curl.
        if ahcNames.contains(where: options.wants) {
            let ahc = AsyncHTTPClientTransport(defaultTimeout: .seconds(30))
            let ahcHub = try AuthHub(environment: environment, registry: .builtIn, context: ProviderContext(transport: ahc),
                                     store: InMemorySessionStore())
            try await ahcHub.signIn(.password(identifier: email, password: password))
            for (name, callers) in [(ahcNames[0], 1), (ahcNames[1], 32)] where options.wants(name) {
                let ops = options.quick ? 32 : (callers == 1 ? 100 : 320)
                let config = try curlConfig(count: ops, parallel: callers == 1 ? nil : callers)
                let result = try await paired(samples: options.samples, baseline: { try curlRun(config, expect: ops) }, subject: {
                    try await Clock.perOp(ops) {
                        try await SessionBenchmarks.concurrently(callers, ops) {
                            try await ahcHub.signIn(.password(identifier: email, password: password))
                        }
                    }
                })
                var row = timeRow(name, result, unit: "ms/op",
                                  baseline: callers == 1 ? "curl, one process, keep-alive" : "curl --parallel --parallel-max 32",
                                  targetRatio: 1.15,
                                  note: String(format: "AsyncHTTPClientTransport: throughput %.0f sign-ins/s (curl %.0f/s) with %d caller%@",
                                               1e9 / result.subject.median, 1e9 / result.baseline.median, callers, callers == 1 ? "" : "s"))
                row.target = "≤ 1.15× curl"
                rows.append(row)
            }
            let ops = options.quick ? 32 : 100
            let hubBatch: () async throws -> Double = {
                try await Clock.perOp(ops) { for _ in 0..<ops { try await ahcHub.signIn(.password(identifier: email, password: password)) } }
            }
            let transportBatch: () async throws -> Double = {
                try await Clock.perOp(ops) {
                    for _ in 0..<ops {
                        guard try await ahc.send(signInRequest.head, body: signInRequest.body, timeout: nil).status == 200 else {
                            throw BenchFailure("AsyncHTTPClientTransport sign-in failed")
                        }
                    }
                }
            }
            let curlConfigPath = try curlConfig(count: ops, parallel: nil)
            let layers: [(String, String, () async throws -> Double, () async throws -> Double)] = [
                (ahcNames[2], "AsyncHTTPClientTransport.send of the same request", hubBatch, transportBatch),
                (ahcNames[3], "curl, one process, keep-alive", transportBatch, { try curlRun(curlConfigPath, expect: ops) }),
            ]
            for (name, label, subject, baseline) in layers where options.wants(name) {
                let result = try await paired(samples: options.samples, baseline: baseline, subject: subject)
                var row = timeRow(name, result, unit: "ms/op", baseline: label, targetRatio: .infinity,
                                  note: String(format: "the layer adds %.0f µs per sign-in", (result.subject.median - result.baseline.median) / 1_000))
                row.target = "report"
                row.verdict = "info"
                rows.append(row)
            }
        }

        // Scaling: the 32-caller throughput against the sequential one, both measured above.
        if let seq = rows.first(where: { $0.name == seqName }), let index = rows.firstIndex(where: { $0.name == parName }),
           let one = seq.perSecond, let many = rows[index].perSecond {
            rows[index].note += String(format: "; %.2f× the sequential throughput (curl: %.2f×)", many / one,
                                       (rows[index].baselineMedian.map { 1 / $0 } ?? .nan) / (seq.baselineMedian.map { 1 / $0 } ?? .nan))
        }
        return rows
    }
}
