import Foundation

/// RFC 4514 distinguished-name strings compared by meaning: each RDN's attributes with their
/// types in one spelling (`cn`, `CN`, `2.5.4.3` alike) and their values unescaped, trimmed,
/// with inner runs of spaces as one and without regard to case (the caseIgnoreMatch of most
/// naming attributes, RFC 4517 §4.2.11 with RFC 4518's insignificant space handling).
enum DistinguishedNameText {
    /// Dotted and long spellings of the attribute types, as the short name RFC 4514 §3 (and
    /// swift-certificates, OpenSSL) print.
    private static let aliases: [String: String] = [
        "2.5.4.3": "CN", "COMMONNAME": "CN", "2.5.4.6": "C", "COUNTRYNAME": "C", "2.5.4.7": "L",
        "LOCALITYNAME": "L", "2.5.4.8": "ST", "STATEORPROVINCENAME": "ST", "S": "ST", "2.5.4.10": "O",
        "ORGANIZATIONNAME": "O", "2.5.4.11": "OU", "ORGANIZATIONALUNITNAME": "OU", "2.5.4.9": "STREET",
        "0.9.2342.19200300.100.1.25": "DC", "DOMAINCOMPONENT": "DC", "0.9.2342.19200300.100.1.1": "UID",
        "USERID": "UID", "1.2.840.113549.1.9.1": "E", "EMAILADDRESS": "E", "EMAIL": "E", "2.5.4.5": "SERIALNUMBER",
    ]

    /// The normalized RDN sequence of `text`, each RDN a sorted list of `TYPE=value`; `nil` when
    /// it is not a distinguished name (an attribute without `=`, a dangling escape).
    static func normalized(_ text: String) -> [[String]]? {
        guard let rdns = split(Array(text.unicodeScalars), on: ","), !rdns.isEmpty else { return nil }
        var result: [[String]] = []
        for rdn in rdns {
            guard let attributes = split(rdn, on: "+") else { return nil }
            var normalizedRDN: [String] = []
            for attribute in attributes {
                guard let equals = attribute.firstIndex(of: "=") else { return nil }
                let type = String(String.UnicodeScalarView(attribute[..<equals]))
                    .trimmingCharacters(in: .whitespaces).uppercased()
                guard !type.isEmpty, let value = unescaped(Array(attribute[(equals + 1)...])) else { return nil }
                normalizedRDN.append("\(aliases[type] ?? type)=\(value)")
            }
            result.append(normalizedRDN.sorted())
        }
        return result
    }

    /// `scalars` split at each unescaped `separator`; `nil` on a trailing lone backslash.
    private static func split(_ scalars: [Unicode.Scalar], on separator: Unicode.Scalar) -> [[Unicode.Scalar]]? {
        var parts: [[Unicode.Scalar]] = [[]]
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "\\" {
                guard index + 1 < scalars.count else { return nil }
                parts[parts.count - 1] += [scalar, scalars[index + 1]]
                index += 2
                continue
            }
            if scalar == separator { parts.append([]) } else { parts[parts.count - 1].append(scalar) }
            index += 1
        }
        return parts
    }

    /// An attribute value with its escapes (`\,`, `\2C`) resolved, outer spaces dropped, inner
    /// runs of spaces as one, in lower case; `nil` for a broken escape.
    private static func unescaped(_ scalars: [Unicode.Scalar]) -> String? {
        var bytes: [UInt8] = []
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "\\" {
                guard index + 1 < scalars.count else { return nil }
                let next = scalars[index + 1]
                if index + 2 < scalars.count, let high = hex(next), let low = hex(scalars[index + 2]) {
                    bytes.append(high << 4 | low)
                    index += 3
                } else {
                    bytes += Array(String(next).utf8)
                    index += 2
                }
                continue
            }
            bytes += Array(String(scalar).utf8)
            index += 1
        }
        guard let text = String(bytes: bytes, encoding: .utf8) else { return nil }
        let words = text.split(separator: " ", omittingEmptySubsequences: true)
        return words.joined(separator: " ").lowercased()
    }

    private static func hex(_ scalar: Unicode.Scalar) -> UInt8? {
        switch scalar.value {
        case 0x30...0x39: UInt8(scalar.value - 0x30)
        case 0x41...0x46: UInt8(scalar.value - 0x41 + 10)
        case 0x61...0x66: UInt8(scalar.value - 0x61 + 10)
        default: nil
        }
    }
}
