import Foundation

/// The completion-handler API, named and shaped as the UMFA documentation gives it.
///
/// `data` holds the result's keys (see each result type's `dictionary`); `metadata` holds
/// `trace_id` (when a request was made), `application_id`, `sdk_version`. Exactly one of
/// `data` and the error is non-nil. Completions run on an arbitrary thread.
extension UMFAClient {
    /// The completion of ``checkEnrollment(userId:completion:)``, ``enroll(userId:completion:)`` and ``authenticate(userId:completion:)``.
    public typealias Completion = @Sendable ([String: Any]?, [String: String]?, ZSMError?) -> Void

    /// Whether this device holds a passkey for `userId`.
    public func checkEnrollment(userId: String, completion: @escaping Completion) {
        Task {
            do throws(ZSMError) {
                let status = try await checkEnrollment(userId: userId)
                completion(status.dictionary, metadata(traceId: nil), nil)
            } catch {
                completion(nil, metadata(traceId: error.traceId), error)
            }
        }
    }

    /// Creates and registers a passkey for `userId`.
    public func enroll(userId: String, completion: @escaping Completion) {
        Task {
            do throws(ZSMError) {
                let result = try await enroll(userId: userId)
                completion(result.dictionary, metadata(traceId: result.traceId), nil)
            } catch {
                completion(nil, metadata(traceId: error.traceId), error)
            }
        }
    }

    /// Signs `userId` in and returns a login token.
    public func authenticate(userId: String, completion: @escaping Completion) {
        Task {
            do throws(ZSMError) {
                let result = try await authenticate(userId: userId)
                completion(result.dictionary, metadata(traceId: result.traceId), nil)
            } catch {
                completion(nil, metadata(traceId: error.traceId), error)
            }
        }
    }

    /// Removes `userId`'s passkey from the server and the device; `false` keeps the device's key.
    public func unenroll(userId: String, completion: @escaping @Sendable (Bool) -> Void) {
        Task { completion(await unenroll(userId: userId)) }
    }

    func metadata(traceId: String?) -> [String: String] {
        var metadata = ["application_id": config.applicationId, "sdk_version": Self.versionString]
        if let traceId { metadata["trace_id"] = traceId }
        return metadata
    }
}
