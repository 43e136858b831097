import Logging
import UMFAEncoding

/// A log handler that keeps its own metadata as given and hands it to `Underlying` only with
/// a message that is written, so setting metadata costs no formatting.
///
/// swift-log's `StreamLogHandler` formats its whole metadata into text each time an entry is
/// set. Libraries set one on every request (Hummingbird's request id) and every statement
/// (PostgresNIO's connection id), for messages that at the `info` level are never written:
/// about 1.5 % of the server's CPU on a PostgreSQL login (measured with scripts/bench.sh).
/// Wrapped here, the stream formats metadata only in the messages it writes, which read as
/// before: the handler's metadata, then the message's own, which wins a shared key.
package struct MetadataDeferringLogHandler<Underlying: LogHandler>: LogHandler {
    private var underlying: Underlying

    /// The handler's own metadata, merged into each message written.
    package var metadata: Logger.Metadata = [:]

    /// Wraps `underlying`, whose own metadata is never set from here.
    package init(_ underlying: Underlying) {
        self.underlying = underlying
    }

    /// The underlying handler's level.
    package var logLevel: Logger.Level {
        get { underlying.logLevel }
        set { underlying.logLevel = newValue }
    }

    /// The underlying handler's metadata provider.
    package var metadataProvider: Logger.MetadataProvider? {
        get { underlying.metadataProvider }
        set { underlying.metadataProvider = newValue }
    }

    /// One entry of the handler's own metadata.
    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes `event` through the underlying handler, with the handler's metadata merged in and
    /// every text escaped for one log line (``LogText``): a request's text in a message,
    /// metadata or error cannot start a line of its own (docs/contract.md §4, "Text meets HTML, protocols and logs").
    package func log(event: LogEvent) {
        var event = event
        event.message = Logger.Message(stringLiteral: LogText.escape(event.message.description))
        let merged =
            metadata.isEmpty ? event.metadata : metadata.merging(event.metadata ?? [:]) { _, message in message }
        event.metadata = merged.map(Self.escaped)
        event.error = event.error.map { EscapedError(description: LogText.escape("\($0)")) }
        underlying.log(event: event)
    }

    private static func escaped(_ metadata: Logger.Metadata) -> Logger.Metadata {
        metadata.mapValues(escaped)
    }

    private static func escaped(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
        switch value {
        case .string(let text): .string(LogText.escape(text))
        case .stringConvertible(let convertible):
            .stringConvertible(EscapedError(description: LogText.escape(convertible.description)))
        case .dictionary(let dictionary): .dictionary(escaped(dictionary))
        case .array(let array): .array(array.map(escaped))
        }
    }
}

/// An error or value as text escaped for one log line.
private struct EscapedError: Error, CustomStringConvertible, Sendable {
    let description: String
}

extension Logger {
    /// The server's logger: standard error, as swift-log writes it by default, with metadata
    /// formatted only into the messages written (``MetadataDeferringLogHandler``), and what
    /// `metadataProvider` adds to each (the current span's ids when the server traces).
    package static func server(label: String, metadataProvider: MetadataProvider? = nil) -> Logger {
        Logger(label: label) { label in
            MetadataDeferringLogHandler(
                StreamLogHandler.standardError(label: label, metadataProvider: metadataProvider))
        }
    }
}
