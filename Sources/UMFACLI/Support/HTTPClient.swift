import ArgumentParser
import Foundation

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
    func send(_ method: String, _ path: String, bearer: String? = nil, json: Any? = nil) async throws -> Reply {
        guard let url = URL(string: path, relativeTo: server) else { throw ValidationError("bad path \(path)") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.timeoutInterval = 30
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        if let json {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])
        }
        do {
            let (data, response) = try await URLSession.shared.data(for: request)
            return Reply(status: (response as? HTTPURLResponse)?.statusCode ?? 0, body: data)
        } catch {
            throw CleanExit.message("error: cannot reach \(server.absoluteString): \(error.localizedDescription)")
        }
    }

    /// Prints the body and exits non-zero unless the status is one of `success`.
    static func finish(_ reply: Reply, success: Set<Int> = [200, 201]) throws {
        FileHandle.standardOutput.write(reply.body + Data("\n".utf8))
        guard success.contains(reply.status) else {
            let message = (try? JSONSerialization.jsonObject(with: reply.body) as? [String: Any])?["message"] as? String
            CommandIO.printError("HTTP \(reply.status): \(message ?? "request failed")")
            throw ExitCode(1)
        }
    }
}
