import Foundation
import XCTest
import OpenRealmSyncCore
import OpenRealmWire
@testable import OpenRealmServer

/// A test on one embedded store file of its own, in a temporary directory removed
/// after the test; and the schema instruction most such tests declare properties with.
class StoreFileTestCase: XCTestCase {
    var directory: URL!
    var store: ORCoreEnvironment!

    override func setUpWithError() throws {
        try skipOnPostgres("tests the embedded store's code on an ORCore file (OpenRealmPostgresTests holds PostgreSQL's to the same answers)")
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("openrealm-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try ORCoreEnvironment.openStore(path: directory.appendingPathComponent("store.realm").path)
    }

    override func tearDownWithError() throws {
        store = nil
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    /// `addProperty` of `name` to `cls`.
    static func property(_ cls: String, _ name: String, _ type: WirePropertyType, _ collection: WireCollectionKind = .none,
                         optional: Bool = false, link: String? = nil) -> WireInstruction {
        .addProperty(className: cls, property: WirePropertySchema(name: name, type: type, collection: collection,
                                                                  isOptional: optional, linkTarget: link))
    }
}
