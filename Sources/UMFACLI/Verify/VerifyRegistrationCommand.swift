import ArgumentParser
import Foundation
import UMFAEncoding
import UMFAWebAuthn
import UMFAWebAuthnTypes
import X509

/// `umfa verify registration`: §7.1 over a `RegistrationResponseJSON` file.
struct VerifyRegistrationCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "registration",
        abstract: "Verify a RegistrationResponseJSON (WebAuthn L3 §7.1) and print what it proves."
    )

    @Option(help: "A file holding the RegistrationResponseJSON.")
    var response: String

    @OptionGroup var relyingParty: RelyingPartyOptions

    @Option(help: "The time certificates must be valid at (RFC 3339); now by default.")
    var at: String?

    @Option(name: .customLong("root"), help: "A trusted attestation root certificate (PEM or DER file); repeatable.")
    var roots: [String] = []

    @Flag(name: .customLong("require-trusted"), help: "Fail unless the attestation chains to a trusted root.")
    var requireTrusted = false

    @Flag(
        name: .customLong("require-proven-aaguid"),
        help:
            "Fail unless the attestation also proves the AAGUID (a certificate extension, or a chain to the roots its metadata entry names), as attestation_policy trusted does."
    )
    var requireProvenAAGUID = false

    @Flag(
        name: .customLong("no-well-known-roots"),
        help: "Trust only --root and metadata roots, not the public roots UMFA ships (Apple, Google, ...).")
    var noWellKnownRoots = false

    @Option(help: "A FIDO Metadata Service (MDS3) BLOB file: its roots, names and status reports apply.")
    var metadata: String?

    @Option(
        name: .customLong("metadata-root"),
        help: "The root the metadata BLOB must chain to (PEM or DER); GlobalSign Root CA - R3 by default.")
    var metadataRoot: String?

    func run() async throws {
        let credential = try CommandIO.decode(
            RegistrationResponseJSON.self, from: response, what: "RegistrationResponseJSON")
        let challenge = try CommandIO.base64URL(relyingParty.challenge, option: "--challenge")
        let time = try at.map(RFC3339.parse) ?? Date()
        let extraRoots = try roots.map(CertificateFile.load)
        let index = try await loadMetadata(at: time)
        let anchors =
            noWellKnownRoots
            ? AttestationTrustAnchors(roots: extraRoots, metadata: index)
            : .wellKnown(extra: extraRoots, metadata: index)
        var policy = RelyingPartyPolicy(
            rpID: relyingParty.rpID,
            origins: OriginPolicy(
                allowed: Set(relyingParty.origin),
                allowCrossOrigin: relyingParty.allowCrossOrigin || !relyingParty.topOrigin.isEmpty,
                allowedTopOrigins: Set(relyingParty.topOrigin)),
            userVerification: relyingParty.requireUV ? .required : .preferred,
            trustAnchors: anchors)
        if requireTrusted || requireProvenAAGUID {
            // --require-trusted judges the chain alone; the server's `trusted` also needs the AAGUID proven.
            policy.attestation = .trustedOnly
            policy.attestation.requireProvenAAGUID = requireProvenAAGUID
        }
        do {
            let result = try await RegistrationVerifier(policy: policy).verify(
                credential, expectedChallenge: challenge, at: time)
            try CommandIO.printJSON(RegistrationOutput(result))
        } catch let error as WebAuthnError {
            try CommandIO.printJSON(FailureOutput(error))
            CommandIO.printError(error.description)
            throw ExitCode(1)
        }
    }

    /// The metadata BLOB named by `--metadata`, verified against its root at `time`.
    func loadMetadata(at time: Date) async throws -> MetadataIndex? {
        guard let metadata else { return nil }
        return try await MetadataFile.load(metadata, root: try metadataRoot.map(CertificateFile.load), at: time)
    }
}

/// What a valid registration prints.
struct RegistrationOutput: Encodable {
    let valid = true
    let fmt: String
    let attestationType: String
    let trust: String
    let trustDetail: String?
    /// The AAGUID that counts (zero for fido-u2f), proven or not.
    let aaguid: String
    /// Whether the attestation proves `aaguid` (docs/contract.md §4).
    let aaguidProven: Bool
    /// How: `model_roots`, `certificate_extension`, `format` or `unproven`.
    let aaguidProof: String
    /// Why the AAGUID is unproven; left out when it is proven.
    let aaguidDetail: String?
    /// Printed as `null` when no metadata names the model, so the field is always there.
    let authenticatorName: NullableField
    let credentialId: String
    let publicKey: String
    let algorithm: Int
    let signCount: UInt32
    let flags: FlagsOutput
    let certificates: [String]

    enum CodingKeys: String, CodingKey {
        case valid, fmt
        case attestationType = "attestation_type"
        case trust
        case trustDetail = "trust_detail"
        case aaguid
        case aaguidProven = "aaguid_proven"
        case aaguidProof = "aaguid_proof"
        case aaguidDetail = "aaguid_detail"
        case authenticatorName = "authenticator_name"
        case credentialId = "credential_id"
        case publicKey = "public_key"
        case algorithm
        case signCount = "sign_count"
        case flags, certificates
    }

    init(_ result: VerifiedRegistration) {
        fmt = result.format
        attestationType = result.attestation.type.rawValue
        trust = result.attestation.trust.label
        switch result.attestation.trust {
        case .trusted(let anchor): trustDetail = "anchor: \(anchor)"
        case .untrusted(let reason): trustDetail = reason
        default: trustDetail = nil
        }
        aaguid = AAGUID.string(result.record.aaguid)
        aaguidProven = result.attestation.aaguidProven
        aaguidProof = result.attestation.aaguidProof.label
        if case .unproven(let reason) = result.attestation.aaguidProof {
            aaguidDetail = reason
        } else {
            aaguidDetail = nil
        }
        authenticatorName = NullableField(result.attestation.authenticatorName)
        credentialId = Base64URL.encode(result.record.id)
        publicKey = Base64URL.encode(result.record.publicKey.encoded)
        algorithm = result.record.publicKey.algorithm.rawValue
        signCount = result.record.signCount
        flags = FlagsOutput(result.authenticatorData.flags)
        certificates = result.attestation.trustPath.map { String(describing: $0.subject) }
    }
}

/// An optional string that encodes as `null` instead of being left out.
struct NullableField: Encodable {
    let value: String?
    init(_ value: String?) { self.value = value }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

/// RFC 3339 timestamps for `--at`.
enum RFC3339 {
    static func parse(_ text: String) throws -> Date {
        guard let date = Timestamps.parse(text) else {
            throw ValidationError("--at must be an RFC 3339 time such as 2021-09-01T00:00:00Z")
        }
        return date
    }
}

/// Certificates given on the command line.
enum CertificateFile {
    static func load(_ path: String) throws -> Certificate {
        let data = try CommandIO.readFile(path)
        let text = String(decoding: data, as: UTF8.self)
        do {
            if text.contains("-----BEGIN CERTIFICATE-----") {
                return try Certificate(pemEncoded: text)
            }
            return try Certificate(derEncoded: [UInt8](data))
        } catch {
            throw ValidationError("\(path) is not a PEM or DER certificate")
        }
    }
}
