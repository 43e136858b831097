import Foundation

/// The messages UMFA sends (docs/operators/mail.md), each a subject and a plain-text body with
/// `{{name}}` placeholders. Operators replace any of them with `<name>.txt` in
/// `UMFA_MAIL_TEMPLATES`: a first line `Subject: …`, an empty line, the body.
struct MailTemplates: Sendable {
    /// Every message, by its file name.
    enum Name: String, CaseIterable, Sendable {
        case emailVerification = "email_verification"
        case passkeyAdded = "passkey_added"
        case passkeyRemoved = "passkey_removed"
        case recoveryCodesUsed = "recovery_codes_used"
        case recoveryCodesCreated = "recovery_codes_created"
        case emailChanged = "email_changed"
        case accountRecovery = "account_recovery"
        case accountRecovered = "account_recovered"
    }

    /// One message's text.
    struct Template: Sendable, Equatable {
        let subject: String
        let body: String
    }

    /// The operator's replacements.
    private let replaced: [Name: Template]

    /// The built-in templates.
    init() { replaced = [:] }

    /// The built-in templates, with those of `directory` in their place.
    init(directory: String?) throws {
        var replaced: [Name: Template] = [:]
        if let directory {
            for name in Name.allCases {
                let path = (directory as NSString).appendingPathComponent(name.rawValue + ".txt")
                guard FileManager.default.fileExists(atPath: path) else { continue }
                guard let text = try? String(contentsOfFile: path, encoding: .utf8), let parsed = Self.parse(text)
                else {
                    throw ConfigurationError(
                        "UMFA_MAIL_TEMPLATES: \(path) must start with a line \"Subject: …\", then an empty line and the body"
                    )
                }
                replaced[name] = parsed
            }
        }
        self.replaced = replaced
    }

    /// `name` with `values` in its placeholders; a placeholder without a value stays empty.
    func render(_ name: Name, _ values: [String: String]) -> Template {
        let template = replaced[name] ?? Self.builtIn(name)
        func fill(_ text: String) -> String {
            var result = ""
            var rest = Substring(text)
            while let open = rest.range(of: "{{") {
                result += rest[..<open.lowerBound]
                guard let close = rest[open.upperBound...].range(of: "}}") else {
                    rest = rest[open.lowerBound...]
                    break
                }
                let key = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
                result += values[key] ?? ""
                rest = rest[close.upperBound...]
            }
            return result + rest
        }
        return Template(subject: fill(template.subject), body: fill(template.body))
    }

    static func parse(_ text: String) -> Template? {
        let normalized = text.replacingOccurrences(of: "\r\n", with: "\n")
        guard normalized.hasPrefix("Subject:"), let end = normalized.range(of: "\n\n") else { return nil }
        let subject = normalized[normalized.index(normalized.startIndex, offsetBy: 8)..<end.lowerBound]
            .trimmingCharacters(in: .whitespaces)
        guard !subject.isEmpty, !subject.contains("\n") else { return nil }
        return Template(subject: subject, body: String(normalized[end.upperBound...]))
    }

    /// The text UMFA sends when the operator did not replace it.
    static func builtIn(_ name: Name) -> Template {
        switch name {
        case .emailVerification:
            Template(
                subject: "Confirm your email address for {{application}}",
                body: """
                    Your code to confirm {{email}} for {{application}}:

                        {{code}}

                    It works for 10 minutes. If you did not ask for it, you can ignore this mail.

                    """)
        case .passkeyAdded:
            Template(
                subject: "A passkey was added to your {{application}} account",
                body: """
                    The passkey "{{passkey}}" was added to your {{application}} account on {{time}}.

                    If this was not you, remove it from your account and contact {{application}}.

                    """)
        case .passkeyRemoved:
            Template(
                subject: "A passkey was removed from your {{application}} account",
                body: """
                    The passkey "{{passkey}}" was removed from your {{application}} account on {{time}}.

                    If this was not you, contact {{application}}.

                    """)
        case .recoveryCodesUsed:
            Template(
                subject: "A recovery code of your {{application}} account was used",
                body: """
                    A recovery code of your {{application}} account was used on {{time}} to add a new passkey.

                    If this was not you, contact {{application}}.

                    """)
        case .recoveryCodesCreated:
            Template(
                subject: "New recovery codes for your {{application}} account",
                body: """
                    New recovery codes were made for your {{application}} account on {{time}}; the earlier ones no longer work.

                    If this was not you, contact {{application}}.

                    """)
        case .accountRecovery:
            Template(
                subject: "Register a new passkey for your {{application}} account",
                body: """
                    Someone, probably you, asked to register a new passkey for your {{application}} account.

                    Open this link within 15 minutes to do it (it works once):

                    {{link}}

                    If this was not you, ignore this mail: nothing changes unless the link is used.

                    """)
        case .accountRecovered:
            Template(
                subject: "Your {{application}} account was recovered by email",
                body: """
                    A recovery link mailed to this address was used on {{time}} to register a new passkey for your {{application}} account.

                    If this was not you, contact {{application}}.

                    """)
        case .emailChanged:
            Template(
                subject: "The email address of your {{application}} account changed",
                body: """
                    The email address of your {{application}} account was changed from this address on {{time}}.

                    If this was not you, contact {{application}}.

                    """)
        }
    }
}
