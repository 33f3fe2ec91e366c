import Foundation
import XCTest
import OpenRealmWire
@testable import OpenRealmServer

/// The `__clocks` keys are stored: however they are built, they must stay the text
/// they have always been (class name, U+001F, the primary key's description).
final class PropertyClocksTests: XCTestCase {
    func testClockKeysKeepTheirStoredForm() throws {
        let id = try XCTUnwrap(WireObjectId(bytes: [0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0x00, 0x10, 0xfe, 0xff]))
        XCTAssertEqual(id.description, "0123456789abcdef0010feff")
        XCTAssertEqual(PropertyClocks.key(WireObjectRef(className: "Task", primaryKey: .objectId(id))),
                       "Task\u{1F}oid(0123456789abcdef0010feff)")
        XCTAssertEqual(PropertyClocks.key(WireObjectRef(className: "Ünïcode", primaryKey: .int(-42))), "Ünïcode\u{1F}-42")
        var rng = SystemRandomNumberGenerator()
        let uuid = try XCTUnwrap(WireUUID(bytes: (0..<16).map { _ in UInt8.random(in: 0...255, using: &rng) }))
        for key: WirePrimaryKey in [.null, .int(.max), .int(.min), .string("a\u{1F}b \"q\""), .uuid(uuid)]
            + (0..<50).map({ _ in .objectId(WireObjectId(bytes: (0..<12).map { _ in UInt8.random(in: 0...255, using: &rng) })!) }) {
            let ref = WireObjectRef(className: "Task", primaryKey: key)
            XCTAssertEqual(PropertyClocks.key(ref), "Task\u{1F}" + key.description)
        }
        for _ in 0..<50 {
            let bytes = (0..<12).map { _ in UInt8.random(in: 0...255, using: &rng) }
            XCTAssertEqual(WireObjectId(bytes: bytes)!.description, bytes.map { String(format: "%02x", $0) }.joined())
        }
    }
}
