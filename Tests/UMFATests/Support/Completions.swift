import Foundation
import UMFA

/// A value of a completion's `data` dictionary, kept in a `Sendable` form.
enum Field: Sendable, Equatable {
    case string(String)
    case bool(Bool)
    case other(String)

    init(_ value: Any) {
        switch value {
        case let value as String: self = .string(value)
        case let value as Bool: self = .bool(value)
        default: self = .other("\(value)")
        }
    }

    var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }
}

/// What a completion handler received.
struct Completed: Sendable {
    let data: [String: Field]?
    let metadata: [String: String]?
    let error: ZSMError?

    init(_ data: [String: Any]?, _ metadata: [String: String]?, _ error: ZSMError?) {
        self.data = data?.mapValues(Field.init)
        self.metadata = metadata
        self.error = error
    }

    subscript(_ key: String) -> Field? { data?[key] }
}

/// The completion-handler API awaited, each call wrapped in a checked continuation.
extension UMFAClient {
    func checkEnrollmentCompleted(userId: String) async -> Completed {
        await withCheckedContinuation { done in
            checkEnrollment(userId: userId) { done.resume(returning: Completed($0, $1, $2)) }
        }
    }

    func enrollCompleted(userId: String) async -> Completed {
        await withCheckedContinuation { done in
            enroll(userId: userId) { done.resume(returning: Completed($0, $1, $2)) }
        }
    }

    func authenticateCompleted(userId: String) async -> Completed {
        await withCheckedContinuation { done in
            authenticate(userId: userId) { done.resume(returning: Completed($0, $1, $2)) }
        }
    }

    func unenrollCompleted(userId: String) async -> Bool {
        await withCheckedContinuation { done in
            unenroll(userId: userId) { done.resume(returning: $0) }
        }
    }
}
