import Foundation
import XCTest
import RealmSwift

class GeoSyncLocation: EmbeddedObject {
    @Persisted var coordinates: List<Double>
    @Persisted var type: String = "Point"

    convenience init(_ latitude: Double, _ longitude: Double) {
        self.init()
        coordinates.append(objectsIn: [longitude, latitude])
    }
}

class GeoSyncPlace: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var name: String
    @Persisted var location: GeoSyncLocation?
}

/// A geospatial query as a Flexible Sync subscription: the server reads subscriptions
/// with the same query language but keeps to the class's own fields, so a GEOWITHIN
/// (which reads an embedded location) is refused with a message naming the rule; the
/// subscription set goes on, and the synced objects answer geospatial queries locally.
final class GeospatialSubscriptionTests: SyncTestCase {
    static let types: [ObjectBase.Type] = [GeoSyncPlace.self, GeoSyncLocation.self]

    @MainActor
    func testGeoWithinSubscriptionIsRefusedAndLocalGeoQueriesWork() async throws {
        let (_, writer) = try await openClient("geo-writer", Self.types) { $0.append(QuerySubscription<GeoSyncPlace>(name: "all")) }
        try writer.write {
            writer.add(GeoSyncPlace(value: ["_id": ObjectId.generate(), "name": "Copenhagen", "location": GeoSyncLocation(55.6761, 12.5683)]))
            writer.add(GeoSyncPlace(value: ["_id": ObjectId.generate(), "name": "New York", "location": GeoSyncLocation(40.7128, -74.0060)]))
        }
        try await writer.syncSession!.wait(for: .upload)

        let (_, reader) = try await openClient("geo-reader", Self.types) { $0.append(QuerySubscription<GeoSyncPlace>(name: "all")) }
        let box = GeoBox(bottomLeft: (55, 12), topRight: (56, 13))!
        let subscriptions = reader.subscriptions
        for subscription in [QuerySubscription<GeoSyncPlace>(name: "typed") { $0.location.geoWithin(box) },
                             QuerySubscription<GeoSyncPlace>(name: "rql", where: "location GEOWITHIN geoCircle([12.56, 55.67], 0.01)")] {
            do {
                // Alone: beside a subscription to every place, the class's query would be
                // TRUEPREDICATE OR ..., which is every place and passes.
                try await subscriptions.update {
                    subscriptions.removeAll()
                    subscriptions.append(subscription)
                }
                XCTFail("a GEOWITHIN subscription must be refused")
            } catch let error as Realm.Error {
                XCTAssertEqual(error.code, .subscriptionFailed, "\(error)")
                XCTAssertTrue(error.message.contains("GEOWITHIN"), error.message)
                XCTAssertTrue(error.message.contains("geospatial queries cannot be subscribed to"), error.message)
            }
        }
        // The set recovers: a plain subscription completes and brings both places, which
        // answer the geospatial query locally.
        try await subscriptions.update {
            subscriptions.removeAll()
            subscriptions.append(QuerySubscription<GeoSyncPlace>(name: "all"))
        }
        XCTAssertEqual(subscriptions.state, .complete)
        try await reader.syncSession!.wait(for: .download)
        reader.refresh()
        XCTAssertEqual(reader.objects(GeoSyncPlace.self).count, 2)
        XCTAssertEqual(reader.objects(GeoSyncPlace.self).where { $0.location.geoWithin(box) }.map(\.name), ["Copenhagen"])
    }
}
