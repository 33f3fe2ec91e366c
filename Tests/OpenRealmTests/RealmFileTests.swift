import Foundation
import RealmSwift
import XCTest

final class FileVersionedObject: Object {
    @Persisted var count = 0
}

/// `Realm(fileURL:)`, `schemaVersionAtURL`, `Realm.performMigration(for:)` and the
/// file URL errors carry, as a Realm Swift SDK user calls them.
final class RealmFileTests: XCTestCase {
    private func assertRealmError(_ code: Realm.Error.Code, _ url: URL, _ message: String? = nil,
                                  file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> Void) {
        do {
            try body()
            XCTFail("expected Realm.Error.\(code)", file: file, line: line)
        } catch let error as Realm.Error {
            XCTAssertEqual(error.code, code, "\(error)", file: file, line: line)
            XCTAssertEqual(error.fileURL?.path, url.path, file: file, line: line)
            if let message { XCTAssertEqual(error.localizedDescription, message, file: file, line: line) }
        } catch {
            XCTFail("expected Realm.Error.\(code), got \(error)", file: file, line: line)
        }
    }

    func testRealmFileURLTakesTheDefaultConfigurationsOtherSettings() throws {
        let url = try makeTemporaryDirectory().appendingPathComponent("file.realm")
        let old = Realm.Configuration.defaultConfiguration
        defer { Realm.Configuration.defaultConfiguration = old }
        Realm.Configuration.defaultConfiguration = Realm.Configuration(inMemoryIdentifier: "default-\(UUID())", schemaVersion: 4,
                                                                       objectTypes: [FileVersionedObject.self])
        let realm = try Realm(fileURL: url)
        XCTAssertEqual(realm.configuration.fileURL, url)
        XCTAssertNil(realm.configuration.inMemoryIdentifier)
        XCTAssertEqual(realm.configuration.schemaVersion, 4)
        try realm.write { realm.create(FileVersionedObject.self, value: ["count": 1]) }
        XCTAssertTrue(FileManager.default.fileExists(atPath: url.path))
        XCTAssertEqual(try schemaVersionAtURL(url), 4)
    }

    func testSchemaVersionOfAMissingFileIsNotInitialized() throws {
        let url = try makeTemporaryDirectory().appendingPathComponent("missing.realm")
        assertRealmError(.invalidDatabase, url, "Realm at path '\(url.path)' has not been initialized.") {
            _ = try schemaVersionAtURL(url)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: url.path), "reading the version created the file")
    }

    func testSchemaVersionOfOpenAndClosedFiles() throws {
        var configuration = try makeFileConfiguration([FileVersionedObject.self])
        let url = configuration.fileURL!
        do {
            _ = try Realm(configuration: configuration)
            XCTAssertEqual(try schemaVersionAtURL(url), 0, "initial version")
        }
        XCTAssertEqual(try schemaVersionAtURL(url), 0)
        configuration.schemaVersion = 3
        let realm = try Realm(configuration: configuration)
        XCTAssertEqual(try schemaVersionAtURL(url), 3, "while the realm is open")
        XCTAssertEqual(realm.objects(FileVersionedObject.self).count, 0)
    }

    func testSchemaVersionOfSomethingNotARealm() throws {
        let directory = try makeTemporaryDirectory()
        assertRealmError(.fileAccess, directory) { _ = try schemaVersionAtURL(directory) }
        do {
            _ = try schemaVersionAtURL(URL(fileURLWithPath: "/dev/null"))
            XCTFail("Expected .filePermissionDenied or .fileAccess, but no error was raised")
        } catch Realm.Error.filePermissionDenied {
        } catch Realm.Error.fileAccess {
        } catch {
            XCTFail("Expected .filePermissionDenied or .fileAccess, got \(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/dev/null.lock"))
        let garbage = directory.appendingPathComponent("garbage.realm")
        try Data(repeating: 0x5a, count: 8192).write(to: garbage)
        assertRealmError(.invalidDatabase, garbage) { _ = try schemaVersionAtURL(garbage) }
        assertRealmError(.fail, garbage) { _ = try schemaVersionAtURL(garbage, encryptionKey: Data(count: 64)) }
    }

    func testOpeningBelowAFileFailsWithTheFileURL() {
        let url = URL(fileURLWithPath: "/dev/null/foo")
        assertRealmError(.fileOperationFailed, url, "Failed to open file at path '/dev/null/foo': parent path is not a directory") {
            _ = try Realm(configuration: .init(fileURL: url))
        }
    }

    func testOpeningAMissingFileReadOnlyNamesIt() throws {
        let url = try makeTemporaryDirectory().appendingPathComponent("absent.realm")
        assertRealmError(.fileNotFound, url, "Failed to open Realm file at path '\(url.path)': No such file or directory") {
            _ = try Realm(configuration: Realm.Configuration(fileURL: url, readOnly: true))
        }
    }

    func testPerformMigrationRunsTheBlockOnce() throws {
        var configuration = try makeFileConfiguration([FileVersionedObject.self])
        do {
            let realm = try Realm(configuration: configuration)
            try realm.write { realm.create(FileVersionedObject.self, value: ["count": 1]) }
        }
        var runs = 0
        configuration.schemaVersion = 1
        configuration.migrationBlock = { migration, oldSchemaVersion in
            runs += 1
            XCTAssertEqual(oldSchemaVersion, 0)
            migration.enumerateObjects(ofType: "FileVersionedObject") { _, newObject in
                newObject!["count"] = 10
            }
        }
        try Realm.performMigration(for: configuration)
        XCTAssertEqual(runs, 1)
        XCTAssertEqual(try schemaVersionAtURL(configuration.fileURL!), 1)
        let realm = try Realm(configuration: configuration)
        XCTAssertEqual(runs, 1, "the migration ran again on open")
        XCTAssertEqual(realm.objects(FileVersionedObject.self).first?.count, 10)
    }
}
