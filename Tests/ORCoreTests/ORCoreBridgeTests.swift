import Foundation
import ORCore
import XCTest

/// The C engine as Swift sees it: the module imports, values cross the bridge
/// intact, and statuses and messages come back as ORCore documents them.
final class ORCoreBridgeTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("orcore-bridge-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private func check(_ status: Int32, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(status, ORC_OK, String(cString: orc_last_error()), file: file, line: line)
    }

    func testObjectsRoundTripThroughTheBridge() throws {
        let path = directory.appendingPathComponent("bridge.realm").path
        var env: OpaquePointer?
        check(orc_env_open(path, 0, nil, &env))
        defer { orc_env_close(env) }

        var txn: OpaquePointer?
        check(orc_txn_begin(env, Int32(ORC_TXN_WRITE), &txn))
        var table: UInt32 = 0
        check(orc_class_add(txn, "Task", ORC_CLASS_TOP_LEVEL, &table))
        var nameCol: UInt16 = 0
        var minutesCol: UInt16 = 0
        var spec = orc_prop_spec(name: nil, type: ORC_TYPE_STRING, collection: ORC_COLL_NONE, flags: 0, link_table: 0)
        "name".withCString { spec.name = $0; check(orc_prop_add(txn, table, &spec, &nameCol)) }
        spec.type = ORC_TYPE_INT
        spec.flags = UInt32(ORC_PROP_INDEXED)
        "progressMinutes".withCString { spec.name = $0; check(orc_prop_add(txn, table, &spec, &minutesCol)) }

        var key: UInt64 = 0
        let name = Array("Write the engine ✓".utf8)
        name.withUnsafeBufferPointer { bytes in
            var values = [orc_value(), orc_value()]
            values[0].type = ORC_TYPE_STRING
            values[0].string.data = UnsafeRawPointer(bytes.baseAddress!).assumingMemoryBound(to: CChar.self)
            values[0].string.size = bytes.count
            values[1].type = ORC_TYPE_INT
            values[1].integer = 75
            let cols = [nameCol, minutesCol]
            check(orc_obj_create(txn, table, cols, values, 2, &key))
        }
        var version: UInt64 = 0
        check(orc_txn_commit(txn, &version))
        XCTAssertEqual(version, 1)

        check(orc_txn_begin(env, Int32(ORC_TXN_READ), &txn))
        defer { orc_txn_abort(txn) }
        var value = orc_value()
        check(orc_obj_get(txn, table, key, nameCol, &value))
        XCTAssertEqual(value.type, ORC_TYPE_STRING)
        let read = UnsafeRawBufferPointer(start: value.string.data, count: value.string.size)
        XCTAssertEqual(String(decoding: read, as: UTF8.self), "Write the engine ✓")
        check(orc_obj_get(txn, table, key, minutesCol, &value))
        XCTAssertEqual(value.integer, 75)
    }

    func testFailuresCarryTheirCodeAndMessage() throws {
        var env: OpaquePointer?
        let missing = directory.appendingPathComponent("missing.realm").path
        let status = orc_env_open(missing, UInt32(ORC_ENV_NO_CREATE), nil, &env)
        XCTAssertEqual(status, ORC_ERR_NOT_FOUND)
        XCTAssertNil(env)
        XCTAssertTrue(String(cString: orc_last_error()).hasPrefix("ORC_ERR_NOT_FOUND"))
        XCTAssertTrue(String(cString: orc_strerror(status)).hasPrefix("ORC_ERR_NOT_FOUND"))
        XCTAssertTrue(String(cString: orc_version_string()).contains("LMDB 0.9"))
    }
}
