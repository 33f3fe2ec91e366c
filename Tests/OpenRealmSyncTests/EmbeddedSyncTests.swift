import Foundation
import XCTest
@testable import OpenRealmSync
import RealmSwift

class ShipmentGeo: EmbeddedObject {
    @Persisted var lat: Double
    @Persisted var lng: Double
}

class ShipmentAddress: EmbeddedObject {
    @Persisted var street: String
    @Persisted var city: String
    @Persisted var geo: ShipmentGeo?
}

class ShipmentLine: EmbeddedObject {
    @Persisted var product: String
    @Persisted var qty: Int
    @Persisted var shipTo: ShipmentAddress?
}

class Shipment: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var name: String
    @Persisted var address: ShipmentAddress?
    @Persisted var lines: List<ShipmentLine>
}

/// Embedded objects through a real server: one client creates, changes, replaces and
/// removes embedded objects (a single link, a list of them, one inside another) and the
/// other converges each time, in both directions; a new client downloads the same.
final class EmbeddedSyncTests: SyncTestCase {
    static let types: [ObjectBase.Type] = [Shipment.self, ShipmentAddress.self, ShipmentGeo.self, ShipmentLine.self]

    nonisolated(nonsending) func open(_ name: String) async throws -> Realm {
        try await openClient(name, Self.types) { $0.append(QuerySubscription<Shipment>(name: "shipments")) }.1
    }

    /// The shipments of `realm` as text, in primary key order (empty when there are none).
    func describe(_ realm: Realm) -> String {
        realm.refresh()
        func address(_ a: ShipmentAddress?) -> String {
            guard let a else { return "-" }
            return "\(a.street),\(a.city)" + (a.geo.map { "@\($0.lat),\($0.lng)" } ?? "")
        }
        return realm.objects(Shipment.self).sorted(by: \._id).map { s in
            "\(s.name){\(address(s.address))}[" + s.lines.map { "\($0.product)x\($0.qty)/\(address($0.shipTo))" }.joined(separator: ";") + "]"
        }.joined(separator: "\n")
    }

    /// Runs `change` on `from`, uploads it and waits until `to` shows what `from` shows.
    @MainActor
    func change(_ from: Realm, _ to: Realm, _ what: String, file: StaticString = #filePath, line: UInt = #line,
                _ change: (Shipment) -> Void) async throws {
        from.refresh()
        let shipment = try XCTUnwrap(from.objects(Shipment.self).first, file: file, line: line)
        try from.write { change(shipment) }
        try await from.syncSession!.wait(for: .upload)
        let expected = describe(from)
        try await waitUntil("\(what): the other client to show \(expected)", file: file, line: line) { describe(to) == expected }
    }

    @MainActor
    func testEmbeddedObjectsConvergeBothWays() async throws {
        let a = try await open("a")
        let b = try await open("b")

        try a.write {
            a.add(Shipment(value: [
                "name": "order",
                "address": ["street": "Main 1", "city": "Oslo", "geo": ["lat": 59.9, "lng": 10.7]],
                "lines": [["product": "pen", "qty": 1], ["product": "ink", "qty": 2, "shipTo": ["street": "Dock 2", "city": "Bergen"]],
                          ["product": "pad", "qty": 3]],
            ]))
        }
        try await a.syncSession!.wait(for: .upload)
        let created = describe(a)
        XCTAssertEqual(created, "order{Main 1,Oslo@59.9,10.7}[penx1/-;inkx2/Dock 2,Bergen;padx3/-]")
        try await waitUntil("b to receive the shipment") { describe(b) == created }

        try await change(a, b, "a field of the embedded object") { $0.address!.city = "Trondheim" }
        try await change(b, a, "a field of the object inside it") { $0.address!.geo!.lat = 63.4 }
        try await change(b, a, "a field of a list element") { $0.lines[1].qty = 20 }
        try await change(a, b, "a field of an object inside a list element") { $0.lines[1].shipTo!.city = "Stavanger" }
        try await change(a, b, "replacing the embedded object") {
            $0.address = ShipmentAddress(value: ["street": "Quay 3", "city": "Tromsø"])
        }
        try await change(b, a, "removing list elements, inserting one") {
            $0.lines.remove(at: 0)
            $0.lines.insert(ShipmentLine(value: ["product": "cap", "qty": 4]), at: 1)
            $0.lines.remove(at: 2)
        }
        XCTAssertEqual(describe(a), "order{Quay 3,Tromsø}[inkx20/Dock 2,Stavanger;capx4/-]")
        try await change(a, b, "removing the embedded object") { $0.address = nil }
        try await change(b, a, "moving and clearing the inner link") {
            $0.lines.move(from: 1, to: 0)
            $0.lines[1].shipTo = nil
        }
        let final = describe(a)
        XCTAssertEqual(final, "order{-}[capx4/-;inkx20/-]")

        // The server holds the same: a new client downloads it.
        let c = try await open("c")
        try await waitUntil("c to download the shipment") { describe(c) == final }

        // Deleting the owner deletes its embedded objects everywhere.
        try a.write { a.delete(a.objects(Shipment.self)) }
        try await a.syncSession!.wait(for: .upload)
        try await waitUntil("b to delete the shipment") { describe(b).isEmpty }
        try await waitUntil("c to delete the shipment") { describe(c).isEmpty }
        XCTAssertTrue(b.isEmpty, "the embedded objects went with their owner (embedded classes cannot be fetched on their own)")
    }

    /// Offline, several commits change one list of embedded objects: an earlier
    /// commit's write to an element is uploaded with the element's position as it was
    /// then, not as later commits moved it.
    @MainActor
    func testOfflineCommitsUploadEmbeddedPathsAsTheyWere() async throws {
        let a = try await open("a")
        let b = try await open("b")
        try a.write {
            a.add(Shipment(value: ["name": "order", "lines": [["product": "p0"], ["product": "p1"], ["product": "p2"]]]))
        }
        try await a.syncSession!.wait(for: .upload)
        let created = describe(a)
        try await waitUntil("b to receive the shipment") { describe(b) == created }

        try await goOffline(a)
        let shipment = try XCTUnwrap(a.objects(Shipment.self).first)
        try a.write { shipment.lines[2].qty = 7 }                                      // p0 p1 p2x7
        try a.write { shipment.lines.insert(ShipmentLine(value: ["product": "n"]), at: 0) } // n p0 p1 p2x7
        try a.write { shipment.lines[1].qty = 5 }                                      // n p0x5 p1 p2x7
        try a.write { shipment.lines.remove(at: 2) }                                   // n p0x5 p2x7
        try a.write { shipment.lines[2].shipTo = ShipmentAddress(value: ["city": "Oslo"]) }
        try a.write { shipment.lines.move(from: 2, to: 0) }                            // p2x7 n p0x5
        try a.write { shipment.lines[0].shipTo!.city = "Bodø" }
        let expected = "order{-}[p2x7/,Bodø;nx0/-;p0x5/-]"
        XCTAssertEqual(describe(a), expected)
        a.syncSession!.resume()
        try await a.syncSession!.wait(for: .upload)
        try await waitUntil("b to converge") { describe(b) == expected }
        let c = try await open("c")
        try await waitUntil("c to download the shipment") { describe(c) == expected }
    }
}
