import Foundation
import XCTest
import OpenRealmTestSupport
import OpenRealmWire
@testable import OpenRealmPostgres
@testable import OpenRealmServer

/// Random changesets over a few objects — creates, erases, sets, list, set and
/// dictionary operations, embedded objects through paths, links to objects in and out
/// of the changeset — integrate alike on both stores (``ObjectContractTests/assertAlike``).
/// Each seed is replayable: a failure names it.
extension ObjectContractTests {
    func testRandomChangesetsIntegrateAlike() throws {
        for seed: UInt64 in [1, 2, 3, 4] {
            var random = SplitMix64(seed: seed)
            // Everyone first; then mostly edits (a changeset with one refused instruction is refused whole).
            let everyone: [WireInstruction] = ["p1", "p2", "p3"].map {
                .createObject(className: "Person", primaryKey: .string($0), values: [])
            } + (1...4).map { .createObject(className: "Item", primaryKey: .int(Int64($0)), values: []) }
            let changesets = [everyone] + (0..<30).map { _ in Self.randomChangeset(&random) }
            let refs = (1...4).map { Self.item(Int64($0)) } + ["p1", "p2", "p3"].map(Self.person)
            let outcome = try assertAlike(changesets, refs: refs)
            XCTAssertGreaterThan(outcome.images.count, 0, "seed \(seed)")
            let refused = outcome.applied.filter { $0.hasPrefix("refused") }.count
            XCTAssertLessThan(refused, outcome.applied.count / 2, "seed \(seed): most changesets take effect")
            if (testRun?.totalFailureCount ?? 0) > 0 { return XCTFail("seed \(seed) differs") }
        }
    }

    private static func randomChangeset(_ random: inout SplitMix64) -> [WireInstruction] {
        (0..<Int.random(in: 1...5, using: &random)).map { _ in randomInstruction(&random) }
    }

    private static func randomInstruction(_ random: inout SplitMix64) -> WireInstruction {
        let id = Int64.random(in: 1...4, using: &random)
        let one = WireObjectPath(item(id))
        let person = { (r: inout SplitMix64) in Self.person("p\(Int.random(in: 1...3, using: &r))") }
        let index = { (r: inout SplitMix64) in UInt64.random(in: 0...4, using: &r) }
        let key = { (r: inout SplitMix64) in ["a", "b", "c"].randomElement(using: &r)! }
        let mixed = { (r: inout SplitMix64) -> WireValue in
            [.int(1), .double(1), .double(-0.5), .string("a"), .string("B"), .null, .bool(true), .link(person(&r))].randomElement(using: &r)!
        }
        switch Int.random(in: 0..<26, using: &random) {
        case 0, 1:
            return .createObject(className: "Item", primaryKey: .int(id), values: [
                WirePropertyValue("title", .string("t\(Int.random(in: 0...9, using: &random))")),
                WirePropertyValue("owner", .link(person(&random))),
            ])
        case 2:
            return .createObject(className: "Person", primaryKey: person(&random).primaryKey,
                                 values: [WirePropertyValue("name", .string("n"))])
        case 3:
            return .eraseObject(Int.random(in: 0..<4, using: &random) > 0 ? one : WireObjectPath(person(&random)))
        case 4: return .set(object: one, property: "title", value: .string("s\(Int.random(in: 0...9, using: &random))"))
        case 5: return .set(object: one, property: "maybe", value: Bool.random(using: &random) ? .null : .double(2.5))
        case 6: return .set(object: one, property: "owner", value: .link(person(&random)))
        case 7: return .set(object: one, property: "any", value: mixed(&random))
        case 8: return .addInteger(object: one, property: "count", delta: Int64.random(in: -3...3, using: &random))
        case 9: return .listInsert(object: one, property: "tags", index: index(&random), value: .string(key(&random)))
        case 10: return .listSet(object: one, property: "tags", index: index(&random), value: .string("set"))
        case 11: return .listErase(object: one, property: "tags", index: index(&random))
        case 12: return .listMove(object: one, property: "tags", from: index(&random), to: index(&random))
        case 13: return .listInsert(object: one, property: "friends", index: index(&random), value: .link(person(&random)))
        case 14: return .setInsert(object: one, property: "anys", value: mixed(&random))
        case 15: return .setErase(object: one, property: "anys", value: mixed(&random))
        case 16: return .setInsert(object: one, property: "crowd", value: .link(person(&random)))
        case 17: return .dictionarySet(object: one, property: "scores", key: key(&random),
                                       value: Bool.random(using: &random) ? .null : .double(1.5))
        case 18: return .dictionaryErase(object: one, property: "scores", key: key(&random))
        case 19: return .dictionarySet(object: one, property: "byName", key: key(&random), value: .link(person(&random)))
        case 20:
            let positions: [(String, WireEmbeddedPosition)] = [("address", .single), ("lines", .listIndex(index(&random))),
                                                               ("places", .dictionaryKey(key(&random)))]
            let (property, position) = positions.randomElement(using: &random)!
            return .createEmbeddedObject(object: one, property: property, position: position,
                                         values: [WirePropertyValue("street", .string("e\(Int.random(in: 0...9, using: &random))"))])
        case 21: return .set(object: WireObjectPath(item(id), path: [.property("lines"), .index(index(&random))]),
                             property: "zip", value: .int(Int64.random(in: 0...9, using: &random)))
        case 22: return .set(object: WireObjectPath(item(id), path: [.property("places"), .key(key(&random))]),
                             property: "street", value: .string("k"))
        case 23: return .eraseObject(WireObjectPath(item(id), path: [.property("lines"), .index(index(&random))]))
        case 24: return .set(object: WireObjectPath(item(id), path: [.property("address")]), property: "zip", value: .int(7))
        default:
            return .clearCollection(object: one, property: ["tags", "anys", "crowd", "scores", "lines", "places", "friends"]
                .randomElement(using: &random)!)
        }
    }
}
