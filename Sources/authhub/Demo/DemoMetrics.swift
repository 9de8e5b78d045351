import AuthHub
import CoreMetrics
import Foundation

/// `authhub demo --metrics`: a swift-metrics backend kept in memory for the run, printed afterwards in
/// Prometheus' text style (counters as totals, timers as count and mean, gauges as the last value).
/// What it shows is what an app's own backend (swift-prometheus, swift-otel) would receive.
final class DemoMetrics: MetricsFactory {
    private struct Key: Hashable, Comparable {
        let label: String
        let dimensions: [String]
        static func < (a: Key, b: Key) -> Bool { (a.label, a.dimensions.joined(separator: ",")) < (b.label, b.dimensions.joined(separator: ",")) }
    }

    /// One metric's running value: a total, a count and sum of durations, or a last value.
    final class Handler: CounterHandler, FloatingPointCounterHandler, RecorderHandler, MeterHandler, TimerHandler {
        enum Kind { case counter, timer, gauge }
        let kind: Kind
        private let state = Mutex<(total: Double, count: Int, last: Double)>((0, 0, 0))
        init(_ kind: Kind) { self.kind = kind }

        func increment(by amount: Int64) { state.withLock { $0.total += Double(amount) } }
        func increment(by amount: Double) { state.withLock { $0.total += amount } }
        func record(_ value: Int64) { record(Double(value)) }
        func record(_ value: Double) { state.withLock { $0.last = value; $0.count += 1 } }
        func set(_ value: Int64) { record(Double(value)) }
        func set(_ value: Double) { record(value) }
        func decrement(by amount: Double) { state.withLock { $0.last -= amount } }
        func recordNanoseconds(_ duration: Int64) { state.withLock { $0.total += Double(duration); $0.count += 1 } }
        func reset() { state.withLock { $0 = (0, 0, 0) } }
        var snapshot: (total: Double, count: Int, last: Double) { state.withLock { $0 } }
    }

    private let handlers = Mutex<[Key: Handler]>([:])

    private func handler(_ label: String, _ dimensions: [(String, String)], _ kind: Handler.Kind) -> Handler {
        let key = Key(label: label, dimensions: dimensions.map { "\($0.0)=\"\($0.1)\"" })
        return handlers.withLock { handlers in
            if let existing = handlers[key] { return existing }
            let made = Handler(kind)
            handlers[key] = made
            return made
        }
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> CounterHandler { handler(label, dimensions, .counter) }
    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> FloatingPointCounterHandler {
        handler(label, dimensions, .counter)
    }
    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> RecorderHandler { handler(label, dimensions, .gauge) }
    func makeMeter(label: String, dimensions: [(String, String)]) -> MeterHandler { handler(label, dimensions, .gauge) }
    func makeTimer(label: String, dimensions: [(String, String)]) -> TimerHandler { handler(label, dimensions, .timer) }
    func destroyCounter(_ handler: CounterHandler) {}
    func destroyFloatingPointCounter(_ handler: FloatingPointCounterHandler) {}
    func destroyRecorder(_ handler: RecorderHandler) {}
    func destroyMeter(_ handler: MeterHandler) {}
    func destroyTimer(_ handler: TimerHandler) {}

    /// Every metric recorded, one per line, sorted by name and labels.
    func render() -> String {
        let entries = handlers.withLock { $0.sorted { $0.key < $1.key } }
        guard !entries.isEmpty else { return "(no metrics were recorded)" }
        return entries.map { key, handler in
            let name = key.label + (key.dimensions.isEmpty ? "" : "{" + key.dimensions.joined(separator: ",") + "}")
            let value = handler.snapshot
            switch handler.kind {
            case .counter: return "\(name) \(Int(value.total))"
            case .timer:
                let mean = value.count == 0 ? 0 : value.total / Double(value.count) / 1_000_000
                return "\(name) count=\(value.count) mean=\(String(format: "%.2f", mean))ms"
            case .gauge: return "\(name) \(String(format: "%.0f", value.last))"
            }
        }.joined(separator: "\n")
    }
}
