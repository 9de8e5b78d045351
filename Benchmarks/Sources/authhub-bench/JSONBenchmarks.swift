import AuthHub
import Foundation

/// Is the hand-written JSON reader and writer (`JSONValue.parse`, `JSONValue.serialized()`) still
/// worth its code once provider replies are typed `Codable` models? They remain where the data is
/// open by nature — ID-token claims (every `idtoken.*` validation parses a header and a claims
/// object), stored session files, provider extras. These rows compare them with Foundation doing the
/// same work in the same run: the reader against `JSONDecoder` into `JSONValue` (what
/// `JSONValue.parse` did before) and the writer against `JSONEncoder` with sorted keys (the same
/// bytes). The target, ≤ 0.5×, is the bar for keeping hand-written code: at least twice as fast.
enum JSONBenchmarks {
    /// The claims object of a typical ID token (an Auth0-like one with profile claims).
    static let claims = Data("""
        {"iss":"https://tenant.example.com/","sub":"auth0|5f7c8ec7c33c6c004bbafe82","aud":"bench-client-0123456789",\
        "exp":1764000000,"iat":1763996400,"auth_time":1763996390,"nonce":"n-0S6_WzA2Mj","email":"ada@example.com",\
        "email_verified":true,"name":"Ada Lovelace","nickname":"ada","picture":"https://example.com/ada.png",\
        "updated_at":"2026-11-24T10:00:00.000Z","sid":"Fq5mB1o2yN0vXf6Q","org_id":"org_9ybsU1dN2dKfDkBi",\
        "https://example.com/roles":["admin","billing"],"amr":["pwd","mfa"]}
        """.utf8)

    static func run(_ options: BenchOptions) async throws -> [Row] {
        var rows: [Row] = []
        let ops = options.batch(5_000)
        if options.wants("json.parse.claims") {
            let decoder = JSONDecoder()
            _ = try JSONValue.parse(claims)
            let result = try await paired(samples: options.samples, baseline: {
                try await Clock.perOp(ops) { for _ in 0..<ops { _ = try decoder.decode(JSONValue.self, from: claims) } }
            }, subject: {
                try await Clock.perOp(ops) { for _ in 0..<ops { _ = try JSONValue.parse(claims) } }
            })
            let allocOps = options.batch(1_000)
            let allocs = try await Allocations.perOp(allocOps) { for _ in 0..<allocOps { _ = try JSONValue.parse(claims) } }
            let baseAllocs = try await Allocations.perOp(allocOps) {
                for _ in 0..<allocOps { _ = try decoder.decode(JSONValue.self, from: claims) }
            }
            rows.append(timeRow("json.parse.claims", result, baseline: "JSONDecoder().decode(JSONValue.self), same bytes",
                                targetRatio: 0.5, allocs: allocs, baselineAllocs: baseAllocs))
        }
        if options.wants("json.write.session") {
            let value = try JSONValue.parse(claims)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let ours = try value.serialized()
            let theirs = try encoder.encode(value)
            let note = ours == theirs ? "" : "bytes differ from JSONEncoder's"
            let result = try await paired(samples: options.samples, baseline: {
                try await Clock.perOp(ops) { for _ in 0..<ops { _ = try encoder.encode(value) } }
            }, subject: {
                try await Clock.perOp(ops) { for _ in 0..<ops { _ = try value.serialized() } }
            })
            let allocOps = options.batch(1_000)
            let allocs = try await Allocations.perOp(allocOps) { for _ in 0..<allocOps { _ = try value.serialized() } }
            let baseAllocs = try await Allocations.perOp(allocOps) { for _ in 0..<allocOps { _ = try encoder.encode(value) } }
            rows.append(timeRow("json.write.session", result, baseline: "JSONEncoder (sorted keys), same value and bytes",
                                targetRatio: 0.5, allocs: allocs, baselineAllocs: baseAllocs, extraCheck: note.isEmpty, note: note))
        }
        return rows
    }
}
