import Hummingbird
import UMFAContract

/// Every static file the server serves, in one table keyed by the operation that serves it:
/// the demo page's, the hosted pages' and the console's stylesheets and scripts, all embedded in
/// the binary (`Resources/`), each with a strong validator (304 when the browser has it). The
/// console's files go out under its stricter policy (``ConsoleAssets``).
enum StaticFiles {
    private static let css = "text/css; charset=utf-8"
    private static let javaScript = "text/javascript; charset=utf-8"
    private static let webAuthnJSON = DemoAsset(PackageResources.webauthn_json_js, contentType: javaScript)

    /// The file of each static-file operation.
    static let table: [APIOperation: DemoAsset] = [
        .demoStylesheet: DemoAsset(PackageResources.demo_css, contentType: css),
        .demoScript: DemoAsset(PackageResources.demo_js, contentType: javaScript),
        .demoWebAuthnScript: webAuthnJSON,
        .hostedStylesheet: DemoAsset(PackageResources.hosted_css, contentType: css),
        .hostedScript: DemoAsset(PackageResources.hosted_js, contentType: javaScript),
        .hostedWebAuthnScript: webAuthnJSON,
        .hostedRecoveryScript: DemoAsset(PackageResources.hosted_recovery_js, contentType: javaScript),
        .hostedAccountScript: DemoAsset(PackageResources.hosted_account_js, contentType: javaScript),
        .hostedDeviceScript: DemoAsset(PackageResources.hosted_device_js, contentType: javaScript),
        .hostedPageScript: DemoAsset(PackageResources.hosted_page_js, contentType: javaScript),
        .consoleStylesheet: DemoAsset(PackageResources.console_css, contentType: css),
        .consoleScript: DemoAsset(PackageResources.console_js, contentType: javaScript),
        .consoleWebAuthnScript: webAuthnJSON,
    ]

    /// The console's files, served with its policy.
    private static let consoleFiles: Set<APIOperation> = [.consoleStylesheet, .consoleScript, .consoleWebAuthnScript]

    /// The handler of a static-file operation.
    static func handler(_ operation: APIOperation) -> RouteHandler {
        let file = table[operation]
        let console = consoleFiles.contains(operation)
        return { request, _ in
            let response = try DemoPageRoutes.serve(file, request: request)
            return console ? ConsoleAssets.hardened(response) : response
        }
    }
}
