import Foundation
import OpenRealmServer
import OpenRealmWire
import PostgresNIO

/// The sync engine's unit of work on PostgreSQL: an app's history and client files
/// (tables of migration 4, ``PostgresSchema``) read and written inside one
/// ``PostgresUnit``. The writing half is used only inside the app's write lock
/// (``PostgresApp/withWriteLock(_:_:)``), as the embedded store's is inside its write
/// transaction.
///
/// Each call is a round trip, but for upload records: a file's record is read once per
/// unit, kept in memory while its uploads are recorded (a far-behind client's backlog
/// records many) and written back once, before the unit commits. Make one per unit.
package final class PostgresSyncUnit: HistoryWriting, HistoryTrimming, ClientFileWriting, @unchecked Sendable {
    package let unit: PostgresUnit
    package let appId: String
    /// Upload records changed in this unit and not yet written, by file.
    private var pendingUploads: [UInt64: UploadRecord] = [:]
    /// The files of ``pendingUploads`` in the order first recorded.
    private var pendingOrder: [UInt64] = []

    package init(_ unit: PostgresUnit, appId: String) {
        self.unit = unit
        self.appId = appId
    }

    // MARK: History

    package func historyFloor() throws -> UInt64 {
        try unit.query("SELECT history_floor FROM openrealm_apps WHERE app_id = \(appId)") { rows in
            var floor: Int64 = 0
            for try await value in rows.decode(Int64.self) { floor = value }
            return UInt64(max(0, floor))
        }
    }

    package func historyEntry(_ serverVersion: UInt64) throws -> HistoryEntry? {
        guard serverVersion <= UInt64(Int64.max) else { return nil }
        return try unit.query("""
            SELECT origin_file_ident, origin_client_version, hlc_milliseconds, hlc_counter, integrated_at,
                   changeset, compensation, uploaded_list_edits, origin_server_version
            FROM openrealm_history WHERE app_id = \(appId) AND server_version = \(Int64(serverVersion))
            """) { rows -> HistoryEntry? in
            var entry: HistoryEntry?
            for try await (file, client, milliseconds, counter, at, changeset, compensation, edits, originVersion)
                in rows.decode((Int64, Int64, Int64, Int64, Int64, Data, Data, Data, Int64?).self) {
                entry = HistoryEntry(
                    serverVersion: serverVersion, originFileIdent: UInt64(bitPattern: file),
                    originClientVersion: UInt64(bitPattern: client),
                    timestamp: WireHybridTimestamp(milliseconds: UInt64(bitPattern: milliseconds),
                                                   counter: UInt32(truncatingIfNeeded: counter)),
                    integratedAt: at, changeset: Array(changeset), compensation: Array(compensation), uploadedListEdits: Array(edits),
                    originServerVersion: originVersion.map { UInt64(max(0, $0)) })
            }
            return entry
        }
    }

    /// Appends `entry` and makes its version the app's latest (inside the app's lock).
    package func appendHistory(_ entry: HistoryEntry) throws {
        try unit.perform("""
            INSERT INTO openrealm_history (app_id, server_version, origin_file_ident, origin_client_version,
                hlc_milliseconds, hlc_counter, integrated_at, changeset, compensation, uploaded_list_edits, origin_server_version)
            VALUES (\(appId), \(Int64(entry.serverVersion)), \(Int64(bitPattern: entry.originFileIdent)),
                \(Int64(bitPattern: entry.originClientVersion)), \(Int64(bitPattern: entry.timestamp.milliseconds)),
                \(Int64(entry.timestamp.counter)), \(entry.integratedAt), \(Data(entry.changeset)), \(Data(entry.compensation)),
                \(Data(entry.uploadedListEdits)), \(entry.originServerVersion.map { Int64($0) }))
            """)
        try unit.perform("UPDATE openrealm_apps SET server_version = \(Int64(entry.serverVersion)) WHERE app_id = \(appId)")
    }

    // MARK: Trimming

    package func trimCandidates() throws -> [TrimCandidate] {
        // The candidates are read from the table: the records kept back go there first.
        try writeUploads()
        return try unit.query("""
            SELECT ident, upload_base, coalesce(last_seen_at, created_at) FROM openrealm_client_files WHERE app_id = \(appId)
            """) { rows in
            var candidates: [TrimCandidate] = []
            for try await (ident, base, seen) in rows.decode((Int64, Int64?, Int64).self) {
                candidates.append(TrimCandidate(ident: UInt64(max(0, ident)), uploadBase: base.map { UInt64(max(0, $0)) },
                                                lastSeenAt: seen))
            }
            return candidates
        }
    }

    package func recordSeen(_ idents: [UInt64], now: Int64) throws {
        let known = idents.filter { $0 <= UInt64(Int64.max) }.map { Int64($0) }
        guard !known.isEmpty else { return }
        try unit.perform("""
            UPDATE openrealm_client_files SET last_seen_at = \(now) WHERE app_id = \(appId) AND ident = ANY(\(known))
            """)
    }

    package func trimHistory(through version: UInt64) throws {
        let version = Int64(clamping: version)
        try unit.perform("DELETE FROM openrealm_history WHERE app_id = \(appId) AND server_version <= \(version)")
        // The post-images go with their entries (``PostgresObjectUnit``).
        try unit.perform("DELETE FROM openrealm_post_images WHERE app_id = \(appId) AND server_version <= \(version)")
        try unit.perform("""
            UPDATE openrealm_apps SET history_floor = greatest(history_floor, \(version)) WHERE app_id = \(appId)
            """)
    }

    // MARK: Client files

    package func clientFile(_ ident: UInt64) throws -> ClientFileRecord? {
        guard ident <= UInt64(Int64.max) else { return nil }
        return try unit.query("""
            SELECT salt, user_id, last_integrated_client_version FROM openrealm_client_files
            WHERE app_id = \(appId) AND ident = \(Int64(ident))
            """) { rows -> ClientFileRecord? in
            var record: ClientFileRecord?
            for try await (salt, userId, integrated) in rows.decode((Int64, String, Int64).self) {
                record = ClientFileRecord(ident: ident, salt: UInt64(max(0, salt)), userId: userId,
                                          lastIntegratedClientVersion: UInt64(max(0, integrated)))
            }
            return record
        }
    }

    package func uploadBase(_ ident: UInt64) throws -> UInt64 {
        guard let record = try uploadRecord(ident) else { return 0 }
        return try record.hold ?? historyFloor()
    }

    package func completedView(_ ident: UInt64) throws -> CompletedView? {
        guard ident <= UInt64(Int64.max) else { return nil }
        return try unit.query("""
            SELECT view_server_version, view FROM openrealm_client_files
            WHERE app_id = \(appId) AND ident = \(Int64(ident))
            """) { rows -> CompletedView? in
            var view: CompletedView?
            for try await (at, record) in rows.decode((Int64?, String?).self) {
                if let at, at > 0, let record { view = CompletedView(serverVersion: UInt64(at), record: record) }
            }
            return view
        }
    }

    package func bootstrapCopies(_ ident: UInt64) throws -> BootstrapCopies {
        guard ident <= UInt64(Int64.max) else { return BootstrapCopies() }
        let bytes = try unit.query("""
            SELECT bootstrap_copies FROM openrealm_client_files WHERE app_id = \(appId) AND ident = \(Int64(ident))
            """) { rows -> [UInt8] in
            var bytes: [UInt8] = []
            for try await value in rows.decode(Data.self) { bytes = Array(value) }
            return bytes
        }
        guard !bytes.isEmpty else { return BootstrapCopies() }
        guard let copies = BootstrapCopies(decoding: bytes) else {
            throw PostgresStoreError(.statementFailed, "the bootstrap copies of client file \(ident) of app '\(appId)' are damaged")
        }
        return copies
    }

    package func recordIntegrated(_ ident: UInt64, clientVersion: UInt64) throws {
        try unit.perform("""
            UPDATE openrealm_client_files SET last_integrated_client_version = \(Int64(clientVersion))
            WHERE app_id = \(appId) AND ident = \(Int64(ident))
            """)
    }

    package func recordUpload(_ ident: UInt64, base: UInt64, version: UInt64) throws {
        guard var record = try uploadRecord(ident) else { return }
        record.record(base: base, version: version)
        if pendingOrder.isEmpty { unit.beforeCommit { [self] in try writeUploads() } }
        if pendingUploads.updateValue(record, forKey: ident) == nil { pendingOrder.append(ident) }
    }

    /// Writes the upload records kept back, each file once, and marks the files seen.
    private func writeUploads() throws {
        let now = StorageConventions.nowMilliseconds
        for ident in pendingOrder {
            guard let record = pendingUploads[ident] else { continue }
            try unit.perform("""
                UPDATE openrealm_client_files SET upload_base = \(record.hold.map { Int64($0) }),
                    uploads = \(Data(record.encodedUploads())), last_seen_at = \(now)
                WHERE app_id = \(appId) AND ident = \(Int64(ident))
                """)
        }
        pendingUploads = [:]
        pendingOrder = []
    }

    package func recordProgress(_ ident: UInt64, serverVersion: UInt64) throws {
        try unit.perform("""
            UPDATE openrealm_client_files
            SET last_server_version = greatest(coalesce(last_server_version, 0), \(Int64(serverVersion))),
                last_seen_at = \(StorageConventions.nowMilliseconds)
            WHERE app_id = \(appId) AND ident = \(Int64(ident))
            """)
    }

    package func setCompletedView(_ ident: UInt64, _ view: CompletedView) throws {
        try unit.perform("""
            UPDATE openrealm_client_files SET view_server_version = \(Int64(view.serverVersion)), view = \(view.record)
            WHERE app_id = \(appId) AND ident = \(Int64(ident))
            """)
    }

    package func setBootstrapCopies(_ copies: BootstrapCopies, for ident: UInt64) throws {
        let bytes = copies == BootstrapCopies() ? [] : try copies.encoded()
        try unit.perform("""
            UPDATE openrealm_client_files SET bootstrap_copies = \(Data(bytes)) WHERE app_id = \(appId) AND ident = \(Int64(ident))
            """)
    }

    /// The file's upload record, or nil when there is no such file.
    private func uploadRecord(_ ident: UInt64) throws -> UploadRecord? {
        if let pending = pendingUploads[ident] { return pending }
        guard ident <= UInt64(Int64.max) else { return nil }
        let stored = try unit.query("""
            SELECT upload_base, uploads FROM openrealm_client_files WHERE app_id = \(appId) AND ident = \(Int64(ident))
            """) { rows -> (Int64?, [UInt8])? in
            var found: (Int64?, [UInt8])?
            for try await (hold, bytes) in rows.decode((Int64?, Data).self) { found = (hold, Array(bytes)) }
            return found
        }
        guard let (hold, bytes) = stored else { return nil }
        guard let record = UploadRecord(hold: hold.map { UInt64(max(0, $0)) }, decoding: bytes) else {
            throw PostgresStoreError(.statementFailed, "the upload record of client file \(ident) of app '\(appId)' is damaged")
        }
        return record
    }
}

