import Foundation
import Hummingbird
import UMFAStorage

/// The documents that associate native apps with this server's domain (docs/contract.md §5), built
/// from every application's `apple_app_ids` and `android_apps`:
///
/// - `/.well-known/apple-app-site-association`: `webcredentials` (the apps may use passkeys
///   of this domain) and `applinks` for `/open` (app links of out-of-band operations, §7).
/// - `/.well-known/assetlinks.json` (Digital Asset Links): `handle_all_urls` and
///   `get_login_creds` for each Android app and its signing-certificate fingerprints.
///
/// A platform fetches them from the host a passkey's RP ID names, so they take effect when UMFA
/// answers on that host (or the application's site serves UMFA's documents there).
struct AppSiteAssociationRoutes: Sendable {
    let store: any ApplicationStore

    var apple: RouteHandler {
        { _, _ in
            let applications = try await store.applications()
            return try Self.response(Self.appleDocument(appIDs: applications.flatMap(\.appleAppIDs)))
        }
    }

    var android: RouteHandler {
        { _, _ in
            let applications = try await store.applications()
            return try Self.response(Self.androidStatements(apps: applications.flatMap(\.androidApps)))
        }
    }

    /// The Apple document for `appIDs` (duplicates removed, order kept).
    static func appleDocument(appIDs: [String]) -> AppleAppSiteAssociation {
        var seen = Set<String>()
        let ids = appIDs.filter { seen.insert($0).inserted }
        return AppleAppSiteAssociation(
            webcredentials: .init(apps: ids),
            applinks: .init(details: ids.isEmpty ? [] : [.init(appIDs: ids, components: [.init(path: "/open*")])]))
    }

    /// One Digital Asset Links statement per Android app.
    static func androidStatements(apps: [AndroidAppIdentity]) -> [AssetLinkStatement] {
        apps.map { app in
            AssetLinkStatement(
                relation: ["delegate_permission/common.handle_all_urls", "delegate_permission/common.get_login_creds"],
                target: .init(
                    namespace: "android_app", packageName: app.packageName,
                    sha256CertFingerprints: app.sha256CertFingerprints))
        }
    }

    /// JSON, served as `application/json` without a redirect, as both platforms require;
    /// cacheable for an hour (Apple's CDN and Google's verifier fetch it rarely anyway).
    private static func response(_ body: some Encodable & Sendable) throws -> Response {
        var response = try JSONExchange.response(body)
        response.headers[.cacheControl] = "public, max-age=3600"
        return response
    }
}

/// `apple-app-site-association`, as Apple's Supporting Associated Domains documents it.
struct AppleAppSiteAssociation: Codable, Sendable, Equatable {
    struct WebCredentials: Codable, Sendable, Equatable {
        let apps: [String]
    }

    struct AppLinks: Codable, Sendable, Equatable {
        struct Detail: Codable, Sendable, Equatable {
            let appIDs: [String]
            let components: [Component]
        }

        struct Component: Codable, Sendable, Equatable {
            let path: String

            enum CodingKeys: String, CodingKey {
                case path = "/"
            }
        }

        let details: [Detail]
    }

    let webcredentials: WebCredentials
    let applinks: AppLinks
}

/// One statement of `assetlinks.json` (Digital Asset Links).
struct AssetLinkStatement: Codable, Sendable, Equatable {
    struct Target: Codable, Sendable, Equatable {
        let namespace: String
        let packageName: String
        let sha256CertFingerprints: [String]

        enum CodingKeys: String, CodingKey {
            case namespace
            case packageName = "package_name"
            case sha256CertFingerprints = "sha256_cert_fingerprints"
        }
    }

    let relation: [String]
    let target: Target
}
