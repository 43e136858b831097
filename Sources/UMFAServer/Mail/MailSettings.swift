import Foundation

/// How UMFA reaches its mail server (docs/operators/mail.md): `UMFA_SMTP_URL` with
/// `UMFA_SMTP_USERNAME` / `UMFA_SMTP_PASSWORD` and `UMFA_MAIL_FROM`. Without a URL, mail is off.
package struct MailSettings: Sendable {
    /// How the connection is protected.
    package enum Security: Sendable, Equatable {
        /// `smtp://`: STARTTLS when the server offers it (RFC 3207), plaintext otherwise.
        case startTLSWhenOffered
        /// `smtp://…?starttls=required`: STARTTLS, or no mail at all.
        case startTLSRequired
        /// `smtps://`: TLS from the first byte (RFC 8314 §3.3).
        case implicitTLS
    }

    package var host: String
    package var port: Int
    package var security: Security
    /// A PEM file of the CAs the server's certificate must chain to; the system's when `nil`.
    package var caFile: String?
    package var username: String?
    /// The password (`AUTH PLAIN` or `LOGIN`, RFC 4954), only ever sent over TLS.
    package var password: String?
    /// The `From` address, bare (`no-reply@example.com`).
    package var fromAddress: String
    /// The `From` header as given (a display name and the address, or the address).
    package var fromHeader: String
    /// `UMFA_MAIL_TEMPLATES`: a directory of replacement templates.
    package var templatesDirectory: String?
    /// How long one delivery may take.
    package var timeout: Duration = .seconds(20)

    /// The settings `settings` gives; `nil` when `UMFA_SMTP_URL` is unset; a bad value throws a
    /// ``ConfigurationError`` naming it (never with the password).
    package static func from(_ settings: SettingsReader) throws -> MailSettings? {
        guard let text = settings.string(.smtpURL) else {
            if settings.string(.mailFrom) != nil {
                throw ConfigurationError("UMFA_MAIL_FROM needs UMFA_SMTP_URL: the mail server to send through")
            }
            return nil
        }
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(),
            let host = url.host, !host.isEmpty, url.path.isEmpty || url.path == "/"
        else {
            throw ConfigurationError("UMFA_SMTP_URL must be smtp://host:port or smtps://host:port")
        }
        var security: Security
        switch scheme {
        case "smtp": security = .startTLSWhenOffered
        case "smtps": security = .implicitTLS
        default: throw ConfigurationError("UMFA_SMTP_URL must start with smtp:// or smtps://, not \(scheme)://")
        }
        var caFile: String?
        for item in url.queryItems ?? [] {
            switch (item.name, item.value) {
            case ("starttls", "required") where security != .implicitTLS: security = .startTLSRequired
            case ("starttls", "optional") where security != .implicitTLS: security = .startTLSWhenOffered
            case ("ca_file", let path?) where !path.isEmpty:
                guard FileManager.default.isReadableFile(atPath: path) else {
                    throw ConfigurationError("UMFA_SMTP_URL: ca_file \(path) cannot be read")
                }
                caFile = path
            default:
                throw ConfigurationError(
                    "UMFA_SMTP_URL: unknown parameter \(item.name) (starttls=required|optional, ca_file=PATH)")
            }
        }
        let username = url.user.flatMap { $0.removingPercentEncoding } ?? settings.string(.smtpUsername)
        let password = url.password.flatMap { $0.removingPercentEncoding } ?? settings.string(.smtpPassword)
        if password != nil, username == nil {
            throw ConfigurationError("UMFA_SMTP_PASSWORD needs a user: in UMFA_SMTP_URL or UMFA_SMTP_USERNAME")
        }
        guard let from = settings.string(.mailFrom) else {
            throw ConfigurationError("UMFA_SMTP_URL needs UMFA_MAIL_FROM: the sender of UMFA's mail")
        }
        guard let address = MailAddress.bare(from) else {
            throw ConfigurationError("UMFA_MAIL_FROM must be an address (no-reply@example.com or Name <address>)")
        }
        let templates = settings.string(.mailTemplates)
        if let templates {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: templates, isDirectory: &isDirectory), isDirectory.boolValue
            else { throw ConfigurationError("UMFA_MAIL_TEMPLATES: \(templates) is not a directory") }
        }
        return MailSettings(
            host: host, port: url.port ?? (security == .implicitTLS ? 465 : 587), security: security,
            caFile: caFile, username: username, password: password, fromAddress: address,
            fromHeader: from.trimmingCharacters(in: .whitespaces), templatesDirectory: templates)
    }
}

/// Mail addresses as UMFA accepts them: ASCII `local@domain` without spaces, angle brackets or
/// line breaks (so none can add a header or an SMTP command), at most 254 bytes (RFC 5321 §4.5.3.1).
enum MailAddress {
    /// Whether `text` is such an address.
    static func isValid(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard (3...254).contains(bytes.count), let at = bytes.lastIndex(of: UInt8(ascii: "@")), at > 0,
            at < bytes.count - 1
        else { return false }
        let domain = bytes[(at + 1)...]
        return bytes.allSatisfy { $0 > 0x20 && $0 < 0x7f && !"<>()[]\\,;:\"".utf8.contains($0) }
            && domain.contains(UInt8(ascii: ".")) && !domain.contains(UInt8(ascii: "@"))
    }

    /// The address of `Name <address>` or of a bare address; `nil` when there is none.
    static func bare(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.contains(where: { $0 == "\r" || $0 == "\n" }) else { return nil }
        if trimmed.hasSuffix(">"), let open = trimmed.lastIndex(of: "<") {
            let inner = String(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)])
            return isValid(inner) ? inner : nil
        }
        return isValid(trimmed) ? trimmed : nil
    }
}
