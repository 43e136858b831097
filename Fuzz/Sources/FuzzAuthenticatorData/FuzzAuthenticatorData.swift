import FuzzSupport
import UMFAWebAuthn

/// libFuzzer entry: authenticator data parsing, attested credential data and extensions included.
@_cdecl("FuzzAuthenticatorData_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    FuzzDriver.run(argc, argv) { data, count in
        let bytes = FuzzInput.bytes(data, count)
        if let parsed = try? AuthenticatorData(bytes: bytes) {
            precondition(parsed.rawBytes == bytes, "authenticator data must keep the exact bytes received")
        }
        return 0
    }
}
