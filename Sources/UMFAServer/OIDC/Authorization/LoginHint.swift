import UMFAEncoding

/// `login_hint` (OpenID Connect Core §3.1.2.1): the identifier the person might sign in with, as
/// this server knows identifiers (docs/oidc-provider.md, "login_hint").
///
/// A hint is kept when it could be typed into the sign-in page's username field: an email
/// address by the profile rule (``UserProfileService/checkEmail(_:)``) when it holds an `@`, else a
/// user id by the `user_id` rule (``FieldRules/checkUserID(_:)``), and in both cases visible
/// text — no whitespace, control, format or private-use scalar, no line or paragraph separator,
/// and no combining mark that does not follow a letter or another mark. Anything else cannot name
/// an account a person signs in with, so it is ignored as if absent: the hint is the OP's to use
/// or not (§3.1.2.1), and a page never prefills text built to break out of it.
enum LoginHint {
    /// `text` when it is an identifier as above; `nil` otherwise.
    static func identifier(_ text: String) -> String? {
        guard (try? FieldRules.checkUserID(text)) != nil, isVisibleText(text) else { return nil }
        if ASCIISplit.contains(text, "@") {
            guard (try? UserProfileService.checkEmail(text)) != nil else { return nil }
        }
        return text
    }

    /// Whether every scalar of `text` is visible and each combining mark sits on a letter (or on
    /// another mark sitting on one), checked per Unicode scalar.
    static func isVisibleText(_ text: String) -> Bool {
        var previous: Unicode.GeneralCategory?
        for scalar in text.unicodeScalars {
            let category = scalar.properties.generalCategory
            switch category {
            case .control, .format, .privateUse, .surrogate, .unassigned, .lineSeparator, .paragraphSeparator,
                .spaceSeparator:
                return false
            case .nonspacingMark, .spacingMark, .enclosingMark:
                guard let previous, isLetterOrMark(previous) else { return false }
            default:
                break
            }
            previous = category
        }
        return true
    }

    private static func isLetterOrMark(_ category: Unicode.GeneralCategory) -> Bool {
        switch category {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .nonspacingMark,
            .spacingMark, .enclosingMark:
            true
        default: false
        }
    }
}
