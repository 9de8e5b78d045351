import Foundation

/// The result table of `authhub demo`: one row per provider flow, rendered as an aligned text
/// table or as JSON (`--json`).
///
/// ```
/// provider | flow            | result | time
/// ---------+-----------------+--------+-----
/// auth0    | emulator routes | ok     | 3 ms
/// ```
/// Rows are added as flows run (``record(provider:flow:_:)`` times and catches a flow); a failed
/// row's detail is printed under the table. Details must be safe to show: no tokens, codes or
/// passwords (``AuthError`` messages are).
struct DemoReport: Sendable {
    /// How a flow ended.
    enum Outcome: String, Codable, Sendable {
        case ok
        case failed
    }

    /// One flow's result.
    struct Row: Codable, Sendable, Equatable {
        /// The provider (module) name, e.g. `auth0`.
        var provider: String
        /// What was exercised, e.g. `emulator routes`, `password sign-in`.
        var flow: String
        /// How it ended.
        var result: Outcome
        /// Wall-clock time the flow took, in whole milliseconds.
        var timeMs: Int
        /// Why it failed; nil when it passed.
        var detail: String?
    }

    private(set) var rows: [Row] = []

    /// True when no row failed.
    var succeeded: Bool { !rows.contains { $0.result == .failed } }

    /// Appends a row.
    mutating func add(_ row: Row) { rows.append(row) }

    /// Runs one flow, timing it; a thrown error makes the row `failed` with the error as detail.
    mutating func record(provider: String, flow: String, _ body: () async throws -> Void) async {
        let clock = ContinuousClock()
        let start = clock.now
        var outcome = Outcome.ok
        var detail: String?
        do {
            try await body()
        } catch {
            outcome = .failed
            detail = Self.reason(for: error)
        }
        rows.append(Row(provider: provider, flow: flow, result: outcome, timeMs: Self.milliseconds(clock.now - start), detail: detail))
    }

    /// The aligned text table, a detail line per failed row, and a summary line.
    func renderTable() -> String {
        let header = ["provider", "flow", "result", "time"]
        let cells = rows.map { [$0.provider, $0.flow, $0.result.rawValue, "\($0.timeMs) ms"] }
        let widths = header.indices.map { column in
            ([header[column]] + cells.map { $0[column] }).map(\.count).max() ?? 0
        }
        func line(_ values: [String]) -> String {
            values.enumerated().map { index, value in
                index == values.count - 1 ? value : value.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: " | ")
        }
        var lines = [line(header), widths.map { String(repeating: "-", count: $0) }.joined(separator: "-+-")]
        lines += cells.map(line)
        for row in rows {
            if let detail = row.detail { lines.append("\(row.provider) \(row.flow): \(row.result.rawValue): \(detail)") }
        }
        let failed = rows.filter { $0.result == .failed }.count
        lines.append("\(rows.count - failed) ok, \(failed) failed")
        return lines.joined(separator: "\n")
    }

    /// `{"ok": Bool, "rows": [...]}` as pretty, sorted JSON.
    func renderJSON() -> String {
        struct Document: Encodable {
            var ok: Bool
            var rows: [Row]
        }
        return CLI.json(Document(ok: succeeded, rows: rows))
    }

    /// The first line of an error's description.
    static func reason(for error: any Error) -> String {
        let text = String(describing: error)
        return text.split(separator: "\n", omittingEmptySubsequences: true).first.map(String.init) ?? text
    }

    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}
