import SwiftASN1
import X509

/// §8.3.1: what a TPM attestation (AIK) certificate must say, and the TPM manufacturers
/// the Trusted Computing Group has registered.
enum TPMCertificateRequirements {
    /// tcg-kp-AIKCertificate.
    static let aikCertificateUsage: ASN1ObjectIdentifier = [2, 23, 133, 8, 3]
    /// tcg-at-tpmManufacturer, tcg-at-tpmModel, tcg-at-tpmVersion (TPMv2-EK-Profile §3.2.9).
    static let manufacturerAttribute: ASN1ObjectIdentifier = [2, 23, 133, 2, 1]
    static let modelAttribute: ASN1ObjectIdentifier = [2, 23, 133, 2, 2]
    static let versionAttribute: ASN1ObjectIdentifier = [2, 23, 133, 2, 3]

    /// TPM vendor ids from the TCG TPM Vendor ID Registry, as `id:` plus the hex of the four
    /// ASCII bytes, upper case.
    static let manufacturers: [String: String] = [
        "id:414D4400": "AMD", "id:41544D4C": "Atmel", "id:4252434D": "Broadcom", "id:4353434F": "Cisco",
        "id:464C5953": "Flyslice Technologies", "id:474F4F47": "Google", "id:48504500": "HPE",
        "id:48495349": "Huawei", "id:49424D00": "IBM", "id:49465800": "Infineon", "id:494E5443": "Intel",
        "id:4C454E00": "Lenovo", "id:4D534654": "Microsoft", "id:4E534D20": "National Semiconductor",
        "id:4E545A00": "Nationz", "id:4E544300": "Nuvoton Technology", "id:51434F4D": "Qualcomm",
        "id:524F4343": "Fuzhou Rockchip", "id:534D534E": "Samsung", "id:534D5343": "SMSC",
        "id:534E5300": "Sinosun", "id:53544D20": "ST Microelectronics", "id:54584E00": "Texas Instruments",
        "id:57454300": "Winbond", "id:FFFFF1D0": "FIDO Alliance conformance testing",
    ]

    /// Step 7 and 8 of §8.3: `certificate` meets §8.3.1 and its AAGUID, if any, is `aaguid`.
    /// Returns the AAGUID the id-fido-gen-ce-aaguid extension states, or `nil` when there is none.
    @discardableResult
    static func check(
        _ certificate: Certificate, aaguid: [UInt8], requireRegisteredManufacturer: Bool
    ) throws(WebAuthnError) -> [UInt8]? {
        func refuse(_ reason: String) -> WebAuthnError { TPMAttestation.refuse("AIK certificate: \(reason)") }
        guard certificate.version == .v3 else { throw refuse("version must be 3") }
        guard certificate.subject.isEmpty else { throw refuse("subject must be empty") }
        let names: SubjectAlternativeNames?
        let usages: ExtendedKeyUsage?
        let constraints: BasicConstraints?
        do {
            names = try certificate.extensions.subjectAlternativeNames
            usages = try certificate.extensions.extendedKeyUsage
            constraints = try certificate.extensions.basicConstraints
        } catch {
            throw refuse("an extension is malformed")
        }
        let attributes = (names ?? SubjectAlternativeNames()).flatMap { name -> [RelativeDistinguishedName.Attribute] in
            if case .directoryName(let directory) = name { return directory.flatMap { Array($0) } }
            return []
        }
        func value(_ type: ASN1ObjectIdentifier) -> String? {
            attributes.first { $0.type == type }.map { String(describing: $0.value) }
        }
        guard let manufacturer = value(manufacturerAttribute), value(modelAttribute) != nil,
            value(versionAttribute) != nil
        else {
            throw refuse("subject alternative name must hold the TPM manufacturer, model and version")
        }
        let vendor = manufacturers[manufacturer.uppercased().replacingOccurrences(of: "ID:", with: "id:")]
        guard vendor != nil || !requireRegisteredManufacturer else {
            throw refuse("TPM manufacturer \(manufacturer) is not a registered TPM vendor")
        }
        guard let usages, usages.contains(ExtendedKeyUsage.Usage(oid: aikCertificateUsage)) else {
            throw refuse("extended key usage must contain tcg-kp-AIKCertificate (2.23.133.8.3)")
        }
        if case .isCertificateAuthority = constraints { throw refuse("Basic Constraints must say CA false") }
        if let (certificateAAGUID, _) = try AttestationStatementFields.certificateAAGUID(certificate) {
            guard certificateAAGUID == aaguid else {
                throw refuse("the AAGUID extension does not match the authenticator data")
            }
            return certificateAAGUID
        }
        return nil
    }
}
