/// The version of OpenRealm — the libraries, the server and its command line — in one
/// place: `openrealm-server --version` prints it and the server logs it at start.
/// Semantic versioning; raise it with each release (CHANGELOG.md).
public enum OpenRealmVersion {
    /// The version, e.g. `0.1.0`.
    public static let current = "0.1.0"
}
