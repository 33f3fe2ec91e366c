import Foundation
import ORCore
import OpenRealm

/// Raw ORCore transactions on a realm file the sync module keeps open, for its own
/// state (metadata) and for integrating downloads.
///
/// Commits made here are announced to the file's notifier, so `Realm` instances and
/// their observers move to the new version as they do after any other commit.
struct FileAccess: @unchecked Sendable {
    let coordinator: RealmCoordinator

    var path: String { coordinator.path }

    /// Runs `body` in a read transaction.
    func read<R>(_ body: (OpaquePointer) throws -> R) throws -> R {
        var txn: OpaquePointer?
        try check(orc_txn_begin(coordinator.env, Int32(ORC_TXN_READ), &txn), "beginning a read transaction")
        defer { orc_txn_abort(txn) }
        return try body(txn!)
    }

    /// Runs `body` in a write transaction and commits it; returns the body's result and
    /// the committed version. When `body` throws nothing is committed.
    func write<R>(_ body: (OpaquePointer) throws -> R) throws -> (R, UInt64) {
        var txn: OpaquePointer?
        try check(orc_txn_begin(coordinator.env, Int32(ORC_TXN_WRITE), &txn), "beginning a write transaction")
        let result: R
        do { result = try body(txn!) } catch {
            orc_txn_abort(txn)
            throw error
        }
        var version: UInt64 = 0
        try check(orc_txn_commit(txn, &version), "committing a sync transaction")
        coordinator.notifier.fileAdvanced(to: version)
        return (result, version)
    }

    /// The latest committed version.
    func latestVersion() -> UInt64 {
        var version: UInt64 = 0
        _ = orc_env_version(coordinator.env, &version)
        return version
    }

    private func check(_ status: Int32, _ what: String) throws {
        guard status != ORC_OK else { return }
        throw SyncError(.otherError, "\(what) on '\(coordinator.path)' failed: \(String(cString: orc_last_error()))")
    }
}

/// Named metadata values of a realm file (`orc_meta_get` / `orc_meta_set`).
enum FileMetadata {
    static func bytes(_ txn: OpaquePointer, _ name: String) -> [UInt8]? {
        var data: UnsafeRawPointer?
        var size = 0
        guard orc_meta_get(txn, name, &data, &size) == ORC_OK else { return nil }
        guard let data, size > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: data, count: size))
    }

    static func set(_ txn: OpaquePointer, _ name: String, _ bytes: [UInt8]) throws {
        let status = bytes.withUnsafeBytes { orc_meta_set(txn, name, $0.baseAddress, $0.count) }
        guard status == ORC_OK else {
            throw SyncError(.otherError, "storing sync metadata '\(name)' failed: \(String(cString: orc_last_error()))")
        }
    }

    /// Little-endian u64s. Read with one unaligned load each: these lists (commit stamps,
    /// integrations) are read at every upload and grow with the unacknowledged commits,
    /// and a byte-by-byte decode kept the session's queue busy for seconds.
    static func uint64s(_ txn: OpaquePointer, _ name: String) -> [UInt64] {
        var data: UnsafeRawPointer?
        var size = 0
        guard orc_meta_get(txn, name, &data, &size) == ORC_OK, let data, size > 0, size % 8 == 0 else { return [] }
        return (0..<size / 8).map { UInt64(littleEndian: data.loadUnaligned(fromByteOffset: $0 * 8, as: UInt64.self)) }
    }

    static func setUInt64s(_ txn: OpaquePointer, _ name: String, _ values: [UInt64]) throws {
        let bytes = values.map(\.littleEndian).withUnsafeBytes { Array($0) }
        try set(txn, name, bytes)
    }

    static func json<T: Decodable>(_ txn: OpaquePointer, _ name: String, as type: T.Type) -> T? {
        guard let bytes = bytes(txn, name), !bytes.isEmpty else { return nil }
        return try? JSONDecoder().decode(T.self, from: Data(bytes))
    }

    static func setJSON<T: Encodable>(_ txn: OpaquePointer, _ name: String, _ value: T) throws {
        try set(txn, name, Array(try JSONEncoder().encode(value)))
    }
}
