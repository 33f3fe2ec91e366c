/// What the sync engine reads and writes of an app's history and client files inside a
/// unit of work (a store transaction). The engine calls these instead of reaching into
/// the store's tables, so that another store can stand behind them
/// (`docs/design/STORAGE-SEAM.md`). ``StoreTransaction`` is the embedded store's unit.

/// The app's history of server versions.
package protocol HistoryReading: AnyObject {
    /// The highest trimmed server version: entries up to it are gone (0 when none are).
    func historyFloor() throws -> UInt64
    /// The entry of `serverVersion`, or nil when there is none (trimmed, or not made).
    func historyEntry(_ serverVersion: UInt64) throws -> HistoryEntry?
}

/// The history, written: only under the app's write lock.
package protocol HistoryWriting: HistoryReading {
    /// Appends `entry`, whose server version becomes the app's.
    func appendHistory(_ entry: HistoryEntry) throws
}

/// The view a client file completed last: the server version it was completed at and
/// the view as recorded (``ViewRecord``).
package struct CompletedView: Sendable, Hashable {
    package var serverVersion: UInt64
    package var record: String

    package init(serverVersion: UInt64, record: String) {
        self.serverVersion = serverVersion
        self.record = record
    }
}

/// The server's record of each client file.
package protocol ClientFileReading: AnyObject {
    /// The file `ident`, or nil when the server has no such file.
    func clientFile(_ ident: UInt64) throws -> ClientFileRecord?
    /// The lowest server version a later upload of the file can be based on.
    func uploadBase(_ ident: UInt64) throws -> UInt64
    /// The view the file completed last, or nil when it never completed one.
    func completedView(_ ident: UInt64) throws -> CompletedView?
    /// What the server sent the file whole (``BootstrapCopies``).
    func bootstrapCopies(_ ident: UInt64) throws -> BootstrapCopies
}

/// The client files' records, written.
package protocol ClientFileWriting: ClientFileReading {
    /// The file's changesets up to `clientVersion` are integrated.
    func recordIntegrated(_ ident: UInt64, clientVersion: UInt64) throws
    /// The file's changeset based on `base` was integrated as server version `version`.
    func recordUpload(_ ident: UInt64, base: UInt64, version: UInt64) throws
    /// The file has integrated the server's versions up to `serverVersion`.
    func recordProgress(_ ident: UInt64, serverVersion: UInt64) throws
    /// The file completed `view`.
    func setCompletedView(_ ident: UInt64, _ view: CompletedView) throws
    /// Replaces what the server sent the file whole.
    func setBootstrapCopies(_ copies: BootstrapCopies, for ident: UInt64) throws
}

/// What a bind reads of a store restored from a backup (``ClientFileBinding``).
package protocol RestoreMarkReading: AnyObject {
    /// The latest server version the backup's copy held, for a file `ident` it knew that
    /// has not bound since: a bind of it reporting more is refused. Nil for any other file.
    func restoreCeiling(_ ident: UInt64) throws -> UInt64?
}

/// A file's last-seen time, which keeps its history while it is away (``HistoryTrimmer``).
package protocol ClientFileSeeing: AnyObject {
    /// Records the files `idents` as seen at `now` (milliseconds since the epoch); an
    /// ident the store does not know is passed over.
    func recordSeen(_ idents: [UInt64], now: Int64) throws
}

/// The client-file writes of binds and of a session's end, which append no history and
/// so need no app write lock (a `write` unit, ``AppStorage/write(_:)``).
package protocol ClientFileBinding: ClientFileReading, RestoreMarkReading, ClientFileSeeing {
    /// Makes a client file for `userId`, with an ident the store allocates and a random
    /// salt; its upload base is the latest server version.
    func createClientFile(userId: String) throws -> ClientFileRecord
    /// The file `ident` bound again after a restore: its mark goes.
    func removeRestoreMark(_ ident: UInt64) throws
}
