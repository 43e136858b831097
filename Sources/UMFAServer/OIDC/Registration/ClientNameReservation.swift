import Foundation
import UMFAStorage

/// The names a client that registers itself may not take (docs/oidc-provider.md, "Dynamic
/// client registration"): the application's own and those of its admin-made clients, compared
/// as a person reads them (``key(_:)``), so that a client of anyone's cannot pose as the
/// application's own app on the consent page.
struct ClientNameReservation: Sendable {
    /// The keys of the reserved names.
    let reserved: Set<String>

    /// Reserves `names`.
    init(reserving names: [String]) {
        reserved = Set(names.map(Self.key).filter { !$0.isEmpty })
    }

    /// The application's name and those of its admin-made clients.
    init(application: ApplicationRecord, clients: [OAuthClientRecord]) {
        self.init(reserving: [application.name] + clients.filter { !$0.isSelfRegistered }.map(\.name))
    }

    /// Refuses `name` when it reads as a reserved one: RFC 7591 §3.2.2 `invalid_client_metadata`.
    func check(_ name: String) throws {
        guard !reserved.contains(Self.key(name)) else {
            throw OAuthError(
                code: .invalidClientMetadata,
                "client_name is taken by this application or one of its own clients; choose a name of your own")
        }
    }

    /// `name` as a person reads it: compatibility forms unfolded and accents dropped (Unicode
    /// NFKD less its combining marks: "Ｂａｎｋ", "Bánk" are "Bank"), common look-alikes from
    /// other scripts made the Latin letter they pass for (Cyrillic "а", Greek "Α"), lower case,
    /// letters and digits only (no spaces, punctuation or invisible characters), and `0` read as
    /// `o`, `1` and `i` as `l`. Two names with one key are one name to a person.
    static func key(_ name: String) -> String {
        var key = String.UnicodeScalarView()
        // Step 1: NFKD (UAX #15), without the combining marks it splits off.
        let decomposed = name.decomposedStringWithCompatibilityMapping.unicodeScalars
        for scalar in decomposed where scalar.properties.generalCategory != .nonspacingMark {
            // Step 2: a look-alike becomes its Latin letter, in its case.
            let latin = confusables[scalar].map { String($0) } ?? String(scalar)
            // Step 3: lower case; letters and digits only; digits and letters read as one another.
            for lower in latin.lowercased().unicodeScalars
            where lower.properties.isAlphabetic || lower.properties.numericType != nil {
                key.append(readAlike[lower] ?? lower)
            }
        }
        return String(key)
    }

    /// Letters and digits a reader takes for one another, after lower case.
    static let readAlike: [Unicode.Scalar: Unicode.Scalar] = ["0": "o", "1": "l", "i": "l"]

    /// Cyrillic and Greek letters that pass for Latin ones (a small, common part of Unicode's
    /// confusables, UTS #39).
    static let confusables: [Unicode.Scalar: Character] = [
        // Cyrillic capitals.
        "\u{0410}": "A", "\u{0412}": "B", "\u{0415}": "E", "\u{0405}": "S", "\u{0406}": "I", "\u{0408}": "J",
        "\u{041A}": "K", "\u{041C}": "M", "\u{041D}": "H", "\u{041E}": "O", "\u{0420}": "P", "\u{0421}": "C",
        "\u{0422}": "T", "\u{0425}": "X", "\u{0423}": "Y", "\u{04AE}": "Y", "\u{051A}": "Q", "\u{051C}": "W",
        // Cyrillic small letters.
        "\u{0430}": "a", "\u{0432}": "b", "\u{0435}": "e", "\u{0455}": "s", "\u{0456}": "i", "\u{0458}": "j",
        "\u{043A}": "k", "\u{043C}": "m", "\u{043D}": "h", "\u{043E}": "o", "\u{0440}": "p", "\u{0441}": "c",
        "\u{0442}": "t", "\u{0445}": "x", "\u{0443}": "y", "\u{04BB}": "h", "\u{0501}": "d", "\u{051B}": "q",
        "\u{051D}": "w",
        // Greek capitals.
        "\u{0391}": "A", "\u{0392}": "B", "\u{0395}": "E", "\u{0396}": "Z", "\u{0397}": "H", "\u{0399}": "I",
        "\u{039A}": "K", "\u{039C}": "M", "\u{039D}": "N", "\u{039F}": "O", "\u{03A1}": "P", "\u{03A4}": "T",
        "\u{03A5}": "Y", "\u{03A7}": "X",
        // Greek small letters.
        "\u{03B1}": "a", "\u{03BF}": "o", "\u{03C1}": "p", "\u{03BD}": "v", "\u{03B9}": "i", "\u{03BA}": "k",
        "\u{03C5}": "u", "\u{03C7}": "x", "\u{03B5}": "e",
    ]
}
