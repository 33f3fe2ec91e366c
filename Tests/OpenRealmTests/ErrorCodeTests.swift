import Foundation
import RealmSwift
import XCTest

/// `Realm.Error.Code`'s raw values are the Realm Swift SDK's `RLMError` values: code
/// that logs, stores or compares `errorCode` (or `_nsError.code`) sees the same
/// numbers as with the SDK.
final class ErrorCodeTests: XCTestCase {
    func testRawValuesAreTheSDKs() {
        let sdk: [(Realm.Error.Code, Int)] = [
            (.fail, 1), (.fileAccess, 2), (.filePermissionDenied, 3), (.fileExists, 4), (.fileNotFound, 5),
            (.fileFormatUpgradeRequired, 6), (.incompatibleLockFile, 8), (.addressSpaceExhausted, 9),
            (.schemaMismatch, 10), (.alreadyOpen, 12), (.invalidInput, 13), (.outOfDiskSpace, 14),
            (.incompatibleSession, 15), (.unsupportedFileFormatVersion, 16), (.multipleSyncAgents, 17),
            (.subscriptionFailed, 18), (.fileOperationFailed, 19), (.invalidDatabase, 20),
            (.incompatibleHistories, 21), (.noSubscriptionForWrite, 22),
        ]
        for (code, value) in sdk {
            XCTAssertEqual(code.rawValue, value, "Realm.Error.Code.\(code)")
            XCTAssertEqual(Realm.Error(code, "x").errorCode, value, "Realm.Error.\(code).errorCode")
        }
    }

    /// OpenRealm's own codes never take a value the SDK gives another meaning.
    func testOwnCodesDoNotCollideWithTheSDKs() {
        let sdkValues = Set(1...22)
        let own: [Realm.Error.Code] = [.invalidQuery, .invalidValue, .primaryKeyExists, .wrongTransactionState,
                                       .objectInvalidated, .readOnly, .invalidArgument]
        for code in own { XCTAssertFalse(sdkValues.contains(code.rawValue), "Realm.Error.Code.\(code) = \(code.rawValue)") }
        XCTAssertEqual(Set(Realm.Error.Code.allCases.map(\.rawValue)).count, Realm.Error.Code.allCases.count)
    }

    /// A file that is not a realm is `invalidDatabase` (20), as with the SDK.
    func testNotARealmIsInvalidDatabase() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-realm-\(UUID().uuidString).realm")
        try Data(repeating: 0x5A, count: 8192).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        XCTAssertThrowsError(try Realm(fileURL: url)) { error in
            XCTAssertEqual((error as? Realm.Error)?.code, .invalidDatabase, "\(error)")
            XCTAssertEqual((error as? Realm.Error)?.errorCode, 20)
        }
    }
}
