/// libFuzzer's entry point (`int LLVMFuzzerRunDriver(int *, char ***, int (*)(const uint8_t *, size_t))`),
/// linked in by `-sanitize=fuzzer`.
@_silgen_name("LLVMFuzzerRunDriver")
func llvmFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

/// Hands control to libFuzzer. Each target's `<Module>_main` calls this with its callback,
/// which SwiftPM needs because an executable built with the fuzzer runtime has no `main` of
/// its own.
public enum FuzzDriver {
    /// Runs libFuzzer with the process arguments and the target's callback.
    public static func run(
        _ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
    ) -> Int32 {
        var count = argc
        var arguments = argv
        return llvmFuzzerRunDriver(&count, &arguments, callback)
    }
}
