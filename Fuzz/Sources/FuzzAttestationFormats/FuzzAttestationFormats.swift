import Foundation
import FuzzSupport
import UMFAWebAuthn

/// libFuzzer entry: the input is a client data hash (32 bytes) and an attestation object whose
/// statement is checked by every verifier in ``AttestationFormatRegistry/standard`` in turn
/// (its own `fmt` ignored), so a format added to the registry is fuzzed without touching this
/// target. Seeds are real statements with their hashes, so mutations reach the signature checks.
@_cdecl("FuzzAttestationFormats_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    FuzzDriver.run(argc, argv) { data, count in
        let bytes = FuzzInput.bytes(data, count)
        guard bytes.count > 32, let object = try? AttestationObject(bytes: Array(bytes.dropFirst(32))) else { return 0 }
        let clientDataHash = Array(bytes.prefix(32))
        for format in AttestationFormatRegistry.standard.verifiers.keys.sorted() {
            _ = try? AttestationFormatRegistry.standard.verifier(for: format)?.verify(
                statement: object.statement, authenticatorData: object.authenticatorData,
                clientDataHash: clientDataHash, at: FuzzFixtures.verificationTime)
        }
        return 0
    }
}
