/// Hand-built DER for the structures tests must be able to break (key descriptions, nonce
/// extensions, Android key descriptions), where a well-formed serializer would refuse to write
/// the broken form.
public enum DERBuilder {
    /// A TLV with a one-byte identifier.
    public static func tlv(_ identifier: UInt8, _ content: [UInt8]) -> [UInt8] {
        [identifier] + length(content.count) + content
    }

    /// A context-specific constructed (EXPLICIT) tag, any tag number.
    public static func explicit(_ tag: UInt, _ content: [UInt8]) -> [UInt8] {
        guard tag >= 31 else { return tlv(0xa0 | UInt8(tag), content) }
        var number: [UInt8] = [UInt8(tag & 0x7f)]
        var rest = tag >> 7
        while rest > 0 {
            number.insert(UInt8(rest & 0x7f) | 0x80, at: 0)
            rest >>= 7
        }
        return [0xbf] + number + length(content.count) + content
    }

    /// A SEQUENCE of `items`.
    public static func sequence(_ items: [[UInt8]]) -> [UInt8] { tlv(0x30, items.flatMap { $0 }) }
    /// A SET of `items`.
    public static func set(_ items: [[UInt8]]) -> [UInt8] { tlv(0x31, items.flatMap { $0 }) }
    /// An OCTET STRING.
    public static func octets(_ bytes: [UInt8]) -> [UInt8] { tlv(0x04, bytes) }
    /// A one-byte INTEGER.
    public static func integer(_ value: Int) -> [UInt8] { tlv(0x02, [UInt8(value)]) }
    /// A one-byte ENUMERATED.
    public static func enumerated(_ value: Int) -> [UInt8] { tlv(0x0a, [UInt8(value)]) }
    /// NULL.
    public static let null: [UInt8] = [0x05, 0x00]

    /// A definite length, up to 65,535.
    public static func length(_ count: Int) -> [UInt8] {
        if count < 128 { return [UInt8(count)] }
        if count < 256 { return [0x81, UInt8(count)] }
        return [0x82, UInt8(count >> 8), UInt8(count & 0xff)]
    }
}
