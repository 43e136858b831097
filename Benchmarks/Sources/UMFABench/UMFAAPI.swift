import AsyncHTTPClient
import Foundation
import NIOCore
import UMFAContract
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// The device-facing part of the UMFA HTTP API, as the load generator calls it, through the
/// same contract types as the server and the SDK.
struct UMFAAPI: Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let client: HTTPClient
    let server: String
    let applicationID: String

    func registrationOptions(userID: String) async throws -> CreationOptionsJSON {
        let body = RegistrationOptionsRequest(applicationID: applicationID, userID: userID, displayName: userID)
        return try await post(.registrationOptions, body, as: RegistrationOptionsResponse.self).publicKey
    }

    func registrationVerify(userID: String, credential: RegistrationResponseJSON) async throws -> String {
        let body = RegistrationVerifyRequest(applicationID: applicationID, userID: userID, credential: credential)
        return try await post(.registrationVerify, body, as: CeremonyResponse.self).token
    }

    func authenticationOptions(userID: String) async throws -> RequestOptionsJSON {
        let body = AuthenticationOptionsRequest(applicationID: applicationID, userID: userID)
        return try await post(.authenticationOptions, body, as: AuthenticationOptionsResponse.self).publicKey
    }

    func authenticationVerify(userID: String, credential: AuthenticationResponseJSON) async throws -> String {
        let body = AuthenticationVerifyRequest(applicationID: applicationID, userID: userID, credential: credential)
        return try await post(.authenticationVerify, body, as: CeremonyResponse.self).token
    }

    private func post<Body: ContractBody, Answer: ContractBody>(
        _ operation: APIOperation, _ body: Body, as: Answer.Type
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: server + operation.path)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(body)))
        let response = try await client.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .ok else {
            throw Failure(description: "\(operation.path) answered \(response.status.code): \(String(buffer: bytes))")
        }
        return try JSONDecoder().decode(Answer.self, from: Data(bytes.readableBytesView))
    }
}
