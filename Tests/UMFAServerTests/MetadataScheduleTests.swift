import Foundation
import Testing

@testable import UMFAServer

/// When the FIDO metadata BLOB is downloaded again and which one is kept
/// (docs/operators/metadata.md): `nextUpdate` honoured, retries backing off, serial numbers
/// only going up.
@Suite("FIDO metadata refresh: schedule and serial numbers")
struct MetadataScheduleTests {
    let schedule = MetadataSchedule(retryInterval: .seconds(600))
    let now = Date(timeIntervalSince1970: 1_780_000_000)

    @Test("no download before a nextUpdate still ahead, whatever went wrong meanwhile")
    func honoursNextUpdate() {
        let next = now.addingTimeInterval(5 * 86_400)
        #expect(schedule.nextCheck(heldNextUpdate: next, misses: 0, now: now) == next)
        #expect(schedule.nextCheck(heldNextUpdate: next, misses: 3, now: now) == next)
    }

    @Test("a nextUpdate years ahead is asked about again after 31 days")
    func longestWait() {
        let far = now.addingTimeInterval(3 * 365 * 86_400)
        #expect(schedule.nextCheck(heldNextUpdate: far, misses: 0, now: now) == now.addingTimeInterval(31 * 86_400))
    }

    @Test("without a BLOB, or past its nextUpdate, retries wait 1, 1, 2, 4, 8, 16, 16 times the interval")
    func backoff() {
        let waits = (0...6).map { schedule.retryDelay(misses: $0) / 600 }
        #expect(waits == [1, 1, 2, 4, 8, 16, 16])
        let past = now.addingTimeInterval(-86_400)
        #expect(schedule.nextCheck(heldNextUpdate: past, misses: 3, now: now) == now.addingTimeInterval(2_400))
        #expect(schedule.nextCheck(heldNextUpdate: nil, misses: 1, now: now) == now.addingTimeInterval(600))
    }

    @Test("a retry never waits more than a day")
    func retryAtMostDaily() {
        let slow = MetadataSchedule(retryInterval: .seconds(20_000))
        #expect(slow.retryDelay(misses: 9) == 86_400)
        let fast = MetadataSchedule(retryInterval: .milliseconds(1_500))
        #expect(fast.retryDelay(misses: 1) == 1.5)
    }

    @Test("only a greater serial number replaces the BLOB held")
    func serialNumbers() {
        #expect(MetadataSchedule.acceptance(downloaded: 1, held: nil) == .newer)
        #expect(MetadataSchedule.acceptance(downloaded: 8, held: 7) == .newer)
        #expect(MetadataSchedule.acceptance(downloaded: 7, held: 7) == .same)
        #expect(MetadataSchedule.acceptance(downloaded: 6, held: 7) == .older)
    }
}

/// `UMFA_METADATA_URL`, `UMFA_METADATA_ROOT`, `UMFA_METADATA_CA` and
/// `UMFA_METADATA_RETRY_SECONDS`: what stops the start, with a message naming the setting.
@Suite("FIDO metadata refresh: settings")
struct MetadataSettingsTests {
    func configured(_ environment: [String: String]) throws -> ServerConfiguration {
        var configuration = ServerConfiguration()
        try configuration.apply(SettingsReader(environment: environment))
        return configuration
    }

    func refusal(_ environment: [String: String]) -> String {
        do {
            _ = try configured(environment)
            return ""
        } catch {
            return String(describing: error)
        }
    }

    @Test("an https URL makes the attestation anchors read the downloaded metadata")
    func httpsURL() throws {
        let configuration = try configured([
            "UMFA_METADATA_URL": "https://mds3.example.org/", "UMFA_METADATA_RETRY_SECONDS": "2",
        ])
        let refresh = try #require(configuration.metadataRefresh)
        #expect(configuration.attestationAnchors.liveMetadata === refresh.live)
        #expect(refresh.schedule.retryInterval == .seconds(2))
        #expect(try configured([:]).metadataRefresh == nil)
    }

    @Test("the log names the URL without user information or query, which may hold a secret")
    func loggedURL() throws {
        let configuration = try configured([
            "UMFA_METADATA_URL": "https://reader:s3cret@mds.example.org/blob.jwt?token=t0ken#x"
        ])
        let refresh = try #require(configuration.metadataRefresh)
        #expect(refresh.loggedURL == "https://mds.example.org/blob.jwt")
    }

    @Test(
        "a plain http URL, or one with no host, stops the start",
        arguments: ["http://mds.example.org/", "mds3", "https:///x"])
    func notHTTPS(url: String) {
        #expect(refusal(["UMFA_METADATA_URL": url]).contains("UMFA_METADATA_URL must be an absolute https URL"))
    }

    @Test("a URL and a file together stop the start")
    func urlAndFile() {
        let message = refusal(["UMFA_METADATA_URL": "https://mds3.example.org/", "UMFA_METADATA_FILE": "/tmp/blob.jwt"])
        #expect(message.contains("UMFA_METADATA_URL and UMFA_METADATA_FILE are both set"))
    }

    @Test("a CA file without a URL, or without a certificate, stops the start")
    func caFile() throws {
        #expect(refusal(["UMFA_METADATA_CA": "/etc/hostname"]).contains("without UMFA_METADATA_URL"))
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("umfa-empty-\(UUID()).pem")
        try Data("no certificate here\n".utf8).write(to: empty)
        defer { try? FileManager.default.removeItem(at: empty) }
        let message = refusal(["UMFA_METADATA_URL": "https://mds3.example.org/", "UMFA_METADATA_CA": empty.path])
        #expect(message.contains("UMFA_METADATA_CA: \(empty.path) holds no readable PEM certificate"))
    }

    @Test("a root file must hold exactly one certificate, and a URL or file must use it")
    func rootFile() throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("umfa-root-\(UUID()).pem")
        try Data("nothing\n".utf8).write(to: empty)
        defer { try? FileManager.default.removeItem(at: empty) }
        let url = "https://mds3.example.org/"
        #expect(
            refusal(["UMFA_METADATA_URL": url, "UMFA_METADATA_ROOT": empty.path]).contains(
                "must hold exactly one PEM certificate"))
        #expect(
            refusal(["UMFA_METADATA_FILE": "/tmp/blob.jwt", "UMFA_METADATA_ROOT": "/nonexistent/root.pem"]).contains(
                "cannot read /nonexistent/root.pem"))
        #expect(refusal(["UMFA_METADATA_ROOT": empty.path]).contains("without UMFA_METADATA_URL or UMFA_METADATA_FILE"))
    }

    @Test("a retry interval below a second or above a day stops the start", arguments: ["0.5", "86401", "soon"])
    func retryRange(value: String) {
        #expect(refusal(["UMFA_METADATA_RETRY_SECONDS": value]).contains("UMFA_METADATA_RETRY_SECONDS"))
    }
}
