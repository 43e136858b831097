import Logging
import Synchronization

/// Every line a logger writes, with its metadata, at every level: for tests that check what
/// reaches the log (and that a secret never does).
public final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])

    /// An empty capture.
    public init() {}

    /// Everything logged so far, one line per event.
    public var text: String { lines.withLock { $0.joined(separator: "\n") } }

    /// A logger at trace level writing here.
    public func logger(label: String = "umfa.test") -> Logger {
        var logger = Logger(label: label) { _ in Handler(capture: self) }
        logger.logLevel = .trace
        return logger
    }

    func append(_ line: String) { lines.withLock { $0.append(line) } }

    struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            capture.append("\(event.level) \(event.message) \(event.metadata ?? [:]) \(metadata)")
        }
    }
}
