import Testing
import UMFA

@Suite("SDK version")
struct VersionTests {
    @Test("versionString is a semantic version")
    func semanticVersion() {
        let parts = UMFAClient.versionString.split(separator: ".")
        #expect(parts.count == 3)
        #expect(parts.allSatisfy { Int($0) != nil })
    }
}
