import Foundation
import Testing

@testable import authhub

@Suite struct DemoReportTests {
    @Test func rendersAnAlignedTableWithDetailsAndSummary() {
        var report = DemoReport()
        report.add(.init(provider: "auth0", flow: "emulator routes", result: .ok, timeMs: 3))
        report.add(.init(provider: "firebase", flow: "password sign-in", result: .failed, timeMs: 12, detail: "HTTP 500"))
        let expected = """
            provider | flow             | result | time
            ---------+------------------+--------+------
            auth0    | emulator routes  | ok     | 3 ms
            firebase | password sign-in | failed | 12 ms
            firebase password sign-in: failed: HTTP 500
            1 ok, 1 failed
            """
        #expect(report.renderTable() == expected)
        #expect(!report.succeeded)
    }

    @Test func recordTimesAFlowAndTurnsErrorsIntoFailedRows() async {
        struct Boom: Error, CustomStringConvertible { var description: String { "boom\nsecond line" } }
        var report = DemoReport()
        await report.record(provider: "auth0", flow: "ok flow") {}
        await report.record(provider: "turnkey", flow: "bad flow") { throw Boom() }
        #expect(report.rows.map(\.result) == [.ok, .failed])
        #expect(report.rows[1].detail == "boom")
        #expect(report.rows[0].detail == nil)
        #expect(!report.succeeded)
    }

    @Test func jsonOutputCarriesEveryRowAndTheOverallResult() throws {
        var report = DemoReport()
        report.add(.init(provider: "openfort", flow: "emulator routes", result: .ok, timeMs: 2))
        let decoded = try JSONSerialization.jsonObject(with: Data(report.renderJSON().utf8)) as? [String: Any]
        #expect(decoded?["ok"] as? Bool == true)
        let rows = decoded?["rows"] as? [[String: Any]]
        #expect(rows?.count == 1)
        #expect(rows?.first?["provider"] as? String == "openfort")
        #expect(rows?.first?["result"] as? String == "ok")
        #expect(rows?.first?["timeMs"] as? Int == 2)
    }
}
