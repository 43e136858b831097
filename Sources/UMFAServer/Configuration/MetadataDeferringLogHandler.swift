import Logging

/// A log handler that keeps its own metadata as given and hands it to `Underlying` only with
/// a message that is written, so setting metadata costs no formatting.
///
/// swift-log's `StreamLogHandler` formats its whole metadata into text each time an entry is
/// set. Libraries set one on every request (Hummingbird's request id) and every statement
/// (PostgresNIO's connection id), for messages that at the `info` level are never written:
/// about 1.5 % of the server's CPU on a PostgreSQL login (scripts/bench/ANALYSIS.md, item 39).
/// Wrapped here, the stream formats metadata only in the messages it writes, which read as
/// before: the handler's metadata, then the message's own, which wins a shared key.
public struct MetadataDeferringLogHandler<Underlying: LogHandler>: LogHandler {
    private var underlying: Underlying

    /// The handler's own metadata, merged into each message written.
    public var metadata: Logger.Metadata = [:]

    /// Wraps `underlying`, whose own metadata is never set from here.
    public init(_ underlying: Underlying) {
        self.underlying = underlying
    }

    /// The underlying handler's level.
    public var logLevel: Logger.Level {
        get { underlying.logLevel }
        set { underlying.logLevel = newValue }
    }

    /// The underlying handler's metadata provider.
    public var metadataProvider: Logger.MetadataProvider? {
        get { underlying.metadataProvider }
        set { underlying.metadataProvider = newValue }
    }

    /// One entry of the handler's own metadata.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes `event` through the underlying handler, with the handler's metadata merged in.
    public func log(event: LogEvent) {
        guard !metadata.isEmpty else { return underlying.log(event: event) }
        var event = event
        event.metadata = metadata.merging(event.metadata ?? [:]) { _, message in message }
        underlying.log(event: event)
    }
}

extension Logger {
    /// The server's logger: standard error, as swift-log writes it by default, with metadata
    /// formatted only into the messages written (``MetadataDeferringLogHandler``).
    public static func server(label: String) -> Logger {
        Logger(label: label) { label in MetadataDeferringLogHandler(StreamLogHandler.standardError(label: label)) }
    }
}
