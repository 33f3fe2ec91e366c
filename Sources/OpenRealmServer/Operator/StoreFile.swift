import Foundation
import ORCore
import OpenRealmSyncCore

/// An app store opened by an operator command, read-only and without the server's
/// tables: for copying and checking, which must not write to the store they read.
///
/// LMDB lets such a reader work beside a server that writes the same file in another
/// process: its read transaction sees one committed snapshot, and the writer never
/// reuses the pages of a snapshot a reader holds.
final class StoreFile {
    private let environment: ORCoreEnvironment
    var handle: OpaquePointer { environment.handle }
    var path: String { environment.path }

    /// Opens the existing store at `path`; `verify` checks every page's structure first
    /// (for files that may be damaged).
    ///
    /// - Throws: ``StoreError`` naming the file and ORCore's reason.
    init(path: String, verify: Bool = false) throws {
        environment = try ORCoreEnvironment.openExistingStore(path: path, verify: verify)
    }

    /// The latest committed version of the file (ORCore's, not the server version).
    func committedVersion() throws -> UInt64 { try environment.committedVersion() }

    /// Writes a compacted copy of the latest committed state to `destination` (which
    /// must not exist). When the server grows the file's map meanwhile, LMDB refuses the
    /// copy's read transaction (`ORC_ERR_BUSY`); a read transaction adopts the new size
    /// and the copy starts again, a few times at most.
    func copy(to destination: String) throws {
        var attempt = 0
        while true {
            let status = orc_env_copy(handle, destination)
            if status == ORC_OK {
                _ = chmod(destination, 0o600) // as private as the store it copies
                return
            }
            attempt += 1
            guard status == ORC_ERR_BUSY, attempt < 5 else { throw StoreError.failure(status, "copy '\(path)' to '\(destination)'") }
            var txn: OpaquePointer?
            if orc_txn_begin(handle, Int32(ORC_TXN_READ), &txn) == ORC_OK { orc_txn_abort(txn) }
        }
    }

    /// `orc_env_check`: nil when the file is consistent, else how many problems it found
    /// and the first one.
    func check() -> (problems: Int, first: String)? {
        environment.check().map { (problems: $0.problems, first: $0.first.message) }
    }
}
