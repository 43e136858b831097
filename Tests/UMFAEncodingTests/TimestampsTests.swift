import Foundation
import Testing
import UMFAEncoding

@Suite("RFC 3339 timestamps")
struct TimestampsTests {
    @Test(
        "known instants",
        arguments: [
            (0.0, "1970-01-01T00:00:00.000Z"),
            (-0.001, "1969-12-31T23:59:59.999Z"),
            (951_782_400.5, "2000-02-29T00:00:00.500Z"),
            (1_234_567_890.123, "2009-02-13T23:31:30.123Z"),
            (4_107_542_399.999, "2100-02-28T23:59:59.999Z"),
            (253_402_300_799.0, "9999-12-31T23:59:59.000Z"),
        ])
    func knownInstants(seconds: Double, expected: String) {
        #expect(Timestamps.rfc3339(Date(timeIntervalSince1970: seconds)) == expected)
    }

    /// 20,000 instants from 1600 to 9999 in whole milliseconds, evenly spread by a step that is
    /// not a whole second, day or year.
    static let instants: [(milliseconds: Int64, date: Date)] = (Int64(0)..<20_000).map { index in
        let milliseconds = -11_676_096_000_000 + index * 13_253_988_299
        return (milliseconds, Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }

    @Test("the same text as Foundation's ISO8601DateFormatter for 20,000 instants from 1600 to 9999")
    func matchesFoundation() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for (milliseconds, date) in Self.instants {
            #expect(Timestamps.rfc3339(date) == formatter.string(from: date), "\(milliseconds) ms")
        }
    }

    @Test("whole seconds: the same text as Foundation's default ISO8601DateFormatter, fraction dropped")
    func wholeSecondsMatchFoundation() {
        let formatter = ISO8601DateFormatter()
        for (milliseconds, date) in Self.instants {
            #expect(Timestamps.rfc3339WholeSeconds(date) == formatter.string(from: date), "\(milliseconds) ms")
        }
        #expect(
            Timestamps.rfc3339WholeSeconds(Date(timeIntervalSince1970: 1_234_567_890.999)) == "2009-02-13T23:31:30Z")
    }

    @Test("parses what it writes, with or without fractions")
    func roundTrip() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000.25)
        #expect(try #require(Timestamps.parse(Timestamps.rfc3339(date))) == date)
        #expect(Timestamps.parse("2023-11-14T22:13:20Z") == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(Timestamps.parse("yesterday") == nil)
    }
}
