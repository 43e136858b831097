import Foundation
import NIOSSL
import UMFAWebAuthn
import X509

/// Where the FIDO metadata BLOB comes from and how it is checked (docs/operators/metadata.md):
/// `UMFA_METADATA_URL`, `UMFA_METADATA_ROOT`, `UMFA_METADATA_CA` and
/// `UMFA_METADATA_RETRY_SECONDS`. A file named by `UMFA_METADATA_FILE` is read by `umfa serve`
/// itself, once, and checked against the same root.
package struct MetadataSettings: Sendable {
    /// The https URL downloaded on a schedule; `nil` downloads nothing.
    package var url: String?
    /// The root the BLOB's signing chain must end at; `nil` means the FIDO Alliance's
    /// (``WellKnownRoot/fidoMetadataRoot``).
    package var root: Certificate?
    /// The CAs trusted for the download's TLS instead of the system's; `nil` trusts the system's.
    package var downloadTrustRoots: [NIOSSLCertificate]?
    /// The first wait after a failed or unchanged download.
    package var retryInterval: Duration = .seconds(600)

    package init() {}

    /// The root in force: ``root`` or the FIDO Alliance's.
    package func resolvedRoot() throws -> Certificate {
        try Self.root(named: root)
    }

    /// The metadata root: `named`, or the FIDO Alliance's, GlobalSign Root CA - R3
    /// (``WellKnownRoot/fidoMetadataRoot``), when none is named.
    package static func root(named: Certificate?) throws -> Certificate {
        try named ?? WellKnownRoot.fidoMetadataRoot.certificate
    }

    /// Reads the metadata settings; a plain-http URL, a URL beside `UMFA_METADATA_FILE`, or a PEM
    /// file without a certificate stops the start with a message naming the setting.
    package static func from(_ settings: SettingsReader) throws -> MetadataSettings {
        var metadata = MetadataSettings()
        if let url = settings.string(.metadataURL) {
            metadata.url = try checkedURL(url)
            if settings.string(.metadataFile) != nil {
                throw ConfigurationError(
                    "UMFA_METADATA_URL and UMFA_METADATA_FILE are both set: name one source of FIDO metadata, "
                        + "the URL to download it on a schedule or the file to read it once")
            }
        }
        if let path = settings.string(.metadataRoot) {
            guard metadata.url != nil || settings.string(.metadataFile) != nil else {
                throw ConfigurationError(
                    "UMFA_METADATA_ROOT is set without UMFA_METADATA_URL or UMFA_METADATA_FILE, the metadata it checks")
            }
            let certificates = try pemCertificates(path, setting: "UMFA_METADATA_ROOT")
            guard certificates.count == 1, let root = try? Certificate(pemEncoded: certificates[0]) else {
                throw ConfigurationError("UMFA_METADATA_ROOT: \(path) must hold exactly one PEM certificate, the root")
            }
            metadata.root = root
        }
        if let path = settings.string(.metadataCA) {
            guard metadata.url != nil else {
                throw ConfigurationError("UMFA_METADATA_CA is set without UMFA_METADATA_URL, the download it is for")
            }
            guard let roots = try? NIOSSLCertificate.fromPEMFile(path), !roots.isEmpty else {
                throw ConfigurationError("UMFA_METADATA_CA: \(path) holds no readable PEM certificate")
            }
            metadata.downloadTrustRoots = roots
        }
        metadata.retryInterval =
            try settings.duration(.metadataRetrySeconds, seconds: 1...86_400) ?? metadata.retryInterval
        return metadata
    }

    /// An absolute https URL with a host: the BLOB decides which authenticators are trusted, so
    /// it never comes over plain http.
    static func checkedURL(_ text: String) throws -> String {
        guard let url = URLComponents(string: text), url.scheme?.lowercased() == "https", url.host?.isEmpty == false
        else {
            throw ConfigurationError(
                "UMFA_METADATA_URL must be an absolute https URL (the FIDO Metadata Service is "
                    + "https://mds3.fidoalliance.org/), not \"\(text)\"")
        }
        return text
    }

    /// The PEM blocks of certificates in the file at `path`.
    private static func pemCertificates(_ path: String, setting: String) throws -> [String] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError("\(setting): cannot read \(path)")
        }
        let text = String(decoding: data, as: UTF8.self)
        let begin = "-----BEGIN CERTIFICATE-----"
        let end = "-----END CERTIFICATE-----"
        var blocks: [String] = []
        var rest = Substring(text)
        while let start = rest.range(of: begin), let stop = rest.range(of: end, range: start.upperBound..<rest.endIndex)
        {
            blocks.append(String(rest[start.lowerBound..<stop.upperBound]))
            rest = rest[stop.upperBound...]
        }
        return blocks
    }
}
