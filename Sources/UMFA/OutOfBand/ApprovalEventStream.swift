import Foundation
import Synchronization
import UMFAContract

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension UMFAClient {
    /// The approvals for `userId` as they arrive (docs/contract.md §7): the server-sent event stream
    /// `GET /api/umfa/approvals/events`, opened with a device proof, one `PendingApproval` per
    /// `approval` event (those pending when it opens come first). The stream ends after
    /// `maxSeconds` (1–300, the server's limit); open it again to keep listening.
    /// - Throws: from the sequence, ``ZSMError`` (`notEnrolled` without a device key for the
    ///   user, `verificationFailed` when the server refuses the proof, `networkError`).
    public func approvalEvents(userId: String, maxSeconds: Int = 300) -> AsyncThrowingStream<PendingApproval, any Error>
    {
        AsyncThrowingStream { continuation in
            do throws(ZSMError) {
                try config.validate()
                let keys = DeviceSigningKeys(config: config)
                guard let (key, credentialId) = try keys.load(applicationId: config.applicationId, userId: userId)
                else {
                    throw ZSMError(
                        .notEnrolled, "this device has no device key for \(userId); enroll it out of band first")
                }
                let endpoint = try UMFAHTTPRelyingParty(config: config).url(of: .approvalEvents)
                let seconds = min(max(maxSeconds, 1), 300)
                var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false)
                components?.queryItems = [
                    URLQueryItem(name: "application_id", value: config.applicationId),
                    URLQueryItem(name: "user_id", value: userId),
                    URLQueryItem(name: "max_seconds", value: String(seconds)),
                ]
                guard let url = components?.url else {
                    throw ZSMError(.invalidConfiguration, "host_url cannot be combined with the event stream's path")
                }
                var request = URLRequest(url: url, timeoutInterval: TimeInterval(seconds) + config.timeout)
                request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
                for (name, value) in config.headers { request.setValue(value, forHTTPHeaderField: name) }
                request.setValue(
                    "UMFA-Device "
                        + (try DeviceSigningKeys.proof(
                            key: key, credentialId: credentialId, method: "GET", url: endpoint)),
                    forHTTPHeaderField: "Authorization")
                let reader = ServerSentEventReader(
                    continuation: continuation, host: config.hostURL.host ?? "the server")
                let session = URLSession(configuration: .ephemeral, delegate: reader, delegateQueue: nil)
                let task = session.dataTask(with: request)
                continuation.onTermination = { _ in
                    task.cancel()
                    session.finishTasksAndInvalidate()
                }
                task.resume()
            } catch {
                continuation.finish(throwing: error)
            }
        }
    }
}

/// Reads `text/event-stream` (WHATWG HTML §9.2) as it arrives: events end at a blank line;
/// `approval` events' `data` is a ``PendingApproval``; comments and other events are skipped.
final class ServerSentEventReader: NSObject, URLSessionDataDelegate, Sendable {
    private let continuation: AsyncThrowingStream<PendingApproval, any Error>.Continuation
    private let host: String
    private let state = Mutex<(status: Int, buffer: Data)>((0, Data()))

    init(continuation: AsyncThrowingStream<PendingApproval, any Error>.Continuation, host: String) {
        self.continuation = continuation
        self.host = host
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        state.withLock { $0.status = (response as? HTTPURLResponse)?.statusCode ?? 0 }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let events: [PendingApproval] = state.withLock { state in
            state.buffer.append(data)
            guard state.status == 200 else { return [] }
            var found: [PendingApproval] = []
            let separator = Data("\n\n".utf8)
            while let range = state.buffer.range(of: separator) {
                let block = String(decoding: state.buffer[..<range.lowerBound], as: UTF8.self)
                state.buffer.removeSubrange(..<range.upperBound)
                if let approval = Self.approval(in: block) { found.append(approval) }
            }
            return found
        }
        for event in events { continuation.yield(event) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (status, body) = state.withLock { ($0.status, $0.buffer) }
        if status == 200 || (error as? URLError)?.code == .cancelled {
            continuation.finish()
        } else if status != 0 {
            continuation.finish(
                throwing: UMFAHTTPRelyingParty.serverError(status: status, data: body, traceID: "unknown"))
        } else {
            continuation.finish(throwing: ZSMError(.networkError, "cannot reach \(host)"))
        }
    }

    /// The approval of one event block, when it is an `approval` event.
    static func approval(in block: String) -> PendingApproval? {
        var type = "message"
        var data: [String] = []
        for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("event:") {
                type = line.dropFirst(6).trimmingCharacters(in: .whitespaces)
            } else if line.hasPrefix("data:") {
                var value = line.dropFirst(5)
                if value.first == " " { value = value.dropFirst() }
                data.append(String(value))
            }
        }
        guard type == "approval", !data.isEmpty else { return nil }
        return try? JSONDecoder().decode(PendingApproval.self, from: Data(data.joined(separator: "\n").utf8))
    }
}
