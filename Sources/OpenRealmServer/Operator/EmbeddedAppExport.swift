import Foundation
import OpenRealmQuery
import OpenRealmWire

/// One app of a data directory, read whole for moving it to another store
/// (`openrealm-server migrate`, which writes it to PostgreSQL: module
/// `OpenRealmPostgres`, `Migration/`). It reads everything the embedded store keeps of
/// the app (``AppStore``'s tables and metadata) as the storage seam's records, so that
/// the writer never names an ORCore table.
///
/// The caller holds the data directory's lock (``DataDirectoryLock``): no server
/// writes the store meanwhile, so reads in separate transactions agree.
package final class EmbeddedAppExport {
    /// The app id.
    package let appId: String
    /// The app's store file, named in errors.
    package let path: String
    private let store: AppStore

    /// Opens app `appId` of `dataDirectory` after verifying its file page by page and
    /// logically (as `openrealm-server check` does).
    ///
    /// - Throws: ``ServerError`` naming the file when it is missing, unreadable or damaged.
    package init(dataDirectory: URL, appId: String) throws {
        let directory = DataDirectory(dataDirectory)
        self.appId = appId
        path = directory.storePath(appId: appId)
        guard FileManager.default.fileExists(atPath: path) else {
            throw ServerError("app '\(appId)' has no store in '\(dataDirectory.path)' (no file '\(path)')")
        }
        if let damage = try Self.verify(path, appId: appId) {
            throw ServerError("the store of app '\(appId)' ('\(path)') is damaged: \(damage.problems) problem(s), the first: "
                + "\(damage.first); nothing was moved (see 'openrealm-server check' and 'backup')")
        }
        do {
            store = try AppStore(appId: appId, directory: directory.appsDirectory.appendingPathComponent(appId))
        } catch {
            throw ServerError("cannot open the store of app '\(appId)' ('\(path)'): \(error)")
        }
    }

    /// The file's damage, or nil when it is sound. The file is closed again before the
    /// store opens it (an ORCore file is opened once per process).
    private static func verify(_ path: String, appId: String) throws -> (problems: Int, first: String)? {
        let file: StoreFile
        do {
            file = try StoreFile(path: path, verify: true)
        } catch {
            throw ServerError("the store of app '\(appId)' ('\(path)') cannot be read: \(error); nothing was moved")
        }
        return file.check()
    }

    /// Runs `body` on one committed snapshot of the store.
    ///
    /// - Throws: ``ServerError`` naming the file when the store cannot be read; the
    ///   body's own errors as they are.
    package func read<T>(_ body: (EmbeddedAppSnapshot) throws -> T) throws -> T {
        try store.environment.read { txn in
            try body(EmbeddedAppSnapshot(txn: txn, appId: appId, path: path))
        }
    }
}

/// A mailed token pair as the store keeps it (only the token's SHA-256).
package struct ExportedEmailToken: Sendable, Hashable {
    package var id: String
    package var userId: String
    /// ``OutgoingMail/Purpose``'s raw value.
    package var purpose: String
    package var tokenHash: String
    package var expiresAt: Int64
}

/// Everything the embedded store keeps of one client file.
package struct ExportedClientFile: Sendable {
    /// Its identity, user and last integrated client version.
    package var record: ClientFileRecord
    /// When it was made (milliseconds since the epoch).
    package var createdAt: Int64
    /// The view it completed last.
    package var completedView: CompletedView?
    /// The last server version it reported integrating.
    package var lastServerVersion: UInt64?
    /// When it was last seen (milliseconds since the epoch).
    package var lastSeenAt: Int64?
    /// Its upload record: the hold (nil: the history's floor) and the uploads after it.
    package var uploads: UploadRecord
    /// What the server sent it whole.
    package var bootstrapCopies: BootstrapCopies
    /// Its restore mark's ceiling (a backup's copy knew it and it has not bound since);
    /// nil when it has none.
    package var restoreCeiling: UInt64?
}

