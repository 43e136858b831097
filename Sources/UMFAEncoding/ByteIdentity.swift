/// Identifiers compared as bytes (docs/contract.md §4). Swift's `String ==` and `String` hashing follow
/// Unicode canonical equivalence, so `"jos\u{e9}"` and `"jose\u{301}"` are one string to Swift and
/// two to SQLite and PostgreSQL. User ids, origins and secrets are compared through these
/// instead, so the server and its database always agree on who is who.
extension StringProtocol {
    /// Whether both strings are the same UTF-8 bytes.
    public func isSameBytes(as other: some StringProtocol) -> Bool {
        utf8.elementsEqual(other.utf8)
    }

    /// The length in UTF-8 bytes, the unit of every identifier length limit.
    public var byteCount: Int { utf8.count }
}

extension Optional where Wrapped: StringProtocol {
    /// Whether both are absent, or both present and the same UTF-8 bytes.
    public func isSameBytes(as other: Wrapped?) -> Bool {
        switch (self, other) {
        case (nil, nil): true
        case (let left?, let right?): left.isSameBytes(as: right)
        default: false
        }
    }
}
