import CPKCS11
import Foundation
import Synchronization

/// Why a PKCS #11 operation failed: the function, its `CKR_` code by name, and what to do.
/// Never carries the PIN.
package struct PKCS11Failure: Error, Sendable, CustomStringConvertible {
    package let description: String
    /// The `CK_RV` the module returned, when it returned one.
    package let code: UInt?

    init(_ description: String, code: UInt? = nil) {
        self.description = description
        self.code = code
    }

    /// Whether the request named something unusable (no such key, the wrong type, several
    /// matches), not a failure of the token itself.
    package var isRequestProblem: Bool { code == nil }

    /// A module's answer that means the session is gone and a new one may succeed.
    var sessionLost: Bool {
        guard let code else { return false }
        return [
            PKCS11.sessionHandleInvalid, PKCS11.sessionClosed, PKCS11.deviceRemoved, PKCS11.tokenNotPresent,
            PKCS11.userNotLoggedIn, PKCS11.deviceError,
        ].contains(code)
    }
}

/// The PKCS #11 (v2.40) constants UMFA uses.
enum PKCS11 {
    static let ok: UInt = 0x0
    static let deviceError: UInt = 0x30
    static let deviceRemoved: UInt = 0x32
    static let pinIncorrect: UInt = 0xA0
    static let pinLocked: UInt = 0xA4
    static let sessionClosed: UInt = 0xB0
    static let sessionHandleInvalid: UInt = 0xB3
    static let tokenNotPresent: UInt = 0xE0
    static let userAlreadyLoggedIn: UInt = 0x100
    static let userNotLoggedIn: UInt = 0x101
    static let cryptokiAlreadyInitialized: UInt = 0x191

    static let serialSession: UInt = 0x4
    static let osLockingOK: UInt = 0x2
    static let user: UInt = 1

    static let classAttribute: UInt = 0x0
    static let label: UInt = 0x3
    static let keyType: UInt = 0x100
    static let id: UInt = 0x102
    static let modulus: UInt = 0x120
    static let publicExponent: UInt = 0x122
    static let ecParams: UInt = 0x180
    static let ecPoint: UInt = 0x181

    static let rsaKey: UInt = 0
    static let ecKey: UInt = 3

    static let publicKeyClass: UInt = 2
    static let privateKeyClass: UInt = 3

    static let ecdsa: UInt = 0x1041
    static let sha256RSAPKCS: UInt = 0x40

    /// Names for the codes an operator may meet.
    static func name(_ code: UInt) -> String {
        switch code {
        case pinIncorrect: "CKR_PIN_INCORRECT"
        case pinLocked: "CKR_PIN_LOCKED"
        case tokenNotPresent: "CKR_TOKEN_NOT_PRESENT"
        case deviceRemoved: "CKR_DEVICE_REMOVED"
        case sessionHandleInvalid: "CKR_SESSION_HANDLE_INVALID"
        case sessionClosed: "CKR_SESSION_CLOSED"
        case userNotLoggedIn: "CKR_USER_NOT_LOGGED_IN"
        case deviceError: "CKR_DEVICE_ERROR"
        default: "CKR 0x" + String(code, radix: 16)
        }
    }
}

/// A PKCS #11 module (`UMFA_PKCS11_MODULE`, a shared library such as SoftHSM2's
/// `libsofthsm2.so`), loaded and initialised once per process, for the library's own locking.
package final class PKCS11Module: Sendable {
    /// The module's path.
    package let path: String
    nonisolated(unsafe) let functions: UnsafeMutablePointer<UMFACKFunctionList>

    /// Loads and initialises the module at `path`.
    package init(path: String) throws(PKCS11Failure) {
        self.path = path
        guard let library = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "unknown reason"
            throw PKCS11Failure("cannot load the PKCS #11 module \(path): \(reason)")
        }
        guard let symbol = dlsym(library, "C_GetFunctionList") else {
            throw PKCS11Failure("\(path) is not a PKCS #11 module (no C_GetFunctionList)")
        }
        let getFunctionList = unsafeBitCast(symbol, to: UMFACKGetFunctionList.self)
        var list: UnsafeMutablePointer<UMFACKFunctionList>?
        let listed = getFunctionList(&list)
        guard listed == PKCS11.ok, let list else {
            throw PKCS11Failure("the PKCS #11 module \(path) gave no function list", code: listed)
        }
        functions = list
        var arguments = UMFACKInitializeArgs(
            createMutex: nil, destroyMutex: nil, lockMutex: nil, unlockMutex: nil, flags: PKCS11.osLockingOK,
            reserved: nil)
        let initialized = functions.pointee.initialize(&arguments)
        guard initialized == PKCS11.ok || initialized == PKCS11.cryptokiAlreadyInitialized else {
            throw PKCS11Failure(
                "the PKCS #11 module \(path) did not initialise (\(PKCS11.name(initialized)))", code: initialized)
        }
    }

    /// Throws unless `code` is `CKR_OK`.
    func check(_ code: UInt, _ function: String) throws(PKCS11Failure) {
        guard code == PKCS11.ok else {
            throw PKCS11Failure("\(function) failed (\(PKCS11.name(code)))", code: code)
        }
    }

    /// The slot holding the token `uri` names.
    func slot(for uri: PKCS11URI) throws(PKCS11Failure) -> UInt {
        var count: UInt = 0
        try check(functions.pointee.getSlotList(1, nil, &count), "C_GetSlotList")
        var slots = [UInt](repeating: 0, count: Int(count))
        try check(functions.pointee.getSlotList(1, &slots, &count), "C_GetSlotList")
        var matches: [UInt] = []
        for slot in slots.prefix(Int(count)) {
            if let wanted = uri.slotID, wanted != slot { continue }
            // CK_TOKEN_INFO begins with label[32], manufacturerID[32], model[16] and
            // serialNumber[16], each padded with spaces; the rest is not read.
            var information = [UInt8](repeating: 0, count: 512)
            guard functions.pointee.getTokenInfo(slot, &information) == PKCS11.ok else { continue }
            if let token = uri.token, token != Self.padded(information[0..<32]) { continue }
            if let wanted = uri.manufacturer, wanted != Self.padded(information[32..<64]) { continue }
            if let wanted = uri.model, wanted != Self.padded(information[64..<80]) { continue }
            if let wanted = uri.serial, wanted != Self.padded(information[80..<96]) { continue }
            matches.append(slot)
        }
        guard matches.count <= 1 else {
            throw PKCS11Failure("several tokens match \(uri): name one (serial= or slot-id=)")
        }
        guard let slot = matches.first else { throw PKCS11Failure("no token matches \(uri) in \(path)") }
        return slot
    }

    private static func padded(_ bytes: ArraySlice<UInt8>) -> String {
        var text = String(decoding: bytes, as: UTF8.self)
        while text.last == " " || text.last == "\0" { text.removeLast() }
        return text
    }
}
