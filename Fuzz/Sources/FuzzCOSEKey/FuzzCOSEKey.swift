import FuzzSupport
import UMFAWebAuthn

/// libFuzzer entry: COSE key parsing for every supported key type and algorithm.
@_cdecl("FuzzCOSEKey_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    FuzzDriver.run(argc, argv) { data, count in
        let bytes = FuzzInput.bytes(data, count)
        if let key = try? COSEKey(bytes: bytes) {
            _ = try? COSEKey(bytes: key.encoded)
        }
        return 0
    }
}
