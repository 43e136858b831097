import FuzzSupport
import UMFAWebAuthn

/// libFuzzer entry: attestation object parsing (§7.1 step 13).
@_cdecl("FuzzAttestationObject_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    FuzzDriver.run(argc, argv) { data, count in
        let bytes = FuzzInput.bytes(data, count)
        if let object = try? AttestationObject(bytes: bytes) {
            _ = object.encoded
        }
        return 0
    }
}
