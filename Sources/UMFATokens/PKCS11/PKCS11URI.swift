import Foundation

/// A PKCS #11 URI (RFC 7512) naming one key on one token: `pkcs11:token=umfa;object=es256`.
///
/// Taken: the path attributes `token`, `manufacturer`, `model`, `serial`, `slot-id` (which
/// token), `object`, `id` (which key) and `type` (`private`, the default; the public key is
/// found by the same label and id), each once and not empty. Refused: a PIN in the URI (`pin-value`, `pin-source`): it would be stored with the
/// key; UMFA reads the PIN from `UMFA_PKCS11_PIN_FILE`. Any other attribute is refused rather
/// than ignored, so a URI never matches a key it did not mean.
package struct PKCS11URI: Sendable, Hashable, CustomStringConvertible {
    /// The token's label.
    package var token: String?
    /// The token's serial number.
    package var serial: String?
    /// The token's manufacturer.
    package var manufacturer: String?
    /// The token's model.
    package var model: String?
    /// The slot's id.
    package var slotID: UInt?
    /// The key's label (`CKA_LABEL`).
    package var object: String?
    /// The key's id (`CKA_ID`).
    package var id: [UInt8]?
    /// The URI as given.
    package let description: String

    /// Why a URI cannot be used; the message names the attribute.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package let description: String
    }

    /// Parses `text`.
    package init(_ text: String) throws(Failure) {
        description = text
        guard text.lowercased().hasPrefix("pkcs11:") else {
            throw Failure(description: "a PKCS #11 URI starts with pkcs11:")
        }
        let rest = text.dropFirst("pkcs11:".count)
        let path = rest.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        if path.count > 1 {
            let names = path[1].split(separator: "&").map { $0.split(separator: "=").first.map(String.init) ?? "" }
            if names.contains(where: { $0.hasPrefix("pin-") }) {
                throw Failure(description: "a PKCS #11 URI must not carry the PIN: give it in UMFA_PKCS11_PIN_FILE")
            }
            throw Failure(
                description: "a PKCS #11 URI here takes no query attributes (\(names.joined(separator: ", ")))")
        }
        var seen: Set<Substring> = []
        for attribute in path[0].split(separator: ";", omittingEmptySubsequences: true) {
            let pair = attribute.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2, let value = Self.percentDecoded(pair[1]), !value.isEmpty else {
                throw Failure(description: "the PKCS #11 URI attribute \"\(pair[0])\" has no valid value")
            }
            // RFC 7512 §2.3: an attribute appears once.
            guard seen.insert(pair[0]).inserted else {
                throw Failure(description: "the PKCS #11 URI names \"\(pair[0])\" twice")
            }
            switch pair[0] {
            case "token": token = String(decoding: value, as: UTF8.self)
            case "manufacturer": manufacturer = String(decoding: value, as: UTF8.self)
            case "model": model = String(decoding: value, as: UTF8.self)
            case "serial": serial = String(decoding: value, as: UTF8.self)
            case "slot-id":
                guard let number = UInt(String(decoding: value, as: UTF8.self)) else {
                    throw Failure(description: "slot-id must be a number")
                }
                slotID = number
            case "object": object = String(decoding: value, as: UTF8.self)
            case "id": id = value
            case "type":
                guard value == Array("private".utf8) else {
                    throw Failure(description: "type must be private: UMFA signs with the private key")
                }
            default:
                throw Failure(description: "the PKCS #11 URI attribute \"\(pair[0])\" is not supported here")
            }
        }
        guard token != nil || serial != nil || slotID != nil else {
            throw Failure(description: "the PKCS #11 URI must name the token (token=, serial= or slot-id=)")
        }
        guard object != nil || id != nil else {
            throw Failure(description: "the PKCS #11 URI must name the key (object= or id=)")
        }
    }

    /// RFC 3986 percent-decoding of an attribute value; `nil` when a `%` is not followed by two
    /// hex digits.
    private static func percentDecoded(_ text: Substring) -> [UInt8]? {
        var bytes: [UInt8] = []
        var utf8 = text.utf8.makeIterator()
        while let byte = utf8.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = utf8.next(), let low = utf8.next(), high.isHexDigit, low.isHexDigit,
                let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
            else { return nil }
            bytes.append(value)
        }
        return bytes
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self)
    }
}
