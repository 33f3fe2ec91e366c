import Foundation
import ORCore
@testable import OpenRealmQuery
import Synchronization
import XCTest
import OpenRealmTestSupport

/// ObjectId: parsing, text, byte layout, order (against ORCore's), and generation.
final class ObjectIdTests: XCTestCase {
    func testZeroAndParsing() throws {
        XCTAssertEqual(ObjectId().stringValue, "000000000000000000000000")
        XCTAssertEqual(ObjectId(), try ObjectId(string: "000000000000000000000000"))

        let id = try ObjectId(string: "000123450000FFBEEF91906c")
        XCTAssertEqual(id.stringValue, "000123450000ffbeef91906c")
        XCTAssertEqual(id.description, "000123450000ffbeef91906c")
        XCTAssertEqual(id, try ObjectId(string: "000123450000ffbeef91906C"))
        XCTAssertEqual(id.bytes, [0x00, 0x01, 0x23, 0x45, 0x00, 0x00, 0xFF, 0xBE, 0xEF, 0x91, 0x90, 0x6C])
        XCTAssertEqual(id.timestamp, Date(timeIntervalSince1970: 0x12345))
        XCTAssertEqual(ObjectId("5f1b2c3d4e5f6a7b8c9d0e1f").stringValue, "5f1b2c3d4e5f6a7b8c9d0e1f")
    }

    func testMalformedStringsThrowInvalidValue() {
        let bad = ["", "0", "000123450000ffbeef91906", "000123450000ffbeef91906c0", "000123450000ffbeef91906g",
                   " 00123450000ffbeef91906c", "000123450000ffbeef91906c ", "0x0123450000ffbeef91906c",
                   "00012345-0000-ffbe-ef91906c", "００0123450000ffbeef91906c", "zzzzzzzzzzzzzzzzzzzzzzzz"]
        for text in bad {
            XCTAssertThrowsError(try ObjectId(string: text), "'\(text)' should not parse") { error in
                guard let realmError = error as? RealmError else { return XCTFail("threw \(error)") }
                XCTAssertEqual(realmError.code, .invalidValue)
                XCTAssertTrue(realmError.message.contains("'\(text)'"), realmError.message)
            }
        }
    }

    func testTimestampMachineAndProcessLayout() {
        let date = Date(timeIntervalSince1970: 1_700_000_000.75)
        let a = ObjectId(timestamp: date, machineId: 0x7712_3456, processId: 0x55AB_CD)
        let b = ObjectId(timestamp: date, machineId: 0x7712_3456, processId: 0x55AB_CD)
        // 1_700_000_000 = 0x6553F100; machine id's low three bytes and process id's
        // low two, least significant first; then the counter.
        XCTAssertTrue(a.stringValue.hasPrefix("6553f100563412cdab"), a.stringValue)
        XCTAssertEqual(a.timestamp, Date(timeIntervalSince1970: 1_700_000_000))
        XCTAssertNotEqual(a, b, "the counter tells ids with equal arguments apart")
        XCTAssertEqual(Array(a.bytes.prefix(9)), Array(b.bytes.prefix(9)))

        let now = Date()
        let c = ObjectId(timestamp: now, machineId: 10, processId: 20)
        XCTAssertEqual(Int(now.timeIntervalSince1970), Int(c.timestamp.timeIntervalSince1970))
    }

    func testOrderIsByteOrderAsInORCore() throws {
        let lower = try ObjectId(string: "000123450000ffbeef91906c")
        let higher = try ObjectId(string: "000123450000ffbeef91906d")
        XCTAssertTrue(lower < higher)
        XCTAssertTrue(lower <= higher && lower <= lower)
        XCTAssertTrue(higher > lower && higher >= lower)
        XCTAssertFalse(lower > lower)

        var rng = SplitMix64(seed: 0x0B1EC7)
        var ids: [ObjectId] = []
        for _ in 0..<300 {
            // Few distinct bytes, so that many pairs share long prefixes or are equal.
            let bytes = (0..<12).map { _ in UInt8([0, 1, 0x7F, 0x80, 0xFF][Int(rng.next() % 5)]) }
            ids.append(ObjectId(bytes: bytes)!)
        }
        for _ in 0..<3000 {
            let a = ids[Int(rng.next() % 300)], b = ids[Int(rng.next() % 300)]
            var x = orc_value(), y = orc_value()
            x.type = ORC_TYPE_OBJECT_ID
            y.type = ORC_TYPE_OBJECT_ID
            x.object_id = a.orcBytes
            y.object_id = b.orcBytes
            let expected = Int(orc_value_compare(&x, &y).signum())
            XCTAssertEqual(a < b, expected < 0, "\(a) < \(b)")
            XCTAssertEqual(a == b, expected == 0, "\(a) == \(b)")
            XCTAssertEqual(a.bytes.lexicographicallyPrecedes(b.bytes), expected < 0)
            if a == b { XCTAssertEqual(a.hashValue, b.hashValue) }
        }
    }

