import Foundation
import OpenRealm
import XCTest
import OpenRealmTestSupport

/// Helpers shared by the OpenRealm test files: temporary folders, in-memory
/// configurations with unique identifiers, and checks of thrown `Realm.Error`s.
extension XCTestCase {
    /// A new empty folder under the temporary directory, removed when the test ends.
    func makeTemporaryDirectory() throws -> URL {
        try TemporaryDirectory.make("openrealm-tests", removedBy: addTeardownBlock)
    }

    /// A configuration of a file realm in a new temporary folder.
    func makeFileConfiguration(_ types: [ObjectBase.Type], name: String = "test.realm") throws -> Realm.Configuration {
        let directory = try makeTemporaryDirectory()
        return Realm.Configuration(fileURL: directory.appendingPathComponent(name), objectTypes: types)
    }

    /// A configuration of an in-memory realm no other test uses.
    func makeInMemoryConfiguration(_ types: [ObjectBase.Type]) -> Realm.Configuration {
        Realm.Configuration(inMemoryIdentifier: "\(name)-\(UUID().uuidString)", objectTypes: types)
    }

    /// Asserts that `body` throws a `Realm.Error` with `code` whose message contains
    /// every string of `fragments`. Returns the error.
    @discardableResult
    func assertThrowsRealmError(_ code: Realm.Error.Code, messageContains fragments: [String] = [],
                                file: StaticString = #filePath, line: UInt = #line,
                                _ body: () throws -> Void) -> Realm.Error? {
        do {
            try body()
            XCTFail("Expected a Realm.Error with code .\(code), but nothing was thrown", file: file, line: line)
            return nil
        } catch let error as Realm.Error {
            XCTAssertEqual(error.code, code, "unexpected error: \(error)", file: file, line: line)
            for fragment in fragments {
                XCTAssertTrue(error.message.contains(fragment),
                              "message \"\(error.message)\" lacks \"\(fragment)\"", file: file, line: line)
            }
            return error
        } catch {
            XCTFail("Expected a Realm.Error with code .\(code), got \(type(of: error)): \(error)", file: file, line: line)
            return nil
        }
    }
}

extension Realm {
    /// The stored object of `type` with primary key `key`, read through an upsert that
    /// changes nothing: until queries exist, the one way a test can find an object it
    /// does not hold. Creates a default object when none exists, so callers check a
    /// property the default would not have.
    func upsertLookup<T: Object>(_ type: T.Type, primaryKey name: String, _ key: Any) throws -> T {
        try write { create(type, value: [name: key], update: .modified) }
    }
}
