import Foundation
import OpenRealmWire

/// What makes a backup safe to restore: a restored store forgets every server version
/// after the backup, and the clients that downloaded one of them — or had an upload
/// acknowledged at one — must not carry on as if the server still had it.
///
/// A file that comes back with a version the store never produced is refused already
/// (`checkBind`), but only until the restored server has committed as many versions
/// again: from then on the same numbers name other changesets, and the file would
/// silently miss them while its own acknowledged uploads stay lost. So the copy a backup
/// writes records, in `__restored_files`, every client file it knows with the server
/// version of the backup as its **ceiling**: a marked file that binds reporting more
/// than its ceiling gets `clientResetRequired`; one at or below it synced nothing past
/// the backup (an acknowledgement comes with a download of the version that integrated
/// the upload) and its mark is removed, so that its later binds are ordinary. Files the
/// copy does not know (made after the backup) are unknown to the restored server and
/// reset anyway; their idents may be handed out again, with new salts.
///
/// A copy of a copy keeps each file's lowest ceiling.
///
/// | table | key | columns |
/// |---|---|---|
/// | `__restored_files` | file ident | `ceiling`: the server version of the backup the file was marked in |
extension AppStore {
    /// Marks every client file of the store as restored at its latest server version.
    /// Run on a backup's copy, never on a live store.
    ///
    /// - Returns: the ceiling (the copy's server version) and how many files were marked.
    @discardableResult
    func markAsRestorable() throws -> (serverVersion: UInt64, files: Int) {
        try environment.write { txn in
            let ceiling = try txn.metaUInt64("server.version") ?? 0
            var marked = 0
            for row in try txn.allRows("__client_files") {
                guard let ident = row.int("_id") else { continue }
                if let existing = try txn.readRow("__restored_files", .int(ident)) {
                    if (existing.int("ceiling") ?? 0) > Int64(ceiling) {
                        try txn.updateRow("__restored_files", .int(ident), ["ceiling": .int(Int64(ceiling))])
                    }
                } else {
                    try txn.insertRow("__restored_files", ["_id": .int(ident), "ceiling": .int(Int64(ceiling))])
                }
                marked += 1
            }
            return (ceiling, marked)
        }
    }

    /// The ceiling of client file `ident`'s restore mark, or nil when it has none (the
    /// engine admits its bind: `SyncConnection`'s `admitRestored`).
    static func restoreCeiling(_ txn: StoreTransaction, ident: UInt64) throws -> UInt64? {
        guard ident <= UInt64(Int64.max), let mark = try txn.readRow("__restored_files", .int(Int64(ident))) else { return nil }
        return UInt64(max(0, mark.int("ceiling") ?? 0))
    }

    /// Removes client file `ident`'s restore mark (it bound at or below its ceiling).
    static func removeRestoreMark(_ txn: StoreTransaction, ident: UInt64) throws {
        guard ident <= UInt64(Int64.max) else { return }
        try txn.deleteRow("__restored_files", .int(Int64(ident)))
    }
}