    func testBridgingForms() throws {
        let id = try ObjectId(string: "0102030405060708090a0b0c")
        let tuple = id.orcBytes
        XCTAssertEqual([tuple.0, tuple.1, tuple.2, tuple.3, tuple.4, tuple.5, tuple.6, tuple.7, tuple.8, tuple.9,
                        tuple.10, tuple.11], Array(1...12))
        XCTAssertEqual(ObjectId(orcBytes: tuple), id)
        XCTAssertEqual(ObjectId(bytes: id.bytes), id)
        XCTAssertEqual(ObjectId(bytes: ArraySlice(id.bytes)), id)
        XCTAssertNil(ObjectId(bytes: [UInt8](repeating: 1, count: 11)))
        XCTAssertNil(ObjectId(bytes: [UInt8](repeating: 1, count: 13)))

        var value = orc_value()
        value.type = ORC_TYPE_OBJECT_ID
        value.object_id = id.orcBytes
        XCTAssertEqual(ObjectId(orcBytes: value.object_id).stringValue, "0102030405060708090a0b0c")
    }

    func testGenerateIsUniqueAndIncreasingAcrossThreads() {
        let threads = 4, perThread = 20_000
        let results = Mutex<[[ObjectId]]>(Array(repeating: [], count: threads))
        let before = Date()
        DispatchQueue.concurrentPerform(iterations: threads) { index in
            var mine: [ObjectId] = []
            mine.reserveCapacity(perThread)
            for _ in 0..<perThread { mine.append(.generate()) }
            results.withLock { $0[index] = mine }
        }
        let after = Date()
        let all = results.withLock { $0 }
        for ids in all {
            XCTAssertEqual(ids.count, perThread)
            for i in 1..<ids.count where !(ids[i - 1] < ids[i]) {
                XCTFail("\(ids[i - 1]) then \(ids[i]) is not increasing")
                break
            }
        }
        let flat = all.flatMap { $0 }
        XCTAssertEqual(Set(flat).count, threads * perThread, "every id is unique")
        // Five random bytes fixed for the process; the timestamp is the clock's second
        // (or at most one ahead, after a counter wrap).
        let random = Set(flat.map { Array($0.bytes[4..<9]) })
        XCTAssertEqual(random.count, 1)
        for id in [flat.min()!, flat.max()!] {
            XCTAssertGreaterThanOrEqual(id.timestamp.timeIntervalSince1970, before.timeIntervalSince1970.rounded(.down))
            XCTAssertLessThanOrEqual(id.timestamp.timeIntervalSince1970, after.timeIntervalSince1970.rounded(.down) + 1)
        }

        // In call order (serialised here), ids from all threads form one increasing run.
        let ordered = Mutex<[ObjectId]>([])
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            for _ in 0..<2_000 { ordered.withLock { $0.append(.generate()) } }
        }
        let run = ordered.withLock { $0 }
        XCTAssertEqual(run.count, threads * 2_000)
        XCTAssertTrue(zip(run, run.dropFirst()).allSatisfy { $0 < $1 })
    }

    func testGenerateStaysIncreasingWhenTheCounterWraps() {
        ObjectIdGenerator.state.withLock { $0.counter = 0xFF_FFF0 }
        let ids = (0..<64).map { _ in ObjectId.generate() }
        XCTAssertTrue(ids.contains { Array($0.bytes[9..<12]) == [0, 0, 0] }, "the counter passed through zero")
        for (earlier, later) in zip(ids, ids.dropFirst()) {
            XCTAssertLessThan(earlier, later)
        }
    }

    func testCodableUsesTheString() throws {
        let ids = [ObjectId.generate(), ObjectId(), try ObjectId(string: "000123450000ffbeef91906c")]
        let data = try JSONEncoder().encode(ids)
        XCTAssertTrue(String(decoding: data, as: UTF8.self).contains(#""000123450000ffbeef91906c""#))
        XCTAssertEqual(try JSONDecoder().decode([ObjectId].self, from: data), ids)
        XCTAssertThrowsError(try JSONDecoder().decode([ObjectId].self, from: Data(#"["not an id"]"#.utf8))) { error in
            guard case DecodingError.dataCorrupted = error else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try JSONDecoder().decode([ObjectId].self, from: Data("[12]".utf8)))
    }

    func testHashable() throws {
        let a = try ObjectId(string: "000123450000ffbeef91906c")
        let b = try ObjectId(string: "000123450000FFBEEF91906C")
        XCTAssertEqual(a.hashValue, b.hashValue)
        XCTAssertEqual(Set([a, b, ObjectId()]).count, 2)
        XCTAssertEqual([a: 1][b], 1)
    }
}
