import FuzzSupport
import UMFACBOR

/// libFuzzer entry: the CBOR decoder, whole items and prefixes, and the canonical re-encoding of what it accepts.
@_cdecl("FuzzCBOR_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    FuzzDriver.run(argc, argv) { data, count in
        let bytes = FuzzInput.bytes(data, count)
        if let value = try? CBORDecoder().decode(bytes) {
            // What decodes must encode and decode again to the same value.
            let encoded = CBOREncoder.encode(value)
            precondition((try? CBORDecoder().decode(encoded)) == value, "canonical re-encoding changed the value")
        }
        _ = try? CBORDecoder(limits: .init(maxDepth: 4, maxItems: 64)).decodePrefix(bytes)
        return 0
    }
}
