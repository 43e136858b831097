import ArgumentParser
import UMFAContract

/// `umfa openapi`: prints the HTTP API's OpenAPI document, generated from the contract
/// (`UMFAContract`), byte for byte what `GET /openapi.yaml` serves. Hidden: scripts/gen-docs.sh
/// writes it to `Sources/UMFAContract/OpenAPI/openapi.yaml` and checks that file against it.
struct OpenAPICommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "openapi", abstract: "Print the HTTP API's OpenAPI document (openapi.yaml).",
        shouldDisplay: false)

    func run() {
        print(ContractDocument.yaml, terminator: "")
    }
}
