/// UMFA's version: the one source of truth for `umfa --version` and the SDK's `versionString`.
public enum UMFAVersion {
    /// The semantic version of this UMFA release.
    public static let string = "0.1.0"
}
