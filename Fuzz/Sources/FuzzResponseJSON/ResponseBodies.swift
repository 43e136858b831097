import Foundation
import UMFAEncoding
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// Finds the WebAuthn responses in a fuzzed body: the body itself, or its `credential` or
/// `token` member, as the public routes carry them.
enum ResponseBodies {
    static func registrations(in body: Data) -> [RegistrationResponseJSON] {
        candidates(in: body).compactMap { try? JSONDecoder().decode(RegistrationResponseJSON.self, from: $0) }
    }

    static func authentications(in body: Data) -> [AuthenticationResponseJSON] {
        candidates(in: body).compactMap { try? JSONDecoder().decode(AuthenticationResponseJSON.self, from: $0) }
    }

    private static func candidates(in body: Data) -> [Data] {
        var found = [body]
        if let object = try? JSONDecoder().decode([String: JSONValue].self, from: body) {
            for key in ["credential", "token"] {
                switch object[key] {
                case .object?: found += [(try? JSONEncoder().encode(object[key])) ?? Data()]
                case .string(let text)?: found.append(Data(text.utf8))
                default: break
                }
            }
        }
        return found
    }
}