extension PostgresApp {
    /// Makes a client file of `userId`: a new ident, a random salt, based at the app's
    /// latest version (a file made while another process integrates is based lower, which
    /// only keeps more history).
    package func createClientFile(userId: String) throws -> ClientFileRecord {
        // Salts travel as u64 but are kept signed: keep them in 0 ..< 2^63.
        let salt = UInt64.random(in: 1...UInt64(Int64.max))
        let now = StorageConventions.nowMilliseconds
        return try database.transaction("make a client file") { [appId, logger = database.logger] connection in
            try await connection.perform("INSERT INTO openrealm_apps (app_id) VALUES (\(appId)) ON CONFLICT DO NOTHING", logger: logger)
            var ident: Int64 = 0
            for try await value in try await connection.query("""
                INSERT INTO openrealm_client_files (app_id, ident, salt, user_id, created_at, upload_base)
                SELECT \(appId), nextval('openrealm_client_file_idents'), \(Int64(salt)), \(userId), \(now), server_version
                FROM openrealm_apps WHERE app_id = \(appId)
                RETURNING ident
                """, logger: logger).decode(Int64.self) {
                ident = value
            }
            return ClientFileRecord(ident: UInt64(ident), salt: salt, userId: userId, lastIntegratedClientVersion: 0)
        }
    }
}
