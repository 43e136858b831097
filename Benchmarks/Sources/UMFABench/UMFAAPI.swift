import AsyncHTTPClient
import Foundation
import NIOCore
import UMFAWebAuthn

/// The device-facing part of the UMFA HTTP API, as the load generator calls it.
struct UMFAAPI: Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private struct OptionsAnswer<Options: Decodable>: Decodable {
        let publicKey: Options
    }

    private struct CeremonyAnswer: Decodable {
        let token: String
    }

    let client: HTTPClient
    let server: String
    let applicationID: String

    func registrationOptions(userID: String) async throws -> CreationOptionsJSON {
        let body: [String: String] = ["application_id": applicationID, "user_id": userID, "display_name": userID]
        return try await post("/api/umfa/registration/options", body, as: OptionsAnswer<CreationOptionsJSON>.self)
            .publicKey
    }

    func registrationVerify(userID: String, credential: RegistrationResponseJSON) async throws -> String {
        try await post(
            "/api/umfa/registration/verify",
            CeremonyRequest(applicationID: applicationID, userID: userID, credential: credential),
            as: CeremonyAnswer.self
        ).token
    }

    func authenticationOptions(userID: String) async throws -> RequestOptionsJSON {
        let body = ["application_id": applicationID, "user_id": userID]
        return try await post("/api/umfa/authentication/options", body, as: OptionsAnswer<RequestOptionsJSON>.self)
            .publicKey
    }

    func authenticationVerify(userID: String, credential: AuthenticationResponseJSON) async throws -> String {
        try await post(
            "/api/umfa/authentication/verify",
            CeremonyRequest(applicationID: applicationID, userID: userID, credential: credential),
            as: CeremonyAnswer.self
        ).token
    }

    private struct CeremonyRequest<Credential: Encodable>: Encodable {
        let applicationID: String
        let userID: String
        let credential: Credential

        enum CodingKeys: String, CodingKey {
            case applicationID = "application_id"
            case userID = "user_id"
            case credential
        }
    }

    private func post<Body: Encodable, Answer: Decodable>(_ path: String, _ body: Body, as: Answer.Type)
        async throws -> Answer
    {
        var request = HTTPClientRequest(url: server + path)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(body)))
        let response = try await client.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        guard response.status == .ok else {
            throw Failure(description: "\(path) answered \(response.status.code): \(String(buffer: bytes))")
        }
        return try JSONDecoder().decode(Answer.self, from: Data(bytes.readableBytesView))
    }
}
