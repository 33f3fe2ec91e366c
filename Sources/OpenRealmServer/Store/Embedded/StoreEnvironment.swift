import ORCore
import OpenRealmSyncCore

/// How the server opens its store files: an ``ORCoreEnvironment`` (the sync core's owner
/// of the handle, which closes it when it goes) with the server's flags.
extension ORCoreEnvironment {
    /// Opens (creating) the app store at `path`.
    ///
    /// The store keeps no ORCore changeset log (`ORC_ENV_NO_LOG`): its history is the
    /// server's own (`__history`), and nothing reads the engine's; a store an earlier
    /// build wrote has its log emptied by the first commit. The file and its lock file
    /// are private to the server's user (0600).
    ///
    /// - Throws: ``StoreError`` when ORCore cannot open the file (not a realm, damaged,
    ///   permission denied, ...), with ORCore's status.
    static func openStore(path: String) throws(StoreError) -> ORCoreEnvironment {
        try ORCoreEnvironment(path: path, flags: UInt32(ORC_ENV_NO_LOG), fileMode: 0o600)
    }

    /// Opens the existing store at `path` read-only, for an operator's copy or check
    /// beside a server that may be writing it; `verify` checks every page's structure
    /// first (for files that may be damaged).
    ///
    /// - Throws: ``StoreError`` naming the file and ORCore's reason, with its status.
    static func openExistingStore(path: String, verify: Bool) throws(StoreError) -> ORCoreEnvironment {
        let flags = UInt32(ORC_ENV_READ_ONLY) | UInt32(ORC_ENV_NO_CREATE) | (verify ? UInt32(ORC_ENV_VERIFY) : 0)
        return try ORCoreEnvironment(path: path, flags: flags)
    }
}
