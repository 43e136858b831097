/// Random bytes from the operating system's cryptographically secure generator
/// (`SystemRandomNumberGenerator`): challenges, credential ids, salts, secrets.
public enum SecureRandom {
    /// `count` random bytes.
    public static func bytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}
