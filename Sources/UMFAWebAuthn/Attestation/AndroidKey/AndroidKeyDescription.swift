import SwiftASN1

/// The Android Keystore attestation extension (OID 1.3.6.1.4.1.11129.2.1.17): the
/// `KeyDescription` sequence, reduced to the fields WebAuthn L3 §8.4 checks.
///
/// See https://source.android.com/docs/security/features/keystore/attestation#schema.
struct AndroidKeyDescription: Sendable {
    /// The extension's OID.
    static let oid: ASN1ObjectIdentifier = [1, 3, 6, 1, 4, 1, 11129, 2, 1, 17]

    /// One `AuthorizationList`, reduced to the tags §8.4 reads.
    struct AuthorizationList: Sendable {
        /// `purpose` [1]: KM_PURPOSE values.
        var purposes: [Int] = []
        /// `allApplications` [600] is present.
        var allApplications = false
        /// `origin` [702]: a KM_ORIGIN value.
        var origin: Int?
        /// `attestationApplicationId` [709]: the DER of the apps the key belongs to.
        var attestationApplicationID: [UInt8]?

        static let purposeTag: UInt = 1
        static let allApplicationsTag: UInt = 600
        static let originTag: UInt = 702
        static let attestationApplicationIDTag: UInt = 709
    }

    /// KM_PURPOSE_SIGN.
    static let purposeSign = 2
    /// KM_ORIGIN_GENERATED.
    static let originGenerated = 0

    /// `attestationSecurityLevel`: 0 software, 1 TEE, 2 StrongBox.
    let attestationSecurityLevel: Int
    /// `attestationChallenge`.
    let attestationChallenge: [UInt8]
    /// `softwareEnforced`.
    let softwareEnforced: AuthorizationList
    /// `hardwareEnforced` (called `teeEnforced` before KeyMint).
    let hardwareEnforced: AuthorizationList

    /// Parses the extension's value.
    init(extensionValue: ArraySlice<UInt8>) throws(WebAuthnError) {
        do {
            let root = try BER.parse(extensionValue)
            guard root.identifier == .sequence, case .constructed(let children) = root.content else {
                throw AndroidKeyAttestation.refuse("the key description is not a SEQUENCE")
            }
            let fields = Array(children)
            guard fields.count >= 8 else { throw AndroidKeyAttestation.refuse("the key description is too short") }
            attestationSecurityLevel = try Int(derEncoded: fields[1], withIdentifier: .enumerated)
            attestationChallenge = Array(try ASN1OctetString(derEncoded: fields[4]).bytes)
            softwareEnforced = try Self.authorizationList(fields[6])
            hardwareEnforced = try Self.authorizationList(fields[7])
        } catch let error as WebAuthnError {
            throw error
        } catch {
            throw AndroidKeyAttestation.refuse("the key description extension is malformed")
        }
    }

    private static func authorizationList(_ node: ASN1Node) throws -> AuthorizationList {
        guard node.identifier == .sequence, case .constructed(let entries) = node.content else {
            throw AndroidKeyAttestation.refuse("an authorization list is not a SEQUENCE")
        }
        var list = AuthorizationList()
        for entry in entries where entry.identifier.tagClass == .contextSpecific {
            switch entry.identifier.tagNumber {
            case AuthorizationList.purposeTag:
                guard let set = explicitContent(entry), set.identifier == .set,
                    case .constructed(let items) = set.content
                else { throw AndroidKeyAttestation.refuse("purpose is not a SET OF INTEGER") }
                list.purposes = try items.map { try Int(derEncoded: $0) }
            case AuthorizationList.allApplicationsTag:
                list.allApplications = true
            case AuthorizationList.originTag:
                guard let value = explicitContent(entry) else { throw AndroidKeyAttestation.refuse("origin is empty") }
                list.origin = try Int(derEncoded: value)
            case AuthorizationList.attestationApplicationIDTag:
                guard let value = explicitContent(entry) else {
                    throw AndroidKeyAttestation.refuse("attestationApplicationId is empty")
                }
                list.attestationApplicationID = Array(try ASN1OctetString(derEncoded: value).bytes)
            default:
                continue
            }
        }
        return list
    }

    /// The one element inside an EXPLICIT tag.
    private static func explicitContent(_ node: ASN1Node) -> ASN1Node? {
        guard case .constructed(let children) = node.content else { return nil }
        var iterator = children.makeIterator()
        return iterator.next()
    }
}
