import Foundation
import FuzzSupport
import UMFAWebAuthn
import UMFAWebAuthnTypes

/// libFuzzer entry: the JSON bodies devices send (`RegistrationResponseJSON`,
/// `AuthenticationResponseJSON`, alone or inside a route body under `credential` or `token`)
/// decoded with the wire types and run through §7.1 and §7.2 against a fixed relying party.
@_cdecl("FuzzResponseJSON_main")
func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    FuzzDriver.run(argc, argv) { data, count in
        let body = Data(FuzzInput.bytes(data, count))
        for response in ResponseBodies.registrations(in: body) {
            FuzzInput.wait {
                _ = try? await RegistrationVerifier(policy: FuzzFixtures.policy).verify(
                    response, expectedChallenge: FuzzFixtures.registrationChallenge)
            }
        }
        for response in ResponseBodies.authentications(in: body) {
            guard let credential = FuzzFixtures.credential else { continue }
            _ = try? AuthenticationVerifier(policy: FuzzFixtures.policy).verify(
                response, expectedChallenge: FuzzFixtures.authenticationChallenge, credential: credential)
        }
        return 0
    }
}
