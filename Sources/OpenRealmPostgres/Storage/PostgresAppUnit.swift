import Foundation
import OpenRealmQuery
import OpenRealmServer
import OpenRealmWire
import PostgresNIO

/// One unit of work of an app on PostgreSQL as the sync engine sees it (``AppLockedUnit``,
/// and so ``AppWriteUnit`` and ``AppReadUnit``): the history and client files
/// (``PostgresSyncUnit``), the schema, objects and post-images (``PostgresObjectUnit``)
/// on one ``PostgresUnit``. ``PostgresAppStorage`` makes one per unit and hands it out
/// as the narrowest of the three its unit allows.
///
/// PostgreSQL keeps no restore marks (a database is restored by PostgreSQL's own means,
/// not by `openrealm-server restore`), so ``restoreCeiling(_:)`` is always nil.
package final class PostgresAppUnit: AppLockedUnit, @unchecked Sendable {
    package let unit: PostgresUnit
    package let appId: String
    let sync: PostgresSyncUnit
    let objects: PostgresObjectUnit
    /// The last version this unit appended, to announce on the commit feed.
    private(set) var appended: UInt64?

    package init(_ unit: PostgresUnit, appId: String) {
        self.unit = unit
        self.appId = appId
        sync = PostgresSyncUnit(unit, appId: appId)
        objects = PostgresObjectUnit(unit, appId: appId)
    }

    // MARK: Versions and history

    package func serverVersion() throws -> UInt64 {
        try unit.query("SELECT server_version FROM openrealm_apps WHERE app_id = \(appId)") { rows in
            var version: Int64 = 0
            for try await value in rows.decode(Int64.self) { version = value }
            return UInt64(max(0, version))
        }
    }

    package func historyFloor() throws -> UInt64 { try sync.historyFloor() }

    package func historyEntry(_ serverVersion: UInt64) throws -> HistoryEntry? { try sync.historyEntry(serverVersion) }

    package func appendHistory(_ entry: HistoryEntry) throws {
        try sync.appendHistory(entry)
        appended = entry.serverVersion
    }

    package func trimCandidates() throws -> [TrimCandidate] { try sync.trimCandidates() }

    package func trimHistory(through version: UInt64) throws { try sync.trimHistory(through: version) }

    // MARK: Client files

    package func clientFile(_ ident: UInt64) throws -> ClientFileRecord? { try sync.clientFile(ident) }

    package func uploadBase(_ ident: UInt64) throws -> UInt64 { try sync.uploadBase(ident) }

    package func completedView(_ ident: UInt64) throws -> CompletedView? { try sync.completedView(ident) }

    package func bootstrapCopies(_ ident: UInt64) throws -> BootstrapCopies { try sync.bootstrapCopies(ident) }

    package func recordIntegrated(_ ident: UInt64, clientVersion: UInt64) throws {
        try sync.recordIntegrated(ident, clientVersion: clientVersion)
    }

    package func recordUpload(_ ident: UInt64, base: UInt64, version: UInt64) throws {
        try sync.recordUpload(ident, base: base, version: version)
    }

    package func recordProgress(_ ident: UInt64, serverVersion: UInt64) throws {
        try sync.recordProgress(ident, serverVersion: serverVersion)
    }

    package func setCompletedView(_ ident: UInt64, _ view: CompletedView) throws { try sync.setCompletedView(ident, view) }

    package func setBootstrapCopies(_ copies: BootstrapCopies, for ident: UInt64) throws {
        try sync.setBootstrapCopies(copies, for: ident)
    }

    package func recordSeen(_ idents: [UInt64], now: Int64) throws { try sync.recordSeen(idents, now: now) }

    /// Makes a client file in this unit, as ``PostgresApp/createClientFile(userId:)``
    /// does in a transaction of its own.
    package func createClientFile(userId: String) throws -> ClientFileRecord {
        // Salts travel as u64 but are kept signed: keep them in 0 ..< 2^63.
        let salt = UInt64.random(in: 1...UInt64(Int64.max))
        let now = StorageConventions.nowMilliseconds
        try unit.perform("INSERT INTO openrealm_apps (app_id) VALUES (\(appId)) ON CONFLICT DO NOTHING")
        let ident = try unit.query("""
            INSERT INTO openrealm_client_files (app_id, ident, salt, user_id, created_at, upload_base)
            SELECT \(appId), nextval('openrealm_client_file_idents'), \(Int64(salt)), \(userId), \(now), server_version
            FROM openrealm_apps WHERE app_id = \(appId)
            RETURNING ident
            """) { rows in
            var ident: Int64 = 0
            for try await value in rows.decode(Int64.self) { ident = value }
            return ident
        }
        return ClientFileRecord(ident: UInt64(ident), salt: salt, userId: userId, lastIntegratedClientVersion: 0)
    }

    package func restoreCeiling(_ ident: UInt64) throws -> UInt64? { nil }

    package func removeRestoreMark(_ ident: UInt64) throws {}

    // MARK: Post-images

    package func postImages(_ serverVersion: UInt64) throws -> PostImages? { try objects.postImages(serverVersion) }

    package func recordPostImages(of refs: [WireObjectRef], serverVersion: UInt64) throws {
        try objects.recordPostImages(of: refs, serverVersion: serverVersion)
    }

    // MARK: Schema and objects

    package func schema() throws -> SyncSchema { try objects.schema() }

    package func applySchema(_ instruction: WireInstruction, allowingChanges: Bool) throws {
        try objects.schemaUnit.applySchema(instruction, allowingChanges: allowingChanges)
    }

    package func addHiddenColumn(_ column: HiddenColumn, to cls: StoredClass) throws -> StoredProperty {
        try objects.schemaUnit.addHiddenColumn(column, to: cls)
    }

    package func existing(_ refs: [WireObjectRef]) throws -> Set<WireObjectRef> { try objects.existing(refs) }

    package func matching(_ predicate: QueryPredicate, in className: String, among refs: [WireObjectRef]?) throws -> [WireObjectRef] {
        try objects.matching(predicate, in: className, among: refs)
    }

    package func images(_ refs: [WireObjectRef]) throws -> [ObjectImage] { try objects.images(refs) }

    package func workingSet(_ request: WorkingSetRequest) throws -> PostgresWorkingSet { try objects.workingSet(request) }
}
