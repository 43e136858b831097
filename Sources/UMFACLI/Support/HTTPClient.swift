import ArgumentParser
import Foundation
import UMFAContract

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Minimal JSON-over-HTTP client for the commands that talk to a UMFA server.
struct HTTPClient {
    let server: URL

    init(server: String) throws {
        guard let url = URL(string: server), let scheme = url.scheme, scheme == "http" || scheme == "https",
            url.host != nil
        else {
            throw ValidationError("--server must be an http(s) URL such as http://localhost:8080")
        }
        self.server = url
    }

    struct Reply {
        let status: Int
        let body: Data
    }

    /// Sends a request and returns the status and body, whatever the status.
    /// Calls `operation` with its path parameters filled in and `body` as JSON. An unreachable
    /// server is an error (exit 1), never a clean exit.
    func send(
        _ operation: APIOperation, _ parameters: [String: String] = [:], query: [URLQueryItem] = [],
        bearer: String? = nil, body: (some ContractBody)? = EmptyBody?.none
    ) async throws -> Reply {
        let path = operation.path(parameters)
        guard var components = URLComponents(url: server, resolvingAgainstBaseURL: false) else {
            throw ValidationError("bad server URL")
        }
        components.path = path
        if !query.isEmpty {
            components.queryItems = query
            // `+` means a space to many servers; a literal one must be encoded.
            components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        }
        guard let url = components.url else { throw ValidationError("bad path \(path)") }
        var request = URLRequest(url: url)
        request.httpMethod = operation.method
        request.timeoutInterval = 30
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            request.httpBody = try encoder.encode(body)
        }
        do {
            let (data, response) = try await URLSession.shared.data(for: request)
            return Reply(status: (response as? HTTPURLResponse)?.statusCode ?? 0, body: data)
        } catch {
            CommandIO.printError("cannot reach \(server.absoluteString): \(error.localizedDescription)")
            throw ExitCode(1)
        }
    }

    /// Prints the body and exits non-zero unless the status is one of `success`.
    static func finish(_ reply: Reply, success: Set<Int> = [200, 201]) throws {
        if !reply.body.isEmpty { FileHandle.standardOutput.write(reply.body + Data("\n".utf8)) }
        guard success.contains(reply.status) else {
            let message = (try? JSONDecoder().decode(ErrorResponse.self, from: reply.body))?.message
            CommandIO.printError("HTTP \(reply.status): \(message ?? "request failed")")
            throw ExitCode(1)
        }
    }
}

/// The body of a request without one.
struct EmptyBody: ContractBody {
    static let example = EmptyBody()
}
