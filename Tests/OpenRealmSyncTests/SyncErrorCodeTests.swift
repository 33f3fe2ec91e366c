import Foundation
import RealmSwift
import XCTest

/// `SyncError.Code`'s raw values are the Realm Swift SDK's `RLMSyncError` values for
/// every code both have, and the SDK's case names are accepted.
final class SyncErrorCodeTests: XCTestCase {
    func testRawValuesAreTheSDKs() {
        let sdk: [(SyncError.Code, Int)] = [
            (.clientResetError, 7), (.permissionDeniedError, 9), (.invalidFlexibleSyncSubscriptions, 10),
            (.writeRejected, 11), (.connectionFailed, 12), (.tlsHandshakeFailed, 13),
        ]
        for (code, value) in sdk { XCTAssertEqual(code.rawValue, value, "SyncError.Code.\(code)") }
        XCTAssertEqual(SyncError.Code.permissionDeniedError, .permissionDenied)
        XCTAssertEqual(Set(SyncError.Code.allCases.map(\.rawValue)).count, SyncError.Code.allCases.count)
    }
}
