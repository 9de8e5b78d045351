import AuthHub
import Foundation
import Logging

/// A swift-log handler that keeps every rendered line (message and metadata), for tests that check
/// what reaches the logs — above all, that no secret does.
public struct CapturingLogHandler: LogHandler {
    /// The lines of every logger made from one capture.
    public final class Capture: Sendable {
        private let storage = Mutex<[String]>([])
        public init() {}
        /// Every line so far.
        public var lines: [String] { storage.withLock { $0 } }
        func append(_ line: String) { storage.withLock { $0.append(line) } }

        /// A logger at `level` writing into this capture.
        public func logger(label: String = "test", level: Logger.Level = .trace) -> Logger {
            var logger = Logger(label: label) { label in CapturingLogHandler(label: label, capture: self) }
            logger.logLevel = level
            return logger
        }
    }

    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .trace
    private let label: String
    private let capture: Capture

    public init(label: String, capture: Capture) {
        self.label = label
        self.capture = capture
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        let rendered = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        capture.append("\(event.level) \(label): \(event.message) \(rendered)")
    }
}
