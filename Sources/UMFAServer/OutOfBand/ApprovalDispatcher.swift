import Foundation

/// A push service (APNs, FCM, a company's own relay) that tells a user's devices an approval is
/// waiting (docs/contract.md §7: "push services plug in as dispatchers"). UMFA ships none: sending to
/// APNs or FCM needs the operator's credentials and an HTTP/2 client. A Swift program that embeds
/// the server sets ``ServerConfiguration/approvalDispatchers``; devices without push fetch or
/// stream their pending approvals instead.
///
/// The notice carries no dispatch token: the device proves itself with its device key and
/// fetches the approval (`POST /api/umfa/approvals/pending`), so a push payload that leaks
/// grants nothing.
package protocol ApprovalDispatcher: Sendable {
    /// Called once per approval for a named user, after it is stored; a dispatcher that throws
    /// is logged and the approval stands (the device can still fetch it).
    func dispatch(_ notice: ApprovalNotice) async throws
}

/// What a dispatcher learns about a new approval.
package struct ApprovalNotice: Sendable, Equatable {
    /// The application.
    package let applicationID: UUID
    /// The user whose devices are told.
    package let userID: String
    /// The transaction.
    package let transactionID: String
    /// The message the user will be shown ("" when none).
    package let message: String
    /// When the approval expires.
    package let expiresAt: Date
    /// The push tokens the user's devices registered with their device keys.
    package let pushTokens: [String]
}

extension OutOfBandService {
    /// Tells every dispatcher about an approval for a named user with devices that have push tokens.
    func dispatch(_ transaction: OutOfBandTransactionNotice, caller: Caller) async {
        guard !approvalDispatchers.isEmpty, let userID = transaction.userID else { return }
        let tokens: [String]
        do {
            tokens = try await store.deviceKeys(applicationID: transaction.applicationID, userID: userID)
                .compactMap(\.pushToken)
        } catch {
            logger.error(
                "the devices of an approval could not be read",
                metadata: ["trace.id": .string(caller.traceID), "error.message": .string("\(error)")])
            return
        }
        guard !tokens.isEmpty else { return }
        let notice = ApprovalNotice(
            applicationID: transaction.applicationID, userID: userID, transactionID: transaction.transactionID,
            message: transaction.message, expiresAt: transaction.expiresAt, pushTokens: tokens)
        for dispatcher in approvalDispatchers {
            do {
                try await dispatcher.dispatch(notice)
            } catch {
                logger.error(
                    "an approval dispatcher failed",
                    metadata: [
                        "trace.id": .string(caller.traceID), "dispatcher": .string("\(type(of: dispatcher))"),
                        "error.message": .string("\(error)"),
                    ])
            }
        }
    }
}

/// The parts of a transaction a dispatcher needs.
struct OutOfBandTransactionNotice {
    let applicationID: UUID
    let userID: String?
    let transactionID: String
    let message: String
    let expiresAt: Date
}
