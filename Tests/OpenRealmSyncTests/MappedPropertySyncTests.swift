import Foundation
import XCTest
import RealmSwift

final class MappedSyncNote: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var title: String
    @Persisted var rank: Int

    override class func propertiesMapping() -> [String: String] { ["title": "note_title", "rank": "note_rank"] }
}

/// The same stored class with the stored names as its Swift names: a client that
/// renames nothing, as another SDK or an older version of the app would be.
final class MappedSyncNoteAsStored: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var note_title: String
    @Persisted var note_rank: Int

    override class func _realmObjectName() -> String? { "MappedSyncNote" }
}

/// `propertiesMapping()` through a real server: a class's renamed properties are synced
/// under their stored names, and its subscriptions are sent in stored names, so a client
/// that renames them and one that does not share the same data.
final class MappedPropertySyncTests: SyncTestCase {
    @MainActor
    func testRenamedPropertiesSyncUnderTheirStoredNames() async throws {
        let (_, renaming) = try await openClient("renaming", [MappedSyncNote.self]) {
            $0.append(QuerySubscription<MappedSyncNote>(name: "ranked") { $0.rank > 1 })
        }
        let (_, plain) = try await openClient("plain", [MappedSyncNoteAsStored.self]) {
            $0.append(QuerySubscription<MappedSyncNoteAsStored>(name: "all"))
        }
        let query = try XCTUnwrap(renaming.subscriptions.first(named: "ranked")?.queryString)
        XCTAssertTrue(query.hasPrefix("note_rank "), query)

        try plain.write {
            plain.add(MappedSyncNoteAsStored(value: ["note_title": "low", "note_rank": 1]))
            plain.add(MappedSyncNoteAsStored(value: ["note_title": "high", "note_rank": 5]))
        }
        try await plain.syncSession!.wait(for: .upload)
        try await waitUntil("the renaming client to download what its subscription covers") {
            renaming.refresh()
            return renaming.objects(MappedSyncNote.self).map(\.title) == ["high"]
        }

        try renaming.write { renaming.objects(MappedSyncNote.self).where { $0.title == "high" }.first!.rank = 7 }
        try await renaming.syncSession!.wait(for: .upload)
        try await waitUntil("the plain client to see the change under the stored name") {
            plain.refresh()
            return plain.objects(MappedSyncNoteAsStored.self).where { $0.note_title == "high" }.first?.note_rank == 7
        }
    }
}
