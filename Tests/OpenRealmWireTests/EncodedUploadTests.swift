import Foundation
import XCTest
@testable import OpenRealmWire

/// Upload frames made from changesets encoded beforehand
/// (``WireEncoder/encodeUpload(session:changesets:)``) are the frames ``WireEncoder/encode(_:)``
/// makes of the same upload, compressed or not, and decode back to it.
final class EncodedUploadTests: XCTestCase {
    func upload(_ changesets: [WireUploadChangeset]) throws -> (WireUpload, [WireEncoder.EncodedUploadChangeset]) {
        let encoded = try changesets.map {
            WireEncoder.EncodedUploadChangeset(clientVersion: $0.clientVersion, lastIntegratedServerVersion: $0.lastIntegratedServerVersion,
                                               timestamp: $0.timestamp, instructions: try WireChangeset($0.instructions).encoded())
        }
        return (WireUpload(session: 7, changesets: changesets), encoded)
    }

    func testFramesEqualTheEncodersAndDecodeBack() throws {
        var big: [WireInstruction] = []
        for i in 0..<2_000 {
            big.append(.createObject(className: "Task", primaryKey: .int(Int64(i)),
                                     values: [WirePropertyValue("title", .string("task number \(i)")), WirePropertyValue("score", .int(Int64(i)))]))
        }
        let cases: [[WireUploadChangeset]] = [
            [],
            [WireUploadChangeset(clientVersion: 3, lastIntegratedServerVersion: 0, timestamp: WireHybridTimestamp(milliseconds: 1), instructions: [])],
            [WireUploadChangeset(clientVersion: 4, lastIntegratedServerVersion: 300, timestamp: WireHybridTimestamp(milliseconds: 1_800_000_000_000, counter: 9),
                                 instructions: Fixtures.instructions),
             WireUploadChangeset(clientVersion: 200, lastIntegratedServerVersion: 301, timestamp: WireHybridTimestamp(milliseconds: 1_800_000_000_001),
                                 instructions: Array(Fixtures.instructions.reversed()))],
            // Over the compression threshold.
            [WireUploadChangeset(clientVersion: 5, lastIntegratedServerVersion: 2, timestamp: WireHybridTimestamp(milliseconds: 5), instructions: big)],
        ]
        let encoder = WireEncoder()
        for changesets in cases {
            let (message, encoded) = try upload(changesets)
            let frame = try encoder.encodeUpload(session: message.session, changesets: encoded)
            XCTAssertEqual(frame, try encoder.encode(.upload(message)), "\(changesets.count) changeset(s)")
            var decoder = WireFrameDecoder()
            XCTAssertEqual(try decoder.feed(frame), [.upload(message)])
        }
        let (_, encoded) = try upload(cases[3])
        XCTAssertEqual(try encoder.encodeUpload(session: 7, changesets: encoded)[7] & WireProtocol.compressedFlag, WireProtocol.compressedFlag)
    }

    func testBadInputIsRefusedWithTheField() throws {
        let encoder = WireEncoder()
        XCTAssertThrowsError(try encoder.encodeUpload(session: 0, changesets: [])) { error in
            XCTAssertEqual((error as? WireError)?.code, .badMessage)
        }
        let empty = WireEncoder.EncodedUploadChangeset(clientVersion: 1, lastIntegratedServerVersion: 0,
                                                       timestamp: WireHybridTimestamp(milliseconds: 1), instructions: [])
        XCTAssertThrowsError(try encoder.encodeUpload(session: 1, changesets: [empty])) { error in
            XCTAssertEqual((error as? WireError)?.code, .badMessage)
            XCTAssertEqual((error as? WireError)?.field, "upload.changesets[0].instructions")
        }
        var small = WireLimits()
        small.maxMessageSize = 64
        let long = WireEncoder.EncodedUploadChangeset(clientVersion: 1, lastIntegratedServerVersion: 0,
                                                      timestamp: WireHybridTimestamp(milliseconds: 1), instructions: [UInt8](repeating: 0, count: 100))
        XCTAssertThrowsError(try WireEncoder(limits: small).encodeUpload(session: 1, changesets: [long])) { error in
            XCTAssertEqual((error as? WireError)?.code, .limitsExceeded)
        }
    }

    /// The non-generic byte initializers agree with the generic one.
    func testObjectIdAndUUIDFromBytes() {
        let id = Fixtures.objectId
        XCTAssertEqual(id.bytes.withUnsafeBytes { WireObjectId(bytes: $0) }, id)
        XCTAssertEqual(WireObjectId(bytes: id.bytes[...]), id)
        XCTAssertNil([UInt8](repeating: 1, count: 11).withUnsafeBytes { WireObjectId(bytes: $0) })
        let uuid = Fixtures.uuid
        XCTAssertEqual(uuid.bytes.withUnsafeBytes { WireUUID(bytes: $0) }, uuid)
        XCTAssertEqual(WireUUID(bytes: uuid.bytes[...]), uuid)
        XCTAssertNil([UInt8](repeating: 1, count: 17).withUnsafeBytes { WireUUID(bytes: $0) })
    }
}
