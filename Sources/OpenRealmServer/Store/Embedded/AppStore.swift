import Foundation
#if canImport(Glibc)
import Glibc
#endif
import ORCore
import OpenRealmSyncCore
import OpenRealmWire

/// The embedded store of one app: one ORCore environment at
/// `<data dir>/apps/<app id>/server.realm` holding
///
/// | table | key | what |
/// |---|---|---|
/// | the synced classes | `_id` | the authoritative objects, in classes clients declared (development mode) |
/// | `__history` | server version | each integrated changeset in wire form, its origin file, client version, HLC and time, and the compensating instructions sent to its origin |
/// | `__client_files` | file ident | the salt, the user and the last integrated client version of each client file, the view it last completed, the last server version it reported integrating and when it was last seen |
/// | `__users`, `__user_emails` | user id, email | users, their password hashes and whether their email was confirmed |
/// | `__email_tokens` | token id | mailed confirmation and password reset tokens: user, purpose, SHA-256 of the token, expiry |
/// | `__refresh_tokens` | token id | refresh tokens: user, expiry, revoked |
/// | `__api_keys`, `__api_key_hashes` | key id, SHA-256 of the key | user API keys: user, name, disabled, and the hash (never the key) |
/// | `__restored_files` | file ident | the files a backup's copy knew, until each binds again (``markAsRestorable()``) |
///
/// Each object's clocks — the HLC and origin of the last write of each property — are in
/// its own row, in the hidden column `__clocks` of its class (``Integrator``). Stores
/// written before kept them in a table `__clocks` (key `Class␟pk`), which empties as
/// their objects are written.
///
/// Metadata `server.version` is the latest server version, `server.next_ident` the next
/// client file identity, `server.history_floor` the version up to which the history was
/// trimmed. Names starting with `__` are reserved: clients cannot declare
/// such classes.
///
/// Threading: the store keeps no state of its own beyond the environment: the engine's
/// lock (``SyncApp/syncLock``) serializes the sync work of the app, and every write only
/// takes ORCore's writer lock. Every transaction body is synchronous.
package final class AppStore: @unchecked Sendable {
    /// The app id.
    let appId: String
    let environment: ORCoreEnvironment
    /// The feed of the app's committed versions, for engines that share the store.
    let commitFeed: LocalCommitFeed
    /// The token buckets of logins, mails and new client files: in memory, one set per
    /// process (the file is opened once per process), shared by the engines that share
    /// the store.
    let rateLimits = LoginRateLimiter()

    /// Prefix of the server's own tables (``StorageConventions/reservedPrefix``).
    static let reservedPrefix = StorageConventions.reservedPrefix

    /// Opens (creating) the store of `appId` in `directory`.
    init(appId: String, directory: URL) throws {
        self.appId = appId
        try DataDirectory.makeDirectories(directory.path, what: "the store directory of app '\(appId)'")
        let path = directory.appendingPathComponent("server.realm").path
        environment = try ORCoreEnvironment.openStore(path: path)
        commitFeed = LocalCommitFeed(environment)
        // Stores an earlier build made are readable by others (0644 in 0755): tighten them
        // (the store's own directory and files only: the registry tightens `apps/`).
        for (file, mode) in [(directory.path, 0o700), (path, 0o600), (path + "-lock", 0o600)] as [(String, mode_t)] {
            _ = chmod(file, mode)
        }
        try environment.write { txn in
            try txn.ensureTable("__users", key: ORC_TYPE_STRING, columns: [
                ("provider", ORC_TYPE_STRING, false), ("email", ORC_TYPE_STRING, true),
                ("passwordHash", ORC_TYPE_STRING, true), ("createdAt", ORC_TYPE_INT, false),
                ("emailConfirmed", ORC_TYPE_BOOL, true),
            ])
            try txn.ensureTable("__email_tokens", key: ORC_TYPE_STRING, columns: [
                ("userId", ORC_TYPE_STRING, false), ("purpose", ORC_TYPE_STRING, false),
                ("tokenHash", ORC_TYPE_STRING, false), ("expiresAt", ORC_TYPE_INT, false),
            ])
            try txn.ensureTable("__user_emails", key: ORC_TYPE_STRING, columns: [("userId", ORC_TYPE_STRING, false)])
            try txn.ensureTable("__refresh_tokens", key: ORC_TYPE_STRING, columns: [
                ("userId", ORC_TYPE_STRING, false), ("expiresAt", ORC_TYPE_INT, false), ("revoked", ORC_TYPE_BOOL, false),
            ])
            try txn.ensureTable("__api_keys", key: ORC_TYPE_STRING, columns: [
                ("userId", ORC_TYPE_STRING, false), ("name", ORC_TYPE_STRING, false), ("keyHash", ORC_TYPE_STRING, false),
                ("disabled", ORC_TYPE_BOOL, false), ("createdAt", ORC_TYPE_INT, false),
            ])
            try txn.ensureTable("__api_key_hashes", key: ORC_TYPE_STRING, columns: [("keyId", ORC_TYPE_STRING, false)])
            try txn.ensureTable("__client_files", key: ORC_TYPE_INT, columns: [
                ("salt", ORC_TYPE_INT, false), ("userId", ORC_TYPE_STRING, false),
                ("lastIntegratedClientVersion", ORC_TYPE_INT, false), ("createdAt", ORC_TYPE_INT, false),
                ("viewServerVersion", ORC_TYPE_INT, true), ("view", ORC_TYPE_STRING, true),
                ("lastServerVersion", ORC_TYPE_INT, true), ("lastSeenAt", ORC_TYPE_INT, true),
                ("uploadBase", ORC_TYPE_INT, true), ("uploadsAfterBase", ORC_TYPE_STRING, true),
            ])
            try txn.ensureTable("__history", key: ORC_TYPE_INT, columns: [
                ("originFileIdent", ORC_TYPE_INT, false), ("originClientVersion", ORC_TYPE_INT, false),
                ("hlcMilliseconds", ORC_TYPE_INT, false), ("hlcCounter", ORC_TYPE_INT, false),
                ("integratedAt", ORC_TYPE_INT, false), ("changeset", ORC_TYPE_BINARY, false),
                ("compensation", ORC_TYPE_BINARY, true), ("uploadedListEdits", ORC_TYPE_BINARY, true),
                ("originServerVersion", ORC_TYPE_INT, true),
            ])
            try txn.ensureTable("__restored_files", key: ORC_TYPE_INT, columns: [("ceiling", ORC_TYPE_INT, false)])
        }
    }

    /// Milliseconds since the epoch, now (``StorageConventions/nowMilliseconds``).
    package static var nowMilliseconds: Int64 { StorageConventions.nowMilliseconds }
}
