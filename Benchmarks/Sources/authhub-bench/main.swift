import AuthHub
import Foundation

// authhub-bench: AuthHub's hot paths against baselines measured in the same run (see BENCHMARKS.md).
Allocations.reexecWithInterposerIfNeeded()
let options = BenchOptions.parse(Array(CommandLine.arguments.dropFirst()))
Allocations.check()

var rows: [Row] = []
@MainActor func section(_ name: String, _ body: () async throws -> [Row]) async {
    if !options.json { FileHandle.standardError.write(Data("authhub-bench: \(name)…\n".utf8)) }
    do {
        rows += try await body()
    } catch {
        rows.append(Row.skipped(name, target: "", reason: "failed: \(error)"))
    }
}

await section("cached session()") { try await SessionBenchmarks.run(options) }
await section("ID-token verification") { try await TokenBenchmarks.run(options) }
await section("ID-token verification against peers and the raw signature check") { try await PeerBenchmarks.run(options) }
await section("JSON reader and writer") { try await JSONBenchmarks.run(options) }
await section("providers.json load") { try await ConfigBenchmarks.run(options) }
await section("file store") { try await FileStoreBenchmarks.run(options) }
await section("emulator round trips") { try await EmulatorBenchmarks.run(options) }
await section("bearer middleware") { try await BearerBenchmarks.run(options) }
await section("DPoP proof check") { try await DPoPBenchmarks.run(options) }
await section("web frameworks (wrk)") { try await WebBenchmarks.run(options) }
await section("DPoP-protected route (wrk)") { try await DPoPWebBenchmarks.run(options) }
await section("PostgreSQL store") { try await PostgresBenchmarks.run(options) }

if options.json {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    struct Output: Encodable { var allocationCountsAvailable: Bool; var quick: Bool; var rows: [Row] }
    let data = try encoder.encode(Output(allocationCountsAvailable: Allocations.available, quick: options.quick, rows: rows))
    print(String(decoding: data, as: UTF8.self))
} else {
    printTable(rows, allocationsAvailable: Allocations.available)
}
