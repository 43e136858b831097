import Crypto
import Foundation
import UMFAEncoding
import UMFAWebAuthn

/// One static file of the demo page, embedded in the binary at build time.
struct DemoAsset: Sendable {
    /// The file's bytes.
    let bytes: [UInt8]
    /// Its `Content-Type`.
    let contentType: String
    /// A strong validator (`"<hash prefix>"`), so browsers revalidate cheaply.
    let etag: String

    init(_ bytes: [UInt8], contentType: String) {
        self.bytes = bytes
        self.contentType = contentType
        etag = "\"" + Base64URL.encode(Array(SHA256.hash(data: bytes)).prefix(12)) + "\""
    }
}

/// The demo page's files (`Sources/UMFAServer/Resources/Demo`). SwiftPM embeds them in the
/// code (`.embedInCode`), so a `umfa` binary copied anywhere still serves the page.
enum DemoAssets {
    /// Where the page names the development application's id; filled in per request.
    static let applicationPlaceholder = "{{development_application_id}}"

    /// `index.html`, with ``applicationPlaceholder`` still in it.
    static let indexHTML = String(decoding: PackageResources.index_html, as: UTF8.self)

}
