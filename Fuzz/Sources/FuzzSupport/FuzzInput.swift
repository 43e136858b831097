import Foundation

/// The bytes libFuzzer hands a target, as a Swift array.
public enum FuzzInput {
    /// Copies `count` bytes from `data`; an empty input gives an empty array.
    public static func bytes(_ data: UnsafePointer<UInt8>?, _ count: Int) -> [UInt8] {
        guard let data, count > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: count))
    }

    /// Runs an async body to completion from libFuzzer's synchronous callback.
    public static func wait(_ body: @escaping @Sendable () async -> Void) {
        let done = DispatchSemaphore(value: 0)
        Task {
            await body()
            done.signal()
        }
        done.wait()
    }
}
