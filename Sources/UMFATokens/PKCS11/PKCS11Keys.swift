import CPKCS11
import Crypto
import Foundation
import Synchronization
import _CryptoExtras

/// Signing keys kept in PKCS #11 tokens (docs/operators/hsm.md): the module, the user PIN
/// (`UMFA_PKCS11_PIN_FILE`, never logged), and one logged-in session per token.
///
/// Every operation on a token goes through its session under one lock, so a module without
/// thread-safe sessions is never called from two threads at once. A session the module no
/// longer knows (closed, logged out, the token taken out and put back) is opened again, once,
/// and the operation tried again on it.
package final class PKCS11Keys: Sendable {
    package let module: PKCS11Module
    private let pin: [UInt8]
    /// The open session of each slot.
    private let sessions = Mutex<[UInt: UInt]>([:])
    /// Set once the token refused the PIN: no login is tried again until the server restarts
    /// (tokens lock the user PIN after a few wrong tries; each retry would spend one).
    private let pinRefused = Atomic<Bool>(false)

    /// Keys through `module`, logging in with `pin`.
    package init(module: PKCS11Module, pin: String) {
        self.module = module
        self.pin = Array(pin.utf8)
    }

    /// The public key of the key pair `uri` names, as UMFA stores public keys (SubjectPublicKeyInfo
    /// DER), checked to be of `algorithm`: P-256 for ES256, RSA of 2048 bits or more for RS256.
    package func publicKey(_ uri: PKCS11URI, algorithm: TokenSigningAlgorithm) throws -> [UInt8] {
        try withSession(for: uri) { session in
            guard let object = try find(uri, keyClass: PKCS11.publicKeyClass, in: session) else {
                throw PKCS11Failure(
                    "no public key matches \(uri): UMFA reads the public half of the pair from the token")
            }
            let keyType = try attribute(PKCS11.keyType, of: object, in: session)
            let wanted: UInt = algorithm == .rs256 ? PKCS11.rsaKey : PKCS11.ecKey
            guard keyType.count == MemoryLayout<UInt>.size,
                keyType.withUnsafeBytes({ $0.loadUnaligned(as: UInt.self) }) == wanted
            else {
                throw PKCS11Failure(
                    "the key \(uri) is not the \(algorithm == .rs256 ? "RSA" : "EC (P-256)") key \(algorithm.rawValue) needs"
                )
            }
            switch algorithm {
            case .es256:
                let parameters = try attribute(PKCS11.ecParams, of: object, in: session)
                // The DER of the OID 1.2.840.10045.3.1.7 (P-256).
                guard parameters == [0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07] else {
                    throw PKCS11Failure("the key \(uri) is not on P-256, as ES256 needs")
                }
                var point = try attribute(PKCS11.ecPoint, of: object, in: session)
                // CKA_EC_POINT is the DER OCTET STRING of the point (some modules give it bare).
                if point.count == 67, point[0] == 0x04, point[1] == 65 { point.removeFirst(2) }
                guard let key = try? P256.Signing.PublicKey(x963Representation: point) else {
                    throw PKCS11Failure("the public key of \(uri) is not a P-256 point")
                }
                return [UInt8](key.derRepresentation)
            case .rs256:
                let modulus = try attribute(PKCS11.modulus, of: object, in: session)
                let exponent = try attribute(PKCS11.publicExponent, of: object, in: session)
                guard let key = try? _RSA.Signing.PublicKey(n: modulus, e: exponent), key.keySizeInBits >= 2048 else {
                    throw PKCS11Failure("the key \(uri) is not an RSA key of 2048 bits or more, as RS256 needs")
                }
                return [UInt8](key.derRepresentation)
            case .edDSA:
                throw PKCS11Failure("EdDSA keys are not taken from PKCS #11 tokens: use ES256 or RS256")
            }
        }
    }

    /// Checks that the private key `uri` names is on its token and can be used.
    package func checkPrivateKey(_ uri: PKCS11URI) throws {
        try withSession(for: uri) { session in
            guard try find(uri, keyClass: PKCS11.privateKeyClass, in: session) != nil else {
                throw PKCS11Failure("no private key matches \(uri) on its token")
            }
        }
    }

    /// The JWS signature of `algorithm` over `signingInput`, made by the token: ES256 with
    /// `CKM_ECDSA` over the SHA-256 digest (the token answers `R ‖ S`, as JWS wants), RS256
    /// with `CKM_SHA256_RSA_PKCS` over the input itself.
    package func signature(for signingInput: Data, key uri: PKCS11URI, algorithm: TokenSigningAlgorithm) throws -> Data
    {
        let (mechanism, input): (UInt, [UInt8]) =
            switch algorithm {
            case .es256: (PKCS11.ecdsa, Array(SHA256.hash(data: signingInput)))
            case .rs256: (PKCS11.sha256RSAPKCS, Array(signingInput))
            case .edDSA: throw PKCS11Failure("EdDSA keys are not taken from PKCS #11 tokens")
            }
        return try withSession(for: uri) { session in
            guard let key = try find(uri, keyClass: PKCS11.privateKeyClass, in: session) else {
                throw PKCS11Failure("no private key matches \(uri) on its token (was it removed?)")
            }
            var chosen = UMFACKMechanism(mechanism: mechanism, parameter: nil, length: 0)
            try module.check(module.functions.pointee.signInit(session, &chosen, key), "C_SignInit")
            var data = input
            // First the length (a NULL buffer leaves the operation active), then the signature.
            var length: UInt = 0
            try module.check(module.functions.pointee.sign(session, &data, UInt(data.count), nil, &length), "C_Sign")
            guard length > 0, length <= 2048 else {
                throw PKCS11Failure("the token announced a signature of \(length) bytes", code: PKCS11.deviceError)
            }
            var signature = [UInt8](repeating: 0, count: Int(length))
            try module.check(
                module.functions.pointee.sign(session, &data, UInt(data.count), &signature, &length), "C_Sign")
            return Data(signature.prefix(Int(length)))
        }
    }

    /// Runs `body` on the logged-in session of `uri`'s token, opening one when there is none,
    /// and once more on a new session when the module says the session is gone.
    /// A failure of the module ends the session (an operation left active would refuse every
    /// later one).
    private func withSession<Value>(for uri: PKCS11URI, _ body: (UInt) throws -> Value) throws -> Value {
        try sessions.withLock { sessions in
            let slot = try module.slot(for: uri)
            for attempt in 0..<2 {
                let session = try sessions[slot] ?? open(slot)
                sessions[slot] = session
                do {
                    return try body(session)
                } catch let failure as PKCS11Failure where failure.code != nil {
                    _ = module.functions.pointee.closeSession(session)
                    sessions[slot] = nil
                    guard failure.sessionLost, attempt == 0 else { throw failure }
                }
            }
            throw PKCS11Failure("the session with the token of \(uri) could not be opened again")
        }
    }

    /// A new session on `slot`, logged in as the user.
    private func open(_ slot: UInt) throws -> UInt {
        guard !pinRefused.load(ordering: .relaxed) else {
            throw PKCS11Failure(
                "the token refused the PIN in UMFA_PKCS11_PIN_FILE; no login is tried again until the server restarts",
                code: PKCS11.pinIncorrect)
        }
        var session: UInt = 0
        try module.check(
            module.functions.pointee.openSession(slot, PKCS11.serialSession, nil, nil, &session), "C_OpenSession")
        var pin = pin
        let loggedIn = module.functions.pointee.login(session, PKCS11.user, &pin, UInt(pin.count))
        guard loggedIn == PKCS11.ok || loggedIn == PKCS11.userAlreadyLoggedIn else {
            _ = module.functions.pointee.closeSession(session)
            if loggedIn == PKCS11.pinIncorrect || loggedIn == PKCS11.pinLocked {
                pinRefused.store(true, ordering: .relaxed)
            }
            if loggedIn == PKCS11.pinIncorrect {
                throw PKCS11Failure("the PIN in UMFA_PKCS11_PIN_FILE is not the token's user PIN", code: loggedIn)
            }
            throw PKCS11Failure("C_Login failed (\(PKCS11.name(loggedIn)))", code: loggedIn)
        }
        return session
    }

    /// The object of `keyClass` that `uri` names, or `nil`; throws when several match.
    private func find(_ uri: PKCS11URI, keyClass: UInt, in session: UInt) throws -> UInt? {
        var keyClass = keyClass
        var label = Array((uri.object ?? "").utf8)
        var id = uri.id ?? []
        return try withUnsafeMutableBytes(of: &keyClass) { classBytes in
            try label.withUnsafeMutableBytes { labelBytes in
                try id.withUnsafeMutableBytes { idBytes in
                    var template = [
                        UMFACKAttribute(
                            type: PKCS11.classAttribute, value: classBytes.baseAddress, length: UInt(classBytes.count))
                    ]
                    if uri.object != nil {
                        template.append(
                            UMFACKAttribute(
                                type: PKCS11.label, value: labelBytes.baseAddress, length: UInt(labelBytes.count)))
                    }
                    if uri.id != nil {
                        template.append(
                            UMFACKAttribute(type: PKCS11.id, value: idBytes.baseAddress, length: UInt(idBytes.count)))
                    }
                    try module.check(
                        module.functions.pointee.findObjectsInit(session, &template, UInt(template.count)),
                        "C_FindObjectsInit")
                    defer { _ = module.functions.pointee.findObjectsFinal(session) }
                    var objects = [UInt](repeating: 0, count: 2)
                    var found: UInt = 0
                    try module.check(
                        module.functions.pointee.findObjects(session, &objects, 2, &found), "C_FindObjects")
                    guard found <= 1 else {
                        throw PKCS11Failure("several keys match \(uri): name one (object= and id=)")
                    }
                    return found == 1 ? objects[0] : nil
                }
            }
        }
    }

    /// The value of one attribute of `object`.
    private func attribute(_ type: UInt, of object: UInt, in session: UInt) throws -> [UInt8] {
        var query = UMFACKAttribute(type: type, value: nil, length: 0)
        try module.check(module.functions.pointee.getAttributeValue(session, object, &query, 1), "C_GetAttributeValue")
        guard query.length > 0, query.length < 1 << 16 else {
            throw PKCS11Failure("the token gave no value for attribute 0x\(String(type, radix: 16))")
        }
        var value = [UInt8](repeating: 0, count: Int(query.length))
        try value.withUnsafeMutableBytes { bytes in
            query.value = bytes.baseAddress
            try module.check(
                module.functions.pointee.getAttributeValue(session, object, &query, 1), "C_GetAttributeValue")
        }
        return Array(value.prefix(Int(query.length)))
    }
}
