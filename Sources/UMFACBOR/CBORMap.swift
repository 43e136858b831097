/// One key/value pair of a ``CBORMap``.
public struct CBORMapEntry: Sendable, Hashable {
    /// The entry's key.
    public var key: CBORValue
    /// The entry's value.
    public var value: CBORValue

    /// Creates an entry.
    public init(key: CBORValue, value: CBORValue) {
        self.key = key
        self.value = value
    }
}

/// A CBOR map that keeps its entries in received order.
///
/// Two maps are equal when they hold the same key/value pairs, whatever their order: a CBOR map
/// is unordered (RFC 8949 §3.1), so a map decoded from a non-canonical encoding equals the same
/// map decoded from its canonical re-encoding.
public struct CBORMap: Sendable, Hashable {
    /// The entries in the order they were decoded or added.
    public internal(set) var entries: [CBORMapEntry]

    /// Creates a map from entries; later duplicates replace earlier ones.
    public init(_ entries: [CBORMapEntry] = []) {
        self.entries = []
        for entry in entries { self[entry.key] = entry.value }
    }

    /// Creates a map from key/value pairs; later duplicates replace earlier ones.
    public init(_ pairs: KeyValuePairs<CBORValue, CBORValue>) {
        self.init(pairs.map { CBORMapEntry(key: $0.key, value: $0.value) })
    }

    /// The number of entries.
    public var count: Int { entries.count }

    /// Looks a key up, or sets or removes its value.
    public subscript(key: CBORValue) -> CBORValue? {
        get { entries.first { $0.key == key }?.value }
        set {
            let index = entries.firstIndex { $0.key == key }
            switch (index, newValue) {
            case (let index?, let value?): entries[index].value = value
            case (let index?, nil): entries.remove(at: index)
            case (nil, let value?): entries.append(CBORMapEntry(key: key, value: value))
            case (nil, nil): break
            }
        }
    }

    /// Whether both maps hold the same key/value pairs, in any order.
    public static func == (lhs: CBORMap, rhs: CBORMap) -> Bool {
        guard lhs.count == rhs.count else { return false }
        if lhs.entries == rhs.entries { return true }
        var index: [CBORValue: CBORValue] = [:]
        index.reserveCapacity(rhs.count)
        for entry in rhs.entries { index[entry.key] = entry.value }
        return lhs.entries.allSatisfy { index[$0.key] == $0.value }
    }

    /// Hashes the key/value pairs independently of their order.
    public func hash(into hasher: inout Hasher) {
        var combined = 0
        for entry in entries {
            var entryHasher = Hasher()
            entryHasher.combine(entry)
            combined = combined &+ entryHasher.finalize()
        }
        hasher.combine(count)
        hasher.combine(combined)
    }
}

extension CBORMap {
    /// Creates a map from entries already known to have unique keys.
    init(uniqueEntries: [CBORMapEntry]) {
        self.init()
        self.entries = uniqueEntries
    }
}
