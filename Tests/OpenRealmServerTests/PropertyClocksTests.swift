import Foundation
import XCTest
import OpenRealmSyncCore
import OpenRealmWire
@testable import OpenRealmServer

/// The `__clocks` keys are stored: however they are built, they must stay the text
/// they have always been (class name, U+001F, the primary key's description).
final class PropertyClocksTests: XCTestCase {
    func testClockKeysKeepTheirStoredForm() throws {
        let id = try XCTUnwrap(WireObjectId(bytes: [0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x00, 0x10, 0xfe, 0xff]))
        XCTAssertEqual(id.description, "0123456789abcdef0010feff")
        XCTAssertEqual(PropertyClocks.key(WireObjectRef(className: "Task", primaryKey: .objectId(id))),
                       "Task\u{1F}oid(0123456789abcdef0010feff)")
        XCTAssertEqual(PropertyClocks.key(WireObjectRef(className: "Ünïcode", primaryKey: .int(-42))), "Ünïcode\u{1F}-42")
        var rng = SystemRandomNumberGenerator()
        let uuid = try XCTUnwrap(WireUUID(bytes: (0..<16).map { _ in UInt8.random(in: 0...255, using: &rng) }))
        for key: WirePrimaryKey in [.null, .int(.max), .int(.min), .string("a\u{1F}b \"q\""), .uuid(uuid)]
            + (0..<50).map({ _ in .objectId(WireObjectId(bytes: (0..<12).map { _ in UInt8.random(in: 0...255, using: &rng) })!) }) {
            let ref = WireObjectRef(className: "Task", primaryKey: key)
            XCTAssertEqual(PropertyClocks.key(ref), "Task\u{1F}" + key.description)
        }
        for _ in 0..<50 {
            let bytes = (0..<12).map { _ in UInt8.random(in: 0...255, using: &rng) }
            XCTAssertEqual(WireObjectId(bytes: bytes)!.description, bytes.map { String(format: "%02x", $0) }.joined())
        }
    }
}

/// The clocks as stored: every encoding decodes to what was encoded; rows written in
/// another order (or repeating a name) decode in name order; damaged bytes decode to
/// no clocks rather than failing or reading past the end.
final class PropertyClocksEncodingTests: XCTestCase {
    private func stamp(_ ms: UInt64, _ counter: UInt32 = 0, _ ident: UInt64 = 1) -> WriteStamp {
        WriteStamp(timestamp: WireHybridTimestamp(milliseconds: ms, counter: counter), originFileIdent: ident)
    }

    /// The stored form written by hand: u32 count, then name length, name, ms, counter, ident.
    private func bytes(_ entries: [(String, WriteStamp)]) -> [UInt8] {
        var out: [UInt8] = []
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { out += $0 } }
        func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { out += $0 } }
        u32(UInt32(entries.count))
        for (name, s) in entries {
            u32(UInt32(name.utf8.count))
            out += Array(name.utf8)
            u64(s.timestamp.milliseconds)
            u32(s.timestamp.counter)
            u64(s.originFileIdent)
        }
        return out
    }

    func testSetsLookupsAndTheStoredFormAgree() {
        var clocks = PropertyClocks()
        let names = ["title", "a", "zeta", "Émile", ".address.city", "address[0]", "b", "title2"]
        for (i, name) in names.enumerated() { clocks[name] = stamp(UInt64(100 + i), UInt32(i)) }
        clocks["a"] = stamp(7, 7, 7)
        clocks["b"] = nil
        clocks["missing"] = nil
        var expected: [String: WriteStamp] = [:]
        for (i, name) in names.enumerated() where name != "b" { expected[name] = stamp(UInt64(100 + i), UInt32(i)) }
        expected["a"] = stamp(7, 7, 7)
        XCTAssertEqual(clocks.stamps, expected)
        XCTAssertEqual(clocks.entries.map(\.name), expected.keys.sorted())
        for (name, s) in expected { XCTAssertEqual(clocks[name], s) }
        XCTAssertNil(clocks["b"])
        // The bytes are the stored form, in name order.
        XCTAssertEqual(clocks.encoded(), bytes(expected.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
        XCTAssertEqual(PropertyClocks(decoding: clocks.encoded()), clocks)
        // Embedded paths: stamps under a prefix go, the rest stay.
        clocks.removeStamps(under: "address")
        XCTAssertNil(clocks["address[0]"])
        XCTAssertEqual(clocks[".address.city"], stamp(104, 4))
    }

    func testRowsOutOfOrderOrRepeatingANameDecodeInOrder() {
        let decoded = PropertyClocks(decoding: bytes([("b", stamp(1)), ("a", stamp(2)), ("b", stamp(3))]))
        XCTAssertEqual(decoded.entries.map(\.name), ["a", "b"])
        XCTAssertEqual(decoded["b"], stamp(3))
        XCTAssertEqual(decoded["a"], stamp(2))
    }

    func testDamagedBytesDecodeToNoClocks() {
        let good = bytes([("title", stamp(5)), ("done", stamp(6))])
        for cut in 0..<good.count {
            XCTAssertEqual(PropertyClocks(decoding: Array(good.prefix(cut))).entries.count, 0, "cut at \(cut)")
        }
        // A count or a name length far beyond the bytes.
        var huge = good
        huge.replaceSubrange(0..<4, with: [0xff, 0xff, 0xff, 0x7f])
        XCTAssertEqual(PropertyClocks(decoding: huge).entries.count, 0)
        var long = good
        long.replaceSubrange(4..<8, with: [0xff, 0xff, 0xff, 0xff])
        XCTAssertEqual(PropertyClocks(decoding: long).entries.count, 0)
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            var noisy = good
            noisy[Int.random(in: 0..<noisy.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            _ = PropertyClocks(decoding: noisy).encoded()
        }
    }
}
