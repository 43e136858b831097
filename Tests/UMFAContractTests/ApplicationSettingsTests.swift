import Foundation
import Testing
import UMFAContract
import UMFAEncoding

/// An application's settings are one value, ``ApplicationSettings``: the admin API's request
/// and its answer carry it flat, an answer must have every setting it always shows, and
/// `umfa admin --set` reaches each setting by its wire name.
@Suite("Contract: application settings declared once")
struct ApplicationSettingsTests {
    private func object(_ value: some Encodable) throws -> [String: JSONValue] {
        try JSONDecoder().decode([String: JSONValue].self, from: JSONEncoder().encode(value))
    }

    @Test("the request and the answer have every setting at the top level, by the one set of wire names")
    func flat() throws {
        let names = Set(ApplicationSettings.Member.allCases.map(\.stringValue))
        let request = try object(ApplicationSettingsRequest.example)
        #expect(Set(request.keys) == names.union(["trace_id"]))
        let answer = try object(ApplicationResponse.example)
        #expect(
            Set(answer.keys)
                == names.union([
                    "trace_id", "application_id", "api_key", "created_at", "enrollment_policy_description",
                    "webhook_secret",
                ]))
        let decoded = try JSONDecoder().decode(
            ApplicationResponse.self, from: JSONEncoder().encode(ApplicationResponse.example))
        #expect(decoded == ApplicationResponse.example)
        #expect(decoded.rpID == "shop.example" && decoded.settings.tokenTTLSeconds == 300)
    }

    @Test("an answer without a setting every answer has does not decode; one without an optional one does")
    func answersHaveEverySetting() throws {
        let full = try object(ApplicationResponse.example)
        for member in ApplicationSettings.Member.allCases {
            var partial = full
            partial.removeValue(forKey: member.stringValue)
            let data = try JSONEncoder().encode(partial)
            if member.isAlwaysAnswered {
                #expect(throws: DecodingError.self, "\(member)") {
                    try JSONDecoder().decode(ApplicationResponse.self, from: data)
                }
                // A request may leave any setting out.
                let request = try JSONDecoder().decode(ApplicationSettingsRequest.self, from: data)
                #expect(try object(request.settings)[member.stringValue] == nil)
            } else {
                let answer = try JSONDecoder().decode(ApplicationResponse.self, from: data)
                #expect(try object(answer.settings)[member.stringValue] == nil)
                #expect(answer.rpID == "shop.example")
            }
        }
    }

    @Test("a setting set by wire name and JSON value lands in its member; a value of another type is refused")
    func settingByName() throws {
        let settings = try ApplicationSettings()
            .setting(.tokenTTLSeconds, to: .number(600))
            .setting(.enforceCredentialProtectionPolicy, to: .bool(true))
            .setting(.origins, to: .array([.string("https://shop.example")]))
        #expect(settings.tokenTTLSeconds == 600)
        #expect(settings.enforceCredentialProtectionPolicy == true)
        #expect(settings.origins == ["https://shop.example"])
        #expect(settings.presentMembers == ["enforce_credential_protection_policy", "origins", "token_ttl_seconds"])
        #expect(throws: DecodingError.self) { try settings.setting(.tokenTTLSeconds, to: .string("soon")) }
        #expect(ApplicationSettings.Member(stringValue: "token_lifetime") == nil)
    }
}
