import Foundation
import Testing

@testable import UMFAServer

/// What UMFA writes to a mail server (docs/operators/mail.md): messages no value can add a header
/// to or end early, subjects encoded per Unicode scalar, and the mail settings read strictly.
@Suite("Mail: messages, addresses and settings")
struct MailMessageTests {
    static func message(subject: String, body: String = "Hello") -> MailMessage {
        MailMessage(
            id: "m-1", from: "Shop <no-reply@shop.example>", to: "ada@example.com", subject: subject, body: body,
            date: Date(timeIntervalSince1970: 1_795_996_800))
    }

    /// The decoded text of `header`'s RFC 2047 `B` encoded words.
    static func decoded(_ header: String) -> String? {
        var bytes: [UInt8] = []
        for word in header.components(separatedBy: "\r\n ") {
            guard word.hasPrefix("=?UTF-8?B?"), word.hasSuffix("?="),
                let data = Data(base64Encoded: String(word.dropFirst(10).dropLast(2)))
            else { return nil }
            // Each word is whole UTF-8 by itself: no scalar split across two.
            guard String(validating: Array(data), as: UTF8.self) != nil else { return nil }
            bytes += data
        }
        return String(validating: bytes, as: UTF8.self)
    }

    @Test("a subject with text beyond ASCII is encoded words of whole scalars, read back exactly")
    func encodedSubject() throws {
        let subject = "Bestätige deine Adresse für Café 👩🏽‍💻 — e\u{0301}\u{0301} 日本語のテキストを長く続けます"
        let encoded = MailMessage.encodedWords(subject)
        #expect(encoded.components(separatedBy: "\r\n ").count > 1, "long enough for several words")
        #expect(encoded.components(separatedBy: "\r\n ").allSatisfy { $0.utf8.count <= 75 })
        #expect(Self.decoded(encoded) == subject)
        #expect(MailMessage.encodedWords("Plain subject") == "Plain subject")
    }

    @Test("a line break in a subject or sender adds no header; the body is base64")
    func noHeaderInjection() throws {
        let rendered = Self.message(subject: "Hi\r\nBcc: thief@evil.example", body: "line\r\n.\r\nQUIT\r\n").rendered
        let headers = rendered.components(separatedBy: "\r\n\r\n")[0].components(separatedBy: "\r\n")
        #expect(!headers.contains { $0.hasPrefix("Bcc:") }, "\(headers)")
        #expect(headers.contains("Subject: HiBcc: thief@evil.example"))
        #expect(!rendered.contains("\r\n.\r\n"), "the body cannot end the DATA")
        let body = rendered.components(separatedBy: "\r\n\r\n")[1].replacingOccurrences(of: "\r\n", with: "")
        #expect(Data(base64Encoded: body).map { String(decoding: $0, as: UTF8.self) } == "line\r\n.\r\nQUIT\r\n")
        #expect(headers.contains("Date: Mon, 30 Nov 2026 00:00:00 +0000"))
    }

    @Test("DATA lines that start with a dot get one more (RFC 5321 §4.5.2), every line ends in CRLF")
    func dotStuffing() {
        #expect(MailMessage.dotStuffed(".hidden\n..two\nplain\r\n.") == "..hidden\r\n...two\r\nplain\r\n..\r\n")
    }

    @Test("addresses that could carry an SMTP command or a header are refused")
    func addresses() {
        for good in ["ada@example.com", "a.b+tag@sub.example.org"] { #expect(MailAddress.isValid(good), "\(good)") }
        for bad in [
            "ada@example.com>\r\nRCPT TO:<thief@evil.example", "<ada@example.com>", "a da@example.com", "ada@",
            "@example.com", "ada@localhost", "ad\u{00E4}@example.com", "ada@example.com\n",
        ] {
            #expect(!MailAddress.isValid(bad), "\(bad)")
        }
        #expect(MailAddress.bare("Shop <no-reply@shop.example>") == "no-reply@shop.example")
        #expect(MailAddress.bare("Shop <no-reply@shop.example>\r\nBcc: x@y.z") == nil)
    }

    @Test("UMFA_SMTP_URL: schemes, default ports, STARTTLS, credentials; bad values name the setting")
    func settings() throws {
        func read(_ environment: [String: String]) throws -> MailSettings? {
            try MailSettings.from(SettingsReader(environment: environment))
        }
        #expect(try read([:]) == nil)
        let plain = try #require(try read(["UMFA_SMTP_URL": "smtp://mail.example", "UMFA_MAIL_FROM": "a@b.example"]))
        #expect(plain.port == 587 && plain.security == .startTLSWhenOffered && plain.username == nil)
        let implicit = try #require(
            try read([
                "UMFA_SMTP_URL": "smtps://u%40x:p%3Ass@mail.example", "UMFA_MAIL_FROM": "Shop <a@b.example>",
            ]))
        #expect(implicit.port == 465 && implicit.security == .implicitTLS)
        #expect(implicit.username == "u@x" && implicit.password == "p:ss" && implicit.fromAddress == "a@b.example")
        let required = try #require(
            try read([
                "UMFA_SMTP_URL": "smtp://mail.example:2525?starttls=required", "UMFA_MAIL_FROM": "a@b.example",
                "UMFA_SMTP_USERNAME": "mailer", "UMFA_SMTP_PASSWORD": "secret-value",
            ]))
        #expect(required.port == 2525 && required.security == .startTLSRequired && required.username == "mailer")
        for (environment, words) in [
            (["UMFA_SMTP_URL": "smtp://mail.example"], "UMFA_MAIL_FROM"),
            (["UMFA_MAIL_FROM": "a@b.example"], "UMFA_SMTP_URL"),
            (["UMFA_SMTP_URL": "imap://mail.example", "UMFA_MAIL_FROM": "a@b.example"], "smtp://"),
            (["UMFA_SMTP_URL": "smtp://mail.example?tls=1", "UMFA_MAIL_FROM": "a@b.example"], "unknown parameter"),
            (
                [
                    "UMFA_SMTP_URL": "smtp://mail.example", "UMFA_MAIL_FROM": "a@b.example",
                    "UMFA_SMTP_PASSWORD": "secret-value",
                ],
                "UMFA_SMTP_PASSWORD needs a user"
            ),
        ] {
            let error = #expect(throws: ConfigurationError.self) { _ = try read(environment) }
            #expect(error?.description.contains(words) == true, "\(String(describing: error))")
            #expect(error?.description.contains("secret-value") == false)
        }
    }

    @Test("templates: placeholders filled, unknown ones empty; a replacement needs its Subject line")
    func templates() throws {
        let text = MailTemplates().render(.emailVerification, ["code": "123456", "application": "Shop"])
        #expect(text.subject == "Confirm your email address for Shop")
        #expect(text.body.components(separatedBy: "123456").count == 2, "the code appears once")
        #expect(MailTemplates.parse("Subject: Hi {{name}}\n\nBody {{x}}")?.subject == "Hi {{name}}")
        #expect(MailTemplates.parse("No subject\n\nBody") == nil)
        #expect(MailTemplates.parse("Subject:\n\nBody") == nil)
    }
}
