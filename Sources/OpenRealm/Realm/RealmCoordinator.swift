import Foundation
import ORCore
import Synchronization

/// One open realm file in this process: the ORCore environment, the bindings of model
/// classes to tables, and the lifetime of in-memory data. Every `Realm` instance of
/// the file holds its coordinator; the environment closes (and in-memory data is
/// deleted) when the last one goes.
package final class RealmCoordinator: @unchecked Sendable {
    package let path: String
    package let env: OpaquePointer
    let isInMemory: Bool
    /// Watches the file for commits and keeps the changeset log for notifications.
    package let notifier: FileNotifier
    /// Orders `asyncWrite` calls of this process without blocking their actors.
    let asyncWriteGate = AsyncWriteGate()
    private let state = Mutex<State>(State())
    /// Bumped whenever a binding is made or replaced, so that a realm's cached binding
    /// (``RealmState/lastBound``) is checked with one load instead of the lock and a lookup.
    private let generation = Atomic<UInt64>(0)

    struct State {
        var bindings: [ObjectIdentifier: BoundClass] = [:]
        var byTable: [UInt32: BoundClass] = [:]
        var stored: StoredSchema?
        var storedVersion: UInt64 = .max
        var schemaVersion: UInt64?
    }

    /// The files this process has open, by path.
    private static let openFiles = OpenFiles()

    static let schemaVersionKey = "openrealm.schemaVersion"

    private init(path: String, env: OpaquePointer, isInMemory: Bool, readOnly: Bool) {
        self.path = path
        self.env = env
        self.isInMemory = isInMemory
        notifier = FileNotifier(env: env, path: path, readOnly: readOnly, inMemory: isInMemory)
    }

    deinit {
        Logger.db(.detail, "Close file: \(path)")
        notifier.close()
        orc_env_close(env)
        if isInMemory { _ = orc_env_delete_files(path) }
        Self.openFiles.closed(path, env)
    }

    /// The coordinator of the configuration's file, opening the file if this process
    /// has not got it open.
    static func coordinator(for configuration: Realm.Configuration) throws(RealmError) -> RealmCoordinator {
        if configuration.encryptionKey != nil {
            throw RealmError(.fail, "Encrypted realms are not supported by OpenRealm: open the realm without an encryptionKey.",
                             fileURL: configuration.fileURL)
        }
        let path = try configuration.resolvedPath()
        return try openFiles.coordinator(path) { () throws(RealmError) in try openFile(path, configuration) }
    }

    /// Deletes the file of a coordinator only the caller holds and opens it anew
    /// (`deleteRealmIfMigrationNeeded`).
    static func recreate(_ coordinator: inout RealmCoordinator?, _ configuration: Realm.Configuration) throws(RealmError) -> RealmCoordinator {
        let path = coordinator!.path
        guard isKnownUniquelyReferenced(&coordinator!) else {
            throw RealmError(.schemaMismatch, "The schema of '\(path)' needs a migration and the file cannot be deleted: it is open elsewhere in this process.")
        }
        coordinator = nil  // closes the file (the deinit runs here: the caller held the only reference)
        if !configuration.isInMemory {
            try ORC.check(orc_env_delete_files(path), "Deleting '\(path)' for deleteRealmIfMigrationNeeded")
        }
        return try Self.coordinator(for: configuration)
    }

    /// Whether this process has the file open.
    /// Makes the next open of `path` open the file there anew, whatever this process
    /// still holds of the file that was there (``OpenFiles/forget(_:)``).
    package static func forgetOpenFile(_ path: String) {
        openFiles.forget(path)
    }

    static func isOpen(_ path: String) -> Bool {
        openFiles.isOpen(path)
    }

    private static func openFile(_ path: String, _ configuration: Realm.Configuration) throws(RealmError) -> RealmCoordinator {
        let fm = FileManager.default
        if !configuration.isInMemory, let seed = configuration.seedFilePath, !fm.fileExists(atPath: path) {
            guard fm.fileExists(atPath: seed.path) else {
                throw RealmError(.fileNotFound, "The seed file '\(seed.path)' does not exist.")
            }
            do { try fm.copyItem(atPath: seed.path, toPath: path) } catch {
                throw RealmError(.fileAccess, "Copying the seed file '\(seed.path)' to '\(path)' failed: \(error.localizedDescription)")
            }
        }
        var flags: UInt32 = 0
        if configuration.isInMemory { flags |= UInt32(ORC_ENV_NO_SYNC) }
        if configuration.durability == .skipMetaSync { flags |= UInt32(ORC_ENV_NO_META_SYNC) }
        // A local realm's log serves notifications only, which hold it while they need it:
        // a bulk write that nothing holds the log for is not kept. A synced realm's log is
        // what it uploads, so it keeps everything.
        if configuration.sync == nil { flags |= UInt32(ORC_ENV_LEAN_LOG) }
        if configuration.readOnly {
            flags |= UInt32(ORC_ENV_READ_ONLY)
            if !fm.fileExists(atPath: path) {
                throw RealmError(.fileNotFound, "Failed to open Realm file at path '\(path)': No such file or directory",
                                 fileURL: URL(fileURLWithPath: path))
            }
        }
        var env: OpaquePointer?
        Logger.db(.detail, "Open file: \(path)\(configuration.readOnly ? " (read-only)" : "")")
        try check(orc_env_open(path, flags, nil, &env), opening: path)
        if let shouldCompact = configuration.shouldCompactOnLaunch, !configuration.readOnly, !configuration.isInMemory {
            var info = orc_env_info()
            let total = (try? fm.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            if orc_env_info_get(env, &info) == ORC_OK, shouldCompact(total, info.used_bytes) {
                env = try compact(env!, path: path, flags: flags)
            }
        }
        return RealmCoordinator(path: path, env: env!, isInMemory: configuration.isInMemory, readOnly: configuration.readOnly)
    }

    private static func compact(_ env: OpaquePointer, path: String, flags: UInt32) throws(RealmError) -> OpaquePointer {
        let temporary = path + ".compact-\(getpid())"
        _ = orc_env_delete_files(temporary)
        let status = orc_env_copy(env, temporary)
        orc_env_close(env)
        if status == ORC_OK {
            if rename(temporary, path) != 0 { _ = orc_env_delete_files(temporary) }
        } else {
            _ = orc_env_delete_files(temporary)
        }
        var reopened: OpaquePointer?
        try check(orc_env_open(path, flags, nil, &reopened), opening: path)
        return reopened!
    }

    /// The error for a failed open of the file at `path`, carrying the file's URL; the
    /// file system's failures in the Realm Swift SDK's words.
    static func check(_ status: Int32, opening path: String) throws(RealmError) {
        guard status != ORC_OK else { return }
        let message = ORC.lastMessage
        let url = URL(fileURLWithPath: path)
        switch status {
        case ORC_ERR_NOT_FOUND, 2:
            throw RealmError(.fileNotFound, "Failed to open Realm file at path '\(path)': No such file or directory", fileURL: url)
        case ORC_ERR_NOT_A_REALM, ORC_ERR_CORRUPT:
            throw RealmError(.invalidDatabase, "Cannot open '\(path)': it is not a realm file or it is damaged. \(message)", fileURL: url)
        case 13, 1, 30:
            throw RealmError(.filePermissionDenied, "Failed to open Realm file at path '\(path)': \(String(cString: strerror(status))). "
                             + "Please use a path where your app has read-write permissions.", fileURL: url)
        case 20 /* ENOTDIR */:
            throw RealmError(.fileOperationFailed, "Failed to open file at path '\(path)': parent path is not a directory", fileURL: url)
        default:
            let error = ORC.error(status, "Opening '\(path)'")
            throw RealmError(error.code, error.message, fileURL: url)
        }
    }

    // MARK: Schema and bindings

    /// The stored schema as of `txn` (cached per version).
    func storedSchema(_ txn: OpaquePointer) -> StoredSchema {
        let version = orc_txn_version(txn)
        if !orc_txn_is_write(txn), let cached = state.withLock({ $0.storedVersion == version ? $0.stored : nil }) {
            return cached
        }
        let schema = StoredSchema(txn: txn)
        if !orc_txn_is_write(txn) {
            state.withLock { $0.stored = schema; $0.storedVersion = version }
        }
        return schema
    }

    /// Changes whenever the bindings change.
    var bindingsGeneration: UInt64 { generation.load(ordering: .acquiring) }

    func binding(_ type: ObjectBase.Type) -> BoundClass? {
        state.withLock { $0.bindings[ObjectIdentifier(type)] }
    }

    func binding(table: UInt32) -> BoundClass? {
        state.withLock { $0.byTable[table] }
    }

    func bind(_ info: ObjectTypeInfo, _ entry: StoredSchema.ClassEntry) -> BoundClass {
        state.withLock { s in
            if let existing = s.bindings[ObjectIdentifier(info.type)], existing.table == entry.table,
               existing.columns.count == info.properties.count, !existing.columns.contains(BoundClass.noColumn) || true {
                let fresh = BoundClass(info: info, entry: entry)
                if fresh.columns == existing.columns { return existing }
            }
            let bound = BoundClass(info: info, entry: entry)
            s.bindings[ObjectIdentifier(info.type)] = bound
            s.byTable[entry.table] = bound
            generation.add(1, ordering: .releasing)
            return bound
        }
    }

    func invalidateBindings() {
        state.withLock { s in
            s.bindings.removeAll()
            s.byTable.removeAll()
            generation.add(1, ordering: .releasing)
            s.stored = nil
            s.storedVersion = .max
        }
    }

    static func readSchemaVersion(_ txn: OpaquePointer) -> UInt64? {
        var data: UnsafeRawPointer?
        var size = 0
        guard orc_meta_get(txn, schemaVersionKey, &data, &size) == ORC_OK, size == 8, let data else { return nil }
        return data.loadUnaligned(as: UInt64.self)
    }

    static func writeSchemaVersion(_ txn: OpaquePointer, _ version: UInt64) throws(RealmError) {
        var v = version
        try ORC.check(orc_meta_set(txn, schemaVersionKey, &v, 8), "Storing the schema version")
    }
}