/// A top-level object with what the store keeps beside its values.
package struct ExportedObject: Sendable {
    package var image: ObjectImage
    /// The stamps of the last write of each of its properties.
    package var clocks: PropertyClocks
    /// Its hidden partition (``HiddenColumn/partition``), or nil.
    package var partition: String?
}

/// One read transaction of an ``EmbeddedAppExport``.
package struct EmbeddedAppSnapshot {
    let txn: StoreTransaction
    let appId: String
    let path: String

    /// The latest server version.
    package func serverVersion() throws -> UInt64 { try txn.serverVersion() }

    /// The version the history is trimmed through (0: nothing trimmed).
    package func historyFloor() throws -> UInt64 { try txn.historyFloor() }

    /// The entry of `version`.
    ///
    /// - Throws: ``ServerError`` naming the file when a version between the floor and the
    ///   latest has no entry.
    package func historyEntry(_ version: UInt64) throws -> HistoryEntry {
        guard let entry = try txn.historyEntry(version) else {
            throw ServerError("the store of app '\(appId)' ('\(path)') has no history entry for server version \(version), "
                + "above its floor \(try historyFloor()): the store is damaged; nothing of it was moved")
        }
        return entry
    }

    /// The post-images kept with `version`'s entry (stores several engines shared); nil
    /// when none were kept.
    package func postImages(_ version: UInt64) throws -> PostImages? { try txn.postImages(version) }

    /// The ident the store would hand the next new client file.
    package func nextClientFileIdent() throws -> UInt64 { try txn.metaUInt64("server.next_ident") ?? 1 }

    /// The development sync mode: partition-based (true), flexible (false), or nil while undecided.
    package func developmentPartitioned() throws -> Bool? {
        try txn.metaUInt64("development.partitioned").map { $0 == 1 }
    }

    /// The synced schema, hidden columns with their classes.
    package func schema() throws -> SyncSchema { try txn.schema() }

    // MARK: Accounts

    /// Every user.
    package func users() throws -> [UserRecord] {
        try txn.allRows("__users").compactMap { row in
            row.string("_id").map { id in
                UserRecord(id: id, provider: row.string("provider") ?? "", email: row.string("email"),
                           passwordHash: row.string("passwordHash"), emailConfirmed: row.bool("emailConfirmed") ?? false,
                           createdAt: row.int("createdAt") ?? 0)
            }
        }
    }

    /// The claimed emails (email/password logins) and their users.
    package func emailClaims() throws -> [(email: String, userId: String)] {
        try txn.allRows("__user_emails").compactMap { row in
            guard let email = row.string("_id"), let userId = row.string("userId") else { return nil }
            return (email, userId)
        }
    }

    /// Every refresh token's record.
    package func refreshTokens() throws -> [RefreshTokenRecord] {
        try txn.allRows("__refresh_tokens").compactMap { row in
            guard let id = row.string("_id"), let userId = row.string("userId") else { return nil }
            return RefreshTokenRecord(id: id, userId: userId, expiresAt: row.int("expiresAt") ?? 0, revoked: row.bool("revoked") ?? true)
        }
    }

    /// Every API key (their hashes).
    package func apiKeys() throws -> [APIKeyRecord] {
        try txn.allRows("__api_keys").compactMap { row in
            guard let id = row.string("_id"), let userId = row.string("userId"), let keyHash = row.string("keyHash") else { return nil }
            return APIKeyRecord(id: id, userId: userId, name: row.string("name") ?? "", keyHash: keyHash,
                                disabled: row.bool("disabled") ?? false, createdAt: row.int("createdAt") ?? 0)
        }
    }

    /// Every mailed token pair.
    package func emailTokens() throws -> [ExportedEmailToken] {
        try txn.allRows("__email_tokens").compactMap { row in
            guard let id = row.string("_id"), let userId = row.string("userId"), let purpose = row.string("purpose"),
                  let tokenHash = row.string("tokenHash") else { return nil }
            return ExportedEmailToken(id: id, userId: userId, purpose: purpose, tokenHash: tokenHash, expiresAt: row.int("expiresAt") ?? 0)
        }
    }

    // MARK: Client files

    /// Every client file, by ident.
    ///
    /// - Throws: ``ServerError`` naming the file when a file's upload record or
    ///   bootstrap copies are damaged.
    package func clientFiles() throws -> [ExportedClientFile] {
        var files: [ExportedClientFile] = []
        for row in try txn.allRows("__client_files") {
            guard let raw = row.int("_id"), raw > 0 else { continue }
            let ident = UInt64(raw)
            do {
                let view: CompletedView? = {
                    guard let at = row.int("viewServerVersion"), at > 0, let record = row.string("view") else { return nil }
                    return CompletedView(serverVersion: UInt64(at), record: record)
                }()
                files.append(ExportedClientFile(
                    record: ClientFileRecord(ident: ident, salt: UInt64(max(0, row.int("salt") ?? 0)), userId: row.string("userId") ?? "",
                                             lastIntegratedClientVersion: UInt64(max(0, row.int("lastIntegratedClientVersion") ?? 0))),
                    createdAt: row.int("createdAt") ?? 0, completedView: view,
                    lastServerVersion: row.int("lastServerVersion").map { UInt64(max(0, $0)) }, lastSeenAt: row.int("lastSeenAt"),
                    uploads: try UploadRecords.read(txn, ident: ident, row: row).record,
                    bootstrapCopies: try BootstrapCopies.read(txn, ident: ident),
                    restoreCeiling: try txn.restoreCeiling(ident)))
            } catch {
                throw ServerError("the store of app '\(appId)' ('\(path)'): client file \(ident) cannot be read: \(error); nothing of it was moved")
            }
        }
        return files.sorted { $0.record.ident < $1.record.ident }
    }

    // MARK: Objects

    /// The top-level objects of class `className`, in the store's key order (the order
    /// they were made, by which sets of links are ordered).
    package func objectRefs(of className: String) throws -> [WireObjectRef] {
        try txn.matching(.truePredicate, in: className, among: nil)
    }

    /// The objects `refs` names (all of one class), with their clocks and hidden
    /// partitions; references to objects that do not exist are left out.
    package func objects(_ refs: [WireObjectRef]) throws -> [ExportedObject] {
        let schema = try txn.schema()
        // A working set that is never finished only reads: the clocks from each row, or
        // from the `__clocks` table of a store written before they moved into the rows.
        let reader = try txn.workingSet(WorkingSetRequest([]))
        var out: [ExportedObject] = []
        out.reserveCapacity(refs.count)
        for image in try txn.images(refs) {
            let ref = image.ref
            var partition: String?
            if let cls = schema.topLevelClass(named: ref.className), let column = cls.hiddenColumn(.partition),
               let key = try txn.findObject(cls, ref.primaryKey), case .string(let value) = try txn.value(cls, key, column) {
                partition = value
            }
            out.append(ExportedObject(image: image, clocks: try reader.clocks(of: ref), partition: partition))
        }
        return out
    }
}

extension EmbeddedAppExport {
    /// The token keys of the server that ran on `dataDirectory`: its `signing.key` (and
    /// `signing.key.previous`), or the key it was given (`source`) and the retired ones
    /// (`previous`), for moving them with its apps.
    ///
    /// - Throws: ``ServerError`` when the data directory holds no key and none is given
    ///   (one is never made here: the tokens the server issued would not verify), or a
    ///   key cannot be read.
    package static func signingKeyRing(dataDirectory: URL, source: SigningKeySource = .dataDirectory,
                                       previous: [SigningKeySource] = []) throws -> SigningKeyRing {
        if source == .dataDirectory {
            let file = dataDirectory.appendingPathComponent(SigningKey.fileName)
            guard FileManager.default.fileExists(atPath: file.path) else {
                throw ServerError("the data directory '\(dataDirectory.path)' holds no \(SigningKey.fileName): give the key its server "
                    + "signed tokens with (--signing-key-file or --signing-key-env), so that they verify after the move")
            }
        }
        return try ConfiguredSigningKeys(source: source, previous: previous, dataDirectory: dataDirectory).ring()
    }
}
