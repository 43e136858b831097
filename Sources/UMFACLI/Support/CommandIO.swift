import ArgumentParser
import Foundation
import UMFAEncoding
import UMFAWebAuthn

/// Reading inputs and writing results for the commands: JSON on standard output, human
/// messages on standard error.
enum CommandIO {
    static func readFile(_ path: String) throws -> Data {
        // Standard input is a stream, not a file FileManager can read in one go.
        if path == "-" || path == "/dev/stdin" { return FileHandle.standardInput.readDataToEndOfFile() }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ValidationError("cannot read \(path)")
        }
        return data
    }

    static func decode<T: Decodable>(_ type: T.Type, from path: String, what: String) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: try readFile(path))
        } catch let error as ValidationError {
            throw error
        } catch {
            throw ValidationError("\(path) is not a valid \(what): \(describe(error))")
        }
    }

    /// Decodes a response file for a verify command; a malformed one is a refusal like any
    /// other: failure JSON on standard output, the reason on standard error, exit 1.
    static func decodeResponse<T: Decodable>(_ type: T.Type, from path: String, what: String) throws -> T {
        let data = try readFile(path)
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            let failure = WebAuthnError(.malformedResponse, "\(path) is not a valid \(what): \(describe(error))")
            try printJSON(FailureOutput(failure))
            printError(failure.description)
            throw ExitCode(1)
        }
    }

    /// Prints a JSON value on one line with sorted keys.
    static func printJSON(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        print(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    static func printError(_ message: String) {
        FileHandle.standardError.write(Data(("error: " + message + "\n").utf8))
    }

    static func base64URL(_ text: String, option: String) throws -> [UInt8] {
        guard let bytes = Base64URL.decode(text) else {
            throw ValidationError("\(option) is not base64url")
        }
        return bytes
    }

    /// A short description of a decoding error that names the field.
    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty:
            return "not valid JSON"
        case DecodingError.keyNotFound(let key, let context):
            return "missing \(path(context.codingPath + [key]))"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
            DecodingError.dataCorrupted(let context):
            return "\(path(context.codingPath)): \(context.debugDescription)"
        default:
            return "\(error)"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map(\.stringValue).joined(separator: ".")
    }
}

/// The flags of authenticator data as the JSON output shows them.
struct FlagsOutput: Encodable {
    let up: Bool
    let uv: Bool
    let be: Bool
    let bs: Bool
    let at: Bool
    let ed: Bool

    init(_ flags: AuthenticatorFlags) {
        up = flags.isUserPresent
        uv = flags.isUserVerified
        be = flags.isBackupEligible
        bs = flags.isBackedUp
        at = flags.contains(.attestedCredentialData)
        ed = flags.contains(.extensionData)
    }
}

/// What a refused verification prints on standard output.
struct FailureOutput: Encodable {
    let valid = false
    let error: String
    let step: String?
    let message: String

    init(_ error: WebAuthnError) {
        self.error = error.code.rawValue
        self.step = error.step
        self.message = error.message
    }
}
