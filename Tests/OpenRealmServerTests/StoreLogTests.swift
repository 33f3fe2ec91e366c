import Foundation
import ORCore
import XCTest
import OpenRealmWire
@testable import OpenRealmServer

/// The store keeps no ORCore changeset log: the server's history is its own, and each
/// integration's changeset stored a second time in the engine's log was never read nor
/// trimmed, so the file grew by it for ever.
final class StoreLogTests: ServerTestCase {
    override func setUpWithError() throws {
        try skipOnPostgres("ORCore's changeset log in the store file")
        try super.setUpWithError()
    }

    /// The store's committed version and the oldest version its log holds (0: empty).
    func logState() throws -> (version: UInt64, first: UInt64) {
        var env: OpaquePointer?
        XCTAssertEqual(orc_env_open(storePath, UInt32(ORC_ENV_NO_CREATE), nil, &env), ORC_OK)
        let handle = try XCTUnwrap(env)
        defer { orc_env_close(handle) }
        var txn: OpaquePointer?
        XCTAssertEqual(orc_txn_begin(handle, Int32(ORC_TXN_READ), &txn), ORC_OK)
        defer { orc_txn_abort(txn) }
        return (orc_txn_version(txn), orc_log_first_version(txn))
    }

    func testTheStoreKeepsNoChangesetLog() throws {
        let (a, _) = try boundClient()
        try subscribeToAllTasks(a)
        try upload(a, clientVersion: 1, hlc: 2_000, Self.taskSchema + [Self.task(1, title: "first", status: "open")])
        try upload(a, clientVersion: 2, serverVersion: 2, hlc: 2_100, [.set(object: Self.path(1), property: "status", value: .string("doing"))])
        stopServer()
        let state = try logState()
        XCTAssertGreaterThan(state.version, 3, "the uploads were committed")
        XCTAssertEqual(state.first, 0, "nothing kept in the engine's log")
    }

    func testALogAnEarlierBuildKeptIsEmptiedAndTheDataStays() throws {
        let (a, _) = try boundClient()
        try subscribeToAllTasks(a)
        try upload(a, clientVersion: 1, hlc: 2_000, Self.taskSchema + [Self.task(1, title: "first", status: "open")])
        stopServer()
        // Commits with a log, as the store's earlier builds made them.
        do {
            var env: OpaquePointer?
            XCTAssertEqual(orc_env_open(storePath, UInt32(ORC_ENV_NO_CREATE), nil, &env), ORC_OK)
            let handle = try XCTUnwrap(env)
            for _ in 0..<3 {
                var txn: OpaquePointer?
                XCTAssertEqual(orc_txn_begin(handle, Int32(ORC_TXN_WRITE), &txn), ORC_OK)
                XCTAssertEqual(orc_meta_set(txn, "test.marker", "x", 1), ORC_OK)
                XCTAssertEqual(orc_txn_commit(txn, nil), ORC_OK)
            }
            orc_env_close(handle)
        }
        let kept = try logState()
        XCTAssertNotEqual(kept.first, 0)

        try startServer()
        let (b, _) = try boundClient()
        try subscribeToAllTasks(b)
        try upload(b, clientVersion: 1, hlc: 3_000, [Self.task(2, title: "second", status: "open")])
        let (reader, _) = try boundClient()
        let state = try query(reader, version: 1, ["Task": "TRUEPREDICATE"]).get()
        let created = state.compactMap { instruction -> WirePrimaryKey? in
            if case .createObject(_, let key, _) = instruction { return key }
            return nil
        }
        XCTAssertEqual(Set(created), [.int(1), .int(2)])
        stopServer()
        let after = try logState()
        XCTAssertGreaterThan(after.version, kept.version)
        XCTAssertEqual(after.first, 0, "the first commit emptied the log")
    }
}
