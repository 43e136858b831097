/// Random bytes from the operating system's cryptographically secure generator
/// (`SystemRandomNumberGenerator`): challenges, credential ids, salts, secrets.
public enum SecureRandom {
    /// `count` random bytes, eight from each draw of the generator (one system call per draw
    /// on Linux, so not one per byte).
    public static func bytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        var output: [UInt8] = []
        output.reserveCapacity(count + 7)
        while output.count < count {
            withUnsafeBytes(of: generator.next()) { output.append(contentsOf: $0) }
        }
        output.removeLast(output.count - max(count, 0))
        return output
    }
}
