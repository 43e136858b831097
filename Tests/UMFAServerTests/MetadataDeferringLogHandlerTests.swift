import Logging
import Synchronization
import Testing
import UMFAServer

/// The server's log handler: metadata set on a logger reaches the messages written, merged as
/// before, and never the underlying handler's own metadata (which `StreamLogHandler` formats
/// on every set).
@Suite("Server logging: metadata formatted only into messages written")
struct MetadataDeferringLogHandlerTests {
    /// Counts sets of its own metadata and records what each message carries.
    final class Recorder: Sendable {
        let metadataSets = Atomic<Int>(0)
        let messages = Mutex<[(String, Logger.Metadata)]>([])
    }

    struct Recording: LogHandler {
        let recorder: Recorder
        var logLevel: Logger.Level = .info
        var metadata: Logger.Metadata = [:] {
            didSet { recorder.metadataSets.add(1, ordering: .relaxed) }
        }

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            recorder.messages.withLock { $0.append(("\(event.message)", event.metadata ?? [:])) }
        }
    }

    @Test("metadata set per request reaches only the messages written; the message's own wins a shared key")
    func merged() {
        let recorder = Recorder()
        var logger = Logger(label: "umfa.test") { _ in MetadataDeferringLogHandler(Recording(recorder: recorder)) }
        logger.logLevel = .info
        for request in 0..<100 {
            logger[metadataKey: "hb.request.id"] = "\(request)"
            logger[metadataKey: "psql_connection_id"] = "7"
            logger.debug("not written")
        }
        #expect(logger[metadataKey: "hb.request.id"] == "99")
        logger.info("written", metadata: ["psql_connection_id": "8", "trace_id": "t"])
        logger.info("plain")

        #expect(recorder.metadataSets.load(ordering: .relaxed) == 0, "the underlying handler's metadata was set")
        let messages = recorder.messages.withLock { $0 }
        #expect(messages.map(\.0) == ["written", "plain"])
        #expect(messages.first?.1 == ["hb.request.id": "99", "psql_connection_id": "8", "trace_id": "t"])
        #expect(messages.last?.1 == ["hb.request.id": "99", "psql_connection_id": "7"])
    }

    @Test("the level is the underlying handler's, and a logger copy keeps metadata of its own")
    func levelAndCopies() {
        let recorder = Recorder()
        var logger = Logger(label: "umfa.test") { _ in MetadataDeferringLogHandler(Recording(recorder: recorder)) }
        logger.logLevel = .warning
        logger.info("below the level")
        var copy = logger
        copy[metadataKey: "request"] = "copy"
        logger.warning("original")
        copy.warning("copy")
        let messages = recorder.messages.withLock { $0 }
        #expect(messages.map(\.0) == ["original", "copy"])
        #expect(messages.first?.1 == [:])
        #expect(messages.last?.1 == ["request": "copy"])
    }
}
