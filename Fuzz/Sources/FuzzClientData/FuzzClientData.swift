import FuzzSupport
import UMFAWebAuthn

/// libFuzzer entry: client data JSON parsing (§7.1 steps 5–6, §7.2 steps 8–9).
@_cdecl("FuzzClientData_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    FuzzDriver.run(argc, argv) { data, count in
        _ = try? CollectedClientData(bytes: FuzzInput.bytes(data, count))
        return 0
    }
}
