import Foundation
import Testing

@testable import UMFAServer

/// When the FIDO metadata BLOB is downloaded again and which one is kept
/// (docs/operators/metadata.md): `nextUpdate` the latest date, at least a daily check, retries
/// backing off, a random jitter, serial numbers only going up.
@Suite("FIDO metadata refresh: schedule and serial numbers")
struct MetadataScheduleTests {
    let schedule = MetadataSchedule(retryInterval: .seconds(600))
    let now = Date(timeIntervalSince1970: 1_780_000_000)

    @Test("while nextUpdate is ahead: a download at it, or a day from now when it is further")
    func nextUpdateIsTheLatest() {
        let soon = now.addingTimeInterval(5 * 3_600)
        #expect(schedule.nextCheck(heldNextUpdate: soon, misses: 0, now: now, jitter: 0) == soon)
        let far = now.addingTimeInterval(30 * 86_400)
        #expect(
            schedule.nextCheck(heldNextUpdate: far, misses: 0, now: now, jitter: 0) == now.addingTimeInterval(86_400))
        let years = now.addingTimeInterval(3 * 365 * 86_400)
        #expect(
            schedule.nextCheck(heldNextUpdate: years, misses: 0, now: now, jitter: 0) == now.addingTimeInterval(86_400))
    }

    @Test("before nextUpdate, the same serial number or a failure is no miss: the backoff does not grow")
    func noMissBeforeNextUpdate() {
        #expect(!MetadataSchedule.isMiss(heldNextUpdate: now.addingTimeInterval(60), now: now))
        #expect(MetadataSchedule.isMiss(heldNextUpdate: now, now: now))
        #expect(MetadataSchedule.isMiss(heldNextUpdate: now.addingTimeInterval(-60), now: now))
        #expect(MetadataSchedule.isMiss(heldNextUpdate: nil, now: now))
    }

    @Test("without a BLOB, or past its nextUpdate, the n-th miss in a row waits 1, 2, 4, 8, 16, 16 times the interval")
    func backoff() {
        let waits = (1...6).map { schedule.retryDelay(misses: $0) / 600 }
        #expect(waits == [1, 2, 4, 8, 16, 16])
        #expect(schedule.retryDelay(misses: 0) == 600)
        let past = now.addingTimeInterval(-86_400)
        #expect(
            schedule.nextCheck(heldNextUpdate: past, misses: 3, now: now, jitter: 0) == now.addingTimeInterval(2_400))
        #expect(schedule.nextCheck(heldNextUpdate: nil, misses: 1, now: now, jitter: 0) == now.addingTimeInterval(600))
    }

    @Test("the jitter takes up to a tenth off a wait, at most an hour, never pushing past nextUpdate")
    func jitter() {
        #expect(schedule.nextCheck(heldNextUpdate: nil, misses: 1, now: now, jitter: 1) == now.addingTimeInterval(540))
        #expect(
            schedule.nextCheck(heldNextUpdate: nil, misses: 1, now: now, jitter: 0.5) == now.addingTimeInterval(570))
        let far = now.addingTimeInterval(30 * 86_400)
        #expect(
            schedule.nextCheck(heldNextUpdate: far, misses: 0, now: now, jitter: 1)
                == now.addingTimeInterval(86_400 - 3_600))
        let soon = now.addingTimeInterval(1_000)
        for jitter in [0.0, 0.3, 1.0, 7.0] {
            let next = schedule.nextCheck(heldNextUpdate: soon, misses: 0, now: now, jitter: jitter)
            #expect(next <= soon && next >= now.addingTimeInterval(900))
        }
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
        #expect(refresh.store.path.lastPathComponent == "metadata-blob.jws")
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
