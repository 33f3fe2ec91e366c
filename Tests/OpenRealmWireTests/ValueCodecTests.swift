import Foundation
import XCTest
@testable import OpenRealmWire
import OpenRealmTestSupport

/// The primitive encodings: varints, values, primary keys, paths, instructions.
final class ValueCodecTests: XCTestCase {
    private func roundTrip(_ instructions: [WireInstruction], file: StaticString = #filePath, line: UInt = #line) throws {
        let bytes = try WireChangeset(instructions).encoded()
        let back = try WireChangeset(decoding: bytes)
        XCTAssertEqual(back.instructions, instructions, file: file, line: line)
        // One encoding per changeset: re-encoding gives the same bytes.
        XCTAssertEqual(try back.encoded(), bytes, file: file, line: line)
    }

    func testEveryValueRoundTripsInEveryValuePosition() throws {
        let target = Fixtures.task
        for value in Fixtures.values {
            try roundTrip([
                .set(object: target, property: "p", value: value),
                .listInsert(object: target, property: "l", index: 1, value: value),
                .listSet(object: target, property: "l", index: 0, value: value),
                .setInsert(object: target, property: "s", value: value),
                .setErase(object: target, property: "s", value: value),
                .dictionarySet(object: target, property: "d", key: "k", value: value),
                .createObject(className: "C", primaryKey: .int(1), values: [WirePropertyValue("v", value)]),
            ])
        }
    }

    func testEveryValueTypeIsInTheFixtures() {
        let tags = Set(Fixtures.values.map(\.tag))
        XCTAssertEqual(tags, Set(0...11))
    }

    func testEveryPrimaryKeyRoundTripsAsKeyLinkAndPartition() throws {
        for key in Fixtures.primaryKeys {
            try roundTrip([
                .createObject(className: "K", primaryKey: key, values: []),
                .eraseObject(WireObjectPath(className: "K", primaryKey: key)),
                .set(object: Fixtures.task, property: "link", value: .link(WireObjectRef(className: "K", primaryKey: key))),
            ])
            let bind = WireMessage.bind(WireBind(session: 1, appId: "a", accessToken: "t", syncMode: .partition(key)))
            XCTAssertEqual(try WireFrameDecoder.decode(frame: WireEncoder().encode(bind)), bind)
        }
    }

