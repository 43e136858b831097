import Foundation
import HTTPTypes
import Logging
import Testing
import UMFAContract

@testable import UMFAServer

/// Every error shape decides its status and its `error` value from a ``ServiceError``'s code and
/// reason, never from its message: two errors that differ only in their message answer alike,
/// even when one message is the very text a reason used to be recognised by.
@Suite("Errors by code")
struct ErrorsByCodeTests {
    static let codes: [ServiceError.Code] = [
        .invalidRequest, .unauthenticated, .forbidden, .notFound, .conflict, .timeout, .tooLarge,
        .rateLimited(retryAfterSeconds: 7), .unavailable,
    ]
    static let reasons: [ServiceError.Reason?] = [nil, .sessionExpired, .redirectURI]
    /// Messages that once decided an answer, and plain ones.
    static let messages = [
        InteractionService.expired, "redirect_uris entries must be absolute URIs without a fragment",
        "post_logout_redirect_uris entries must use https", "given_name must be at most 256 bytes of text",
        "Something else entirely", "",
    ]
    static let logger = Logger(label: "umfa-test")

    /// Each (code, reason) with every message.
    static var variants: [[ServiceError]] {
        codes.flatMap { code in
            reasons.map { reason in messages.map { ServiceError(code, $0, reason: reason) } }
        }
    }

    @Test("UMFA's JSON shape: the status and headers follow the code, whatever the message says")
    func umfaShape() {
        for errors in Self.variants {
            let answers = errors.map { ErrorMap.answer(for: $0, traceID: "t", logger: Self.logger) }
            let first = answers[0]
            #expect(first.0 == ErrorMap.status(of: errors[0].code))
            for (answer, error) in zip(answers, errors) {
                #expect(answer.0 == first.0, "\(error.code) \(error.message)")
                #expect(answer.2 == first.2, "\(error.code) \(error.message)")
                #expect(answer.1 == error.message, "the message is passed on as words, nothing more")
            }
        }
    }

    @Test("the OAuth shape: status and error follow the code, whatever the message says")
    func oauthShape() {
        for errors in Self.variants {
            let answers = errors.map { ErrorMap.oauthAnswer(for: $0, traceID: "t", logger: Self.logger) }
            for (answer, error) in zip(answers, errors) {
                #expect(answer.0 == answers[0].0, "\(error.code) \(error.message)")
                #expect(answer.1.error == answers[0].1.error, "\(error.code) \(error.message)")
                #expect(answer.1.errorDescription == error.message)
            }
        }
        let refused = ErrorMap.oauthAnswer(
            for: ServiceError.unauthenticated(InteractionService.expired), traceID: "t", logger: Self.logger)
        #expect(refused.0 == .unauthorized)
        #expect(refused.1.error == "invalid_client")
    }

    @Test("the API flow's problems: status and type follow code and reason, whatever the message says")
    func problemShape() {
        for errors in Self.variants {
            let answers = errors.map { ErrorMap.problemAnswer(for: $0, traceID: "t", logger: Self.logger) }
            for (answer, error) in zip(answers, errors) {
                #expect(answer.0 == answers[0].0, "\(error.code) \(String(describing: error.reason)) \(error.message)")
                #expect(answer.1.type == answers[0].1.type, "\(error.code) \(error.message)")
            }
        }
        func kind(_ error: ServiceError) -> FlowProblem.Kind {
            ErrorMap.problemAnswer(for: error, traceID: "t", logger: Self.logger).1.type
        }
        // The reason decides, never the words.
        #expect(kind(ServiceError.unauthenticated("Gone", reason: .sessionExpired)) == .sessionExpired)
        #expect(kind(ServiceError.unauthenticated(InteractionService.expired)) == .incorrectCredentials)
        #expect(kind(InteractionService.expiredError) == .sessionExpired)
    }

    @Test("dynamic registration: invalid_redirect_uri follows the reason, never the message")
    func registrationShape() {
        for reason in Self.reasons {
            let codes = Set(
                Self.messages.map {
                    ClientRegistrationRules.registrationError(ServiceError.invalid($0, reason: reason)).code
                })
            #expect(codes.count == 1, "\(String(describing: reason)): \(codes)")
            #expect(codes.first == (reason == .redirectURI ? .invalidRedirectURI : .invalidClientMetadata))
        }
    }

    @Test("the rules say which field and reason a refusal concerns")
    func fieldsAndReasons() throws {
        for (uri, field) in [("http://example.com/cb", "redirect_uris"), ("https://x/#f", "post_logout_redirect_uris")]
        {
            do {
                _ = try OAuthClientSettings.redirectURI(uri, field: field)
                Issue.record("\(uri) was accepted")
            } catch let error as ServiceError {
                #expect(error.code == .invalidRequest)
                #expect(error.reason == .redirectURI)
                #expect(error.field == field)
            }
        }
        let long = String(repeating: "a", count: 300)
        let profiles: [(InteractionCreateAccountRequest, String)] = [
            (InteractionCreateAccountRequest(interaction: "i", email: "not an address"), "email"),
            (InteractionCreateAccountRequest(interaction: "i", email: "a@example.com", givenName: long), "given_name"),
            (
                InteractionCreateAccountRequest(interaction: "i", email: "a@example.com", familyName: long),
                "family_name"
            ),
            (
                InteractionCreateAccountRequest(interaction: "i", email: "a@example.com", phoneNumber: long),
                "phone_number"
            ),
            (
                InteractionCreateAccountRequest(interaction: "i", email: "a@example.com", deviceName: long),
                "device_name"
            ),
        ]
        for (request, field) in profiles {
            do {
                _ = try InteractionService.account(request)
                Issue.record("the \(field) was accepted")
            } catch let error as ServiceError {
                #expect(error.field == field, "\(error.message)")
            }
        }
    }
}
