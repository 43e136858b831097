extension SeededGenerator {
    /// Mutates `bytes` one to three times: each time a byte drawn from `alphabet` replaces,
    /// is inserted before, or the byte at a drawn position is removed. Differential tests use
    /// it to reach the edges of a parser's grammar from well-formed samples.
    public mutating func mutate(_ bytes: inout [UInt8], alphabet: [UInt8]) {
        for _ in 0..<Int.random(in: 1...3, using: &self) {
            let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &self)
            let byte = alphabet.randomElement(using: &self) ?? 0
            switch Int.random(in: 0..<3, using: &self) {
            case 0 where !bytes.isEmpty: bytes[position] = byte
            case 1: bytes.insert(byte, at: position)
            default: if !bytes.isEmpty { bytes.remove(at: position) }
            }
        }
    }
}