    func testEveryInstructionKindRoundTrips() throws {
        let tags = Set(Fixtures.instructions.map(\.tag))
        XCTAssertEqual(tags, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 20, 23])
        try roundTrip(Fixtures.instructions)
        for instruction in Fixtures.instructions { try roundTrip([instruction]) }
        try roundTrip([])
    }

    func testFloatsCompareByBits() {
        XCTAssertEqual(WireValue.double(.nan), .double(.nan))
        XCTAssertNotEqual(WireValue.double(0), .double(-0.0))
        XCTAssertNotEqual(WireValue.float(0), .float(-0.0))
        XCTAssertEqual(Set([WireValue.double(.nan), .double(.nan)]).count, 1)
        XCTAssertNotEqual(WireValue.int(1), .double(1))
    }

    func testStringsCompareByBytes() {
        // "é" precomposed and decomposed are equal Swift strings but different values.
        XCTAssertNotEqual(WireValue.string("\u{E9}"), .string("e\u{301}"))
        XCTAssertNotEqual(WirePrimaryKey.string("\u{E9}"), .string("e\u{301}"))
        XCTAssertNotEqual(WireObjectRef(className: "Caf\u{E9}", primaryKey: .int(1)), WireObjectRef(className: "Cafe\u{301}", primaryKey: .int(1)))
        XCTAssertNotEqual(WirePathElement.property("\u{E9}"), .property("e\u{301}"))
        XCTAssertNotEqual(WirePathElement.key("\u{E9}"), .key("e\u{301}"))
        // Equal bytes, whether the strings are small, long, bridged from other storage or empty.
        let long = String(repeating: "naïve ", count: 20)
        let pairs: [(String, String)] = [("", ""), ("Task", "Ta" + "sk"), (long, String(decoding: Array(long.utf8), as: UTF8.self)),
                                         (long, String(long.dropLast()) + " "), ("a\u{0}b", "a\u{0}b")]
        for (a, b) in pairs {
            XCTAssertEqual(WireValue.string(a), .string(b))
            XCTAssertEqual(WirePrimaryKey.string(a), .string(b))
            XCTAssertEqual(WireObjectRef(className: a, primaryKey: .string(b)), WireObjectRef(className: b, primaryKey: .string(a)))
            XCTAssertEqual(WirePathElement.key(a), .key(b))
        }
        // Same length, different bytes; a prefix.
        XCTAssertNotEqual(WireValue.string("Task"), .string("Tasl"))
        XCTAssertNotEqual(WireValue.string(long), .string(String(long.dropLast())))
        XCTAssertNotEqual(WireObjectRef(className: "Task", primaryKey: .string("")), WireObjectRef(className: "Task", primaryKey: .null))
    }

    func testVarintsOfEveryLength() throws {
        var values: [UInt64] = [0, 1, 127, 128, 255, 16_383, 16_384, UInt64(UInt32.max), UInt64.max, UInt64.max - 1]
        for shift in 0..<64 { values.append(1 << UInt64(shift)); values.append((1 << UInt64(shift)) - 1) }
        for value in values {
            var writer = WireWriter(limits: WireLimits())
            writer.varint(value)
            XCTAssertLessThanOrEqual(writer.bytes.count, 10)
            var reader = WireReader(writer.bytes, limits: WireLimits())
            XCTAssertEqual(try reader.varint("v"), value)
            XCTAssertNoThrow(try reader.expectEnd())
        }
        for value: Int64 in [0, -1, 1, Int64.max, Int64.min, -64, 63, -65, 64] {
            var writer = WireWriter(limits: WireLimits())
            writer.zigzag(value)
            var reader = WireReader(writer.bytes, limits: WireLimits())
            XCTAssertEqual(try reader.zigzag("z"), value)
        }
    }

    func testMalformedVarintsAreRefused() {
        let cases: [([UInt8], String)] = [
            ([], "truncated varint"),
            ([0x80], "truncated varint"),
            ([0xFF, 0xFF], "truncated varint"),
            ([0x80, 0x00], "shortest form"),
            ([0xFF, 0x80, 0x00], "shortest form"),
            ([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02], "does not fit in 64 bits"),
            ([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x81, 0x00], "does not fit in 64 bits"),
            (Array(repeating: 0x80, count: 100), "does not fit in 64 bits"),
        ]
        for (bytes, expected) in cases {
            var reader = WireReader(bytes, limits: WireLimits())
            XCTAssertThrowsError(try reader.varint("count")) { error in
                let error = error as! WireError
                XCTAssertEqual(error.code, .badMessage)
                XCTAssertEqual(error.field, "count")
                XCTAssertEqual(error.offset, 0)
                XCTAssertTrue(error.message.contains(expected), "\(bytes): \(error.message)")
            }
        }
    }

    func testBadValuesAreRefusedWithTheirFieldAndOffset() throws {
        // count 1, set Task[1].p = <value>: the value starts at offset 12.
        var prefix = try WireChangeset([.set(object: Fixtures.task, property: "p", value: .null)]).encoded()
        prefix.removeLast()
        XCTAssertEqual(prefix.count, 12)
        let cases: [([UInt8], String, String)] = [
            ([42], "tag", "unknown value tag 42"),
            ([1, 2], "bool", "must be 0 or 1"),
            ([3, 0, 0], "float", "truncated"),
            ([5, 2, 0xC3, 0x28], "string", "not valid UTF-8"),
            ([5, 10, 0x61], "string", "runs past the end"),
            ([6, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F], "binary", "runs past the end"),
            ([7, 2, 0x80, 0xA8, 0xD6, 0xB9, 0x07], "timestamp.nanoseconds", "out of range"), // 1 s, 1e9 ns
            ([7, 2, 1], "timestamp.nanoseconds", "wrong sign"),                          // 1 s, -1 ns
            ([7, 0, 0xFE, 0xFF, 0xFF, 0xFF, 0x1F], "timestamp.nanoseconds", "out of range"),
            ([9, 1, 2, 3], "objectId", "truncated"),
            ([11, 0, 0], "link.className", "must not be empty"),
            ([11, 1, 0x41, 1, 1], "link.primaryKey", "cannot be a primary key"),
        ]
        for (valueBytes, field, reason) in cases {
            XCTAssertThrowsError(try WireChangeset(decoding: prefix + valueBytes)) { error in
                let error = error as! WireError
                XCTAssertEqual(error.code, .badMessage, "\(valueBytes)")
                XCTAssertEqual(error.field, "changeset.instructions[0].value.\(field)", "\(valueBytes)")
                XCTAssertTrue(error.reason.contains(reason), "\(valueBytes): \(error.message)")
                XCTAssertGreaterThanOrEqual(error.offset ?? -1, 12)
            }
        }
    }

    /// Strings must be valid UTF-8: each kind of bad sequence is refused, and valid text
    /// (the replacement character itself included) comes back byte for byte.
    func testStringsAreValidatedAsUTF8() throws {
        func read(_ utf8: [UInt8]) throws -> String {
            var bytes: [UInt8] = []
            var n = UInt64(utf8.count)
            repeat {
                bytes.append(UInt8(n & 0x7F) | (n >= 0x80 ? 0x80 : 0))
                n >>= 7
            } while n > 0
            var reader = WireReader(bytes + utf8, limits: WireLimits())
            return try reader.string("s")
        }
        let bad: [[UInt8]] = [
            [0xC3, 0x28], [0x80], [0xBF], [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80],
            [0xF0, 0x80, 0x80, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xFF], [0xE2, 0x82],
            [0x61, 0xF0, 0x9F, 0x98], Array("ok".utf8) + [0xFE] + Array("ok".utf8),
        ]
        for bytes in bad {
            XCTAssertThrowsError(try read(bytes), "\(bytes)") { error in
                XCTAssertTrue((error as! WireError).message.contains("not valid UTF-8"), "\(bytes)")
            }
        }
        for text in ["", "a", "Grüße", "日本語", "🦀 and \u{FFFD}", "\u{0}", String(repeating: "é", count: 1000)] {
            XCTAssertEqual(try read(Array(text.utf8)), text)
        }
    }

    func testUnknownTagsAndKindsAreRefused() {
        let cases: [([UInt8], String)] = [
            ([1, 99], "instructions[0].tag"),
            ([1, 15], "instructions[0].tag"),
            ([1, 2, 1, 0x54, 0, 1, 7, 1, 0x61], "instructions[0].object.path[0].kind"),    // step kind 7
            ([1, 2, 1, 0x54, 0, 1, 1, 0], "instructions[0].object.path[0].kind"),           // index step first
            ([1, 20, 1, 0x43, 9, 0], "instructions[0].kind"),                               // class kind 9
            ([1, 20, 1, 0x43, 1, 1], "instructions[0].hasPrimaryKey"),                      // embedded with a key
            ([1, 20, 1, 0x43, 0, 0], "instructions[0].hasPrimaryKey"),                      // top-level without
            ([1, 20, 1, 0x43, 0, 1, 1, 0x6B, 4, 0], "instructions[0].primaryKey.type"),     // double key
            ([1, 23, 1, 0x43, 1, 0x70, 13, 0, 0], "instructions[0].property.type"),
            ([1, 23, 1, 0x43, 1, 0x70, 2, 4, 0], "instructions[0].property.collection"),
            ([1, 23, 1, 0x43, 1, 0x70, 2, 0, 4], "instructions[0].property.flags"),
            ([1, 23, 1, 0x43, 1, 0x70, 11, 0, 0, 0], "instructions[0].property.linkTarget"), // empty target
            ([1, 14, 1, 0x54, 0, 0, 1, 0x70, 3], "instructions[0].position"),
        ]
        for (bytes, field) in cases {
            // Zero padding keeps the instruction count plausible, so the named field fails first.
            XCTAssertThrowsError(try WireChangeset(decoding: bytes + [UInt8](repeating: 0, count: 8))) { error in
                let error = error as! WireError
                XCTAssertEqual(error.code, .badMessage, "\(bytes): \(error.message)")
                XCTAssertEqual(error.field, "changeset.\(field)", "\(bytes): \(error.message)")
            }
        }
    }

    func testTrailingBytesAreRefused() throws {
        let bytes = try WireChangeset([.eraseObject(Fixtures.task)]).encoded()
        XCTAssertThrowsError(try WireChangeset(decoding: bytes + [0])) { error in
            XCTAssertTrue((error as! WireError).reason.contains("1 unexpected bytes"))
        }
    }

    func testEncoderRefusesWhatCannotTravel() {
        let empty = WireObjectPath(className: "", primaryKey: .int(1))
        let cases: [(WireInstruction, String)] = [
            (.eraseObject(empty), "instructions[0].object.className"),
            (.set(object: Fixtures.task, property: "", value: .null), "instructions[0].property"),
            (.createObject(className: "C", primaryKey: .int(1), values: [WirePropertyValue("", .null)]), "instructions[0].values[0].name"),
            (.set(object: Fixtures.task, property: "p", value: .timestamp(WireTimestamp(seconds: 1, nanoseconds: -1))),
             "instructions[0].value.timestamp"),
            (.set(object: Fixtures.task, property: "p", value: .link(WireObjectRef(className: "", primaryKey: .null))),
             "instructions[0].value.link.className"),
            (.eraseObject(WireObjectPath(WireObjectRef(className: "A", primaryKey: .null), path: [.index(0)])),
             "instructions[0].object.path[0]"),
            (.eraseObject(WireObjectPath(WireObjectRef(className: "A", primaryKey: .null), path: [.property("p"), .key("a"), .index(1)])),
             "instructions[0].object.path[2]"),
            (.addClass(WireClassSchema(name: "E", kind: .embedded, primaryKey: WirePrimaryKeySchema(name: "_id", type: .int))),
             "instructions[0].primaryKey"),
            (.addClass(WireClassSchema(name: "T", kind: .topLevel, primaryKey: nil)), "instructions[0].primaryKey"),
            (.addClass(WireClassSchema(name: "T", primaryKey: WirePrimaryKeySchema(name: "_id", type: .double))),
             "instructions[0].primaryKey.type"),
            (.addProperty(className: "T", property: WirePropertySchema(name: "l", type: .link)), "instructions[0].property.linkTarget"),
            (.addProperty(className: "T", property: WirePropertySchema(name: "i", type: .int, linkTarget: "X")),
             "instructions[0].property.linkTarget"),
        ]
        for (instruction, field) in cases {
            XCTAssertThrowsError(try WireChangeset([instruction]).encoded()) { error in
                let error = error as! WireError
                XCTAssertEqual(error.code, .badMessage, "\(instruction)")
                XCTAssertEqual(error.field, field, "\(instruction): \(error.message)")
            }
        }
    }

    func testPathDepthIsBoundedBothWays() throws {
        var limits = WireLimits()
        limits.maxPathDepth = 4
        let deep = WireObjectPath(WireObjectRef(className: "A", primaryKey: .int(1)),
                                  path: Array(repeating: .property("p"), count: 5))
        XCTAssertThrowsError(try WireChangeset([.eraseObject(deep)]).encoded(limits: limits)) { error in
            XCTAssertEqual((error as! WireError).code, .limitsExceeded)
        }
        let bytes = try WireChangeset([.eraseObject(deep)]).encoded()
        XCTAssertThrowsError(try WireChangeset(decoding: bytes, limits: limits)) { error in
            let error = error as! WireError
            XCTAssertEqual(error.code, .limitsExceeded)
            XCTAssertEqual(error.field, "changeset.instructions[0].object.path")
        }
        let atLimit = WireObjectPath(deep.root, path: Array(deep.path.prefix(4)))
        XCTAssertEqual(try WireChangeset(decoding: WireChangeset([.eraseObject(atLimit)]).encoded(limits: limits), limits: limits).instructions,
                       [.eraseObject(atLimit)])
    }

    func testValueTypeConversions() {
        XCTAssertEqual(Fixtures.uuid.uuid, UUID(uuidString: "3B241101-E2BB-4255-8CAF-4136C566A962"))
        XCTAssertEqual(Fixtures.uuid.description, "3b241101-e2bb-4255-8caf-4136c566a962")
        XCTAssertEqual(Fixtures.objectId.description, "651f2a001122334455667788")
        XCTAssertEqual(WireObjectId(bytes: Fixtures.objectId.bytes), Fixtures.objectId)
        XCTAssertNil(WireObjectId(bytes: [1, 2, 3]))
        XCTAssertNil(WireUUID(bytes: [UInt8](repeating: 0, count: 15)))
        XCTAssertLessThan(WireObjectId(bytes: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1])!, WireObjectId(bytes: [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0])!)
        for key in Fixtures.primaryKeys { XCTAssertEqual(WirePrimaryKey(key.value), key) }
        XCTAssertNil(WirePrimaryKey(.double(1)))
        XCTAssertEqual(Fixtures.embedded.description, "Order[\"o-1\"].lines[2].address.tags[\"home\"]")
        XCTAssertEqual(Fixtures.instructions[5].topLevelObject, Fixtures.embedded.root)
        XCTAssertNil(Fixtures.instructions.last!.topLevelObject)
    }

    func testHybridTimestampAdvances() {
        let t = WireHybridTimestamp(milliseconds: 100, counter: 3)
        XCTAssertEqual(t.advanced(to: 200), WireHybridTimestamp(milliseconds: 200))
        XCTAssertEqual(t.advanced(to: 100), WireHybridTimestamp(milliseconds: 100, counter: 4))
        XCTAssertEqual(t.advanced(to: 50), WireHybridTimestamp(milliseconds: 100, counter: 4))
        XCTAssertEqual(WireHybridTimestamp(milliseconds: 7, counter: .max).advanced(to: 0), WireHybridTimestamp(milliseconds: 8))
        XCTAssertLessThan(t, t.advanced(to: 0))
    }

    func testHybridTimestampReceives() {
        let local = WireHybridTimestamp(milliseconds: 100, counter: 3)
        // The wall clock is ahead of both: it wins, counter 0.
        XCTAssertEqual(local.receiving(WireHybridTimestamp(milliseconds: 150, counter: 9), now: 200), WireHybridTimestamp(milliseconds: 200))
        // The remote is ahead: past its counter.
        XCTAssertEqual(local.receiving(WireHybridTimestamp(milliseconds: 150, counter: 9), now: 120), WireHybridTimestamp(milliseconds: 150, counter: 10))
        // The local reading is ahead: past its own counter.
        XCTAssertEqual(local.receiving(WireHybridTimestamp(milliseconds: 90, counter: 50), now: 50), WireHybridTimestamp(milliseconds: 100, counter: 4))
        // Same milliseconds: past both counters.
        XCTAssertEqual(local.receiving(WireHybridTimestamp(milliseconds: 100, counter: 7), now: 100), WireHybridTimestamp(milliseconds: 100, counter: 8))
        XCTAssertEqual(local.receiving(WireHybridTimestamp(milliseconds: 100, counter: .max), now: 0), WireHybridTimestamp(milliseconds: 101))
        // Whatever the inputs, the result follows both readings.
        var rng = SplitMix64(seed: 11)
        for _ in 0..<1_000 {
            let a = WireHybridTimestamp(milliseconds: UInt64.random(in: 0...20, using: &rng), counter: UInt32.random(in: 0...3, using: &rng))
            let b = WireHybridTimestamp(milliseconds: UInt64.random(in: 0...20, using: &rng), counter: UInt32.random(in: 0...3, using: &rng))
            let next = a.receiving(b, now: UInt64.random(in: 0...20, using: &rng))
            XCTAssertGreaterThan(next, a)
            XCTAssertGreaterThan(next, b)
        }
    }
}
