import OpenRealmWire

/// The embedded store's transaction as the engine's unit of work: each call is one of
/// the store's own functions (`AppStore+History`, `+Trimming`, `+ClientFiles`,
/// `+Restore`, `+BootstrapCopies`). Every kind of unit (``AppStorage``) is a transaction.
extension StoreTransaction: AppLockedUnit, VersionReading, HistoryWriting, HistoryTrimming, ClientFileWriting {
    package func serverVersion() throws -> UInt64 { try metaUInt64("server.version") ?? 0 }

    package func historyFloor() throws -> UInt64 { try AppStore.historyFloor(self) }

    package func historyEntry(_ serverVersion: UInt64) throws -> HistoryEntry? { try AppStore.historyEntry(self, serverVersion) }

    package func appendHistory(_ entry: HistoryEntry) throws { try AppStore.appendHistory(self, entry) }

    package func trimCandidates() throws -> [TrimCandidate] { try AppStore.trimCandidates(self) }

    package func recordSeen(_ idents: [UInt64], now: Int64) throws {
        for ident in idents { try AppStore.recordSeen(self, ident: ident, now: now) }
    }

    package func trimHistory(through version: UInt64) throws { try AppStore.trimHistory(self, through: version) }

    /// Nil for an ident no file can have (past `Int64.max`, as a client may send).
    package func clientFile(_ ident: UInt64) throws -> ClientFileRecord? {
        guard ident <= UInt64(Int64.max) else { return nil }
        return try AppStore.clientFile(self, ident: ident)
    }

    package func createClientFile(userId: String) throws -> ClientFileRecord { try AppStore.createClientFile(self, userId: userId) }

    package func restoreCeiling(_ ident: UInt64) throws -> UInt64? { try AppStore.restoreCeiling(self, ident: ident) }

    package func removeRestoreMark(_ ident: UInt64) throws { try AppStore.removeRestoreMark(self, ident: ident) }

    package func uploadBase(_ ident: UInt64) throws -> UInt64 { try AppStore.uploadBase(self, ident: ident) }

    package func completedView(_ ident: UInt64) throws -> CompletedView? {
        guard let row = try readRow("__client_files", .int(Int64(ident))),
              let at = row.int("viewServerVersion"), at > 0, let record = row.string("view") else { return nil }
        return CompletedView(serverVersion: UInt64(at), record: record)
    }

    package func bootstrapCopies(_ ident: UInt64) throws -> BootstrapCopies { try BootstrapCopies.read(self, ident: ident) }

    package func recordIntegrated(_ ident: UInt64, clientVersion: UInt64) throws {
        try updateRow("__client_files", .int(Int64(ident)), ["lastIntegratedClientVersion": .int(Int64(clientVersion))])
    }

    package func recordUpload(_ ident: UInt64, base: UInt64, version: UInt64) throws {
        try AppStore.recordUpload(self, ident: ident, base: base, version: version)
    }

    package func recordProgress(_ ident: UInt64, serverVersion: UInt64) throws {
        try AppStore.recordProgress(self, ident: ident, serverVersion: serverVersion)
    }

    package func setCompletedView(_ ident: UInt64, _ view: CompletedView) throws {
        try updateRow("__client_files", .int(Int64(ident)), [
            "viewServerVersion": .int(Int64(view.serverVersion)), "view": .string(view.record),
        ])
    }

    package func setBootstrapCopies(_ copies: BootstrapCopies, for ident: UInt64) throws { try copies.write(self, ident: ident) }
}
