import Foundation

/// RFC 3339 timestamps in UTC, the one formatter of the server and the SDK: with millisecond
/// fractions, as `2026-11-21T09:30:00.125Z` (the API's timestamps and login-token claims), or
/// in whole seconds, as `2026-11-21T09:30:00Z` (the SDK's result dictionaries).
///
/// Written by hand: an `ISO8601DateFormatter` built per call cost 8 % of a login's server CPU
/// (it opens an ICU formatter each time), and a shared one is not safe across threads.
public enum Timestamps {
    /// `date` with a millisecond fraction, as `ISO8601DateFormatter` writes it with
    /// `[.withInternetDateTime, .withFractionalSeconds]`.
    public static func rfc3339(_ date: Date) -> String {
        format(date, fraction: true)
    }

    /// `date` in whole seconds (the fraction dropped), as `ISO8601DateFormatter` writes it
    /// with its default options.
    public static func rfc3339WholeSeconds(_ date: Date) -> String {
        format(date, fraction: false)
    }

    private static func format(_ date: Date, fraction: Bool) -> String {
        // Truncated to the millisecond, except that a value within rounding error of a whole
        // millisecond is that millisecond: .123 held as .12299999… still reads .123.
        let exact = date.timeIntervalSince1970 * 1000
        let nearest = exact.rounded()
        let tolerance = max(0.001, exact.magnitude.ulp * 8)
        let milliseconds = Int64(abs(exact - nearest) < tolerance ? nearest : exact.rounded(.down))
        let days = floorDivide(milliseconds, 86_400_000)
        let millisecondOfDay = milliseconds - days * 86_400_000
        let (year, month, day) = civilDate(daysSince1970: days)
        let secondOfDay = millisecondOfDay / 1000
        var text: [UInt8] = []
        text.reserveCapacity(24)
        append(year, digits: 4, to: &text)
        text.append(UInt8(ascii: "-"))
        append(month, digits: 2, to: &text)
        text.append(UInt8(ascii: "-"))
        append(day, digits: 2, to: &text)
        text.append(UInt8(ascii: "T"))
        append(secondOfDay / 3600, digits: 2, to: &text)
        text.append(UInt8(ascii: ":"))
        append(secondOfDay / 60 % 60, digits: 2, to: &text)
        text.append(UInt8(ascii: ":"))
        append(secondOfDay % 60, digits: 2, to: &text)
        if fraction {
            text.append(UInt8(ascii: "."))
            append(millisecondOfDay % 1000, digits: 3, to: &text)
        }
        text.append(UInt8(ascii: "Z"))
        return String(decoding: text, as: UTF8.self)
    }

    /// Reads RFC 3339 with or without fractional seconds (any offset). Not on a hot path.
    public static func parse(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }

    /// The proleptic Gregorian date of a day count from 1970-01-01 (H. Hinnant's
    /// `civil_from_days`, exact for every day an `Int64` of milliseconds can name).
    static func civilDate(daysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468  // days since 0000-03-01
        let era = floorDivide(shifted, 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let marchMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * marchMonth + 2) / 5 + 1
        let month = marchMonth < 10 ? marchMonth + 3 : marchMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return value % divisor < 0 ? quotient - 1 : quotient
    }

    private static func append(_ value: Int64, digits: Int, to text: inout [UInt8]) {
        if value < 0 { text.append(UInt8(ascii: "-")) }
        let decimal = Array(String(value.magnitude).utf8)
        text.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: max(0, digits - decimal.count)))
        text.append(contentsOf: decimal)
    }
}
