import Foundation
import XCTest
import OpenRealmWire
@testable import OpenRealmServer

/// Post-images as stored bytes (``PostImages``): every kind of value and property comes
/// back as it went, and damaged bytes fail with an error naming the field, never a
/// crash or an allocation the bytes cannot back.
final class PostImagesTests: XCTestCase {
    static let ref = WireObjectRef(className: "Item", primaryKey: .string("a"))

    static let everything = ObjectImage(ref: ref, properties: [
        ObjectImage.Property("null", .single(.null)),
        ObjectImage.Property("bool", .single(.bool(true))),
        ObjectImage.Property("int", .single(.int(-7))),
        ObjectImage.Property("float", .single(.float(1.5))),
        ObjectImage.Property("double", .single(.double(-0.25))),
        ObjectImage.Property("string", .single(.string("é\u{301} x"))),
        ObjectImage.Property("binary", .single(.binary([0, 1, 255]))),
        ObjectImage.Property("date", .single(.timestamp(WireTimestamp(seconds: -3, nanoseconds: -5)))),
        ObjectImage.Property("decimal", .single(.decimal128(WireDecimal128(low: 12, high: 0x3040_0000_0000_0000)))),
        ObjectImage.Property("oid", .single(.objectId(WireObjectId(bytes: Array(0..<12) as [UInt8])!))),
        ObjectImage.Property("uuid", .single(.uuid(WireUUID(UUID())))),
        ObjectImage.Property("link", .single(.link(WireObjectRef(className: "Other", primaryKey: .int(3))))),
        ObjectImage.Property("noAddress", .embedded(nil)),
        ObjectImage.Property("address", .embedded(ObjectImage.Embedded(properties: [
            ObjectImage.Property("street", .single(.string("Main"))),
            ObjectImage.Property("phones", .list([.embedded(ObjectImage.Embedded(properties: [
                ObjectImage.Property("number", .single(.string("1"))),
            ]))])),
        ]))),
        ObjectImage.Property("tags", .list([.value(.string("a")), .value(.null), .value(.string(""))])),
        ObjectImage.Property("empty", .list([])),
        ObjectImage.Property("nums", .set([.int(1), .int(2)])),
        ObjectImage.Property("scores", .dictionary([ObjectImage.Entry("", .value(.int(1))), ObjectImage.Entry("b", .value(.null))])),
        ObjectImage.Property("places", .dictionary([ObjectImage.Entry("home", .embedded(ObjectImage.Embedded(properties: [])))])),
    ])

    func testEveryKindOfValueAndPropertyComesBack() throws {
        let images = PostImages([
            PostImages.Object(ref: Self.ref, image: Self.everything, partition: nil),
            PostImages.Object(ref: WireObjectRef(className: "Item", primaryKey: .int(2)), image: nil, partition: nil),
            PostImages.Object(ref: WireObjectRef(className: "Thing", primaryKey: .null),
                              image: ObjectImage(ref: WireObjectRef(className: "Thing", primaryKey: .null), properties: []),
                              partition: "string:p1"),
        ])
        let decoded = try PostImages(decoding: try images.encoded())
        XCTAssertEqual(decoded, images)
        XCTAssertEqual(decoded.object(Self.ref)?.image, Self.everything)
        XCTAssertNil(decoded.object(WireObjectRef(className: "Item", primaryKey: .int(2)))?.image, "an erased object has no image")
        XCTAssertEqual(decoded.object(WireObjectRef(className: "Thing", primaryKey: .null))?.partition, "string:p1")
        XCTAssertNil(decoded.object(WireObjectRef(className: "Item", primaryKey: .int(9))), "an object the version did not touch")
        XCTAssertEqual(try decoded.images([WireObjectRef(className: "Item", primaryKey: .int(2)), Self.ref]), [Self.everything])
        XCTAssertEqual(try PostImages(decoding: try PostImages([]).encoded()), PostImages([]))
    }

    func testDamagedBytesFailWithAnError() throws {
        let bytes = try PostImages([PostImages.Object(ref: Self.ref, image: Self.everything, partition: "p")]).encoded()
        // Every truncation fails (none reads past the end or succeeds with less).
        for length in 0..<bytes.count {
            XCTAssertThrowsError(try PostImages(decoding: Array(bytes.prefix(length))), "\(length) bytes")
        }
        XCTAssertThrowsError(try PostImages(decoding: bytes + [0]), "trailing bytes") { error in
            XCTAssertTrue("\(error)".contains("unexpected bytes"), "\(error)")
        }
        XCTAssertThrowsError(try PostImages(decoding: [9] + bytes.dropFirst())) { error in
            XCTAssertTrue("\(error)".contains("format 9"), "\(error)")
        }
        // A count far past what the bytes hold is refused before anything is reserved.
        XCTAssertThrowsError(try PostImages(decoding: [1, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F])) { error in
            XCTAssertTrue("\(error)".contains("postImages.count"), "\(error)")
        }
    }

    func testEmbeddedObjectsNestedTooDeepAreRefused() throws {
        // One object, an image whose property "e" holds an embedded object holding "e" ...
        var bytes: [UInt8] = [1, 1]
        bytes += [4] + Array("Item".utf8) + [2, 2]                 // objref Item / int 1
        bytes += [1]                                               // has an image
        for _ in 0...(PostImages.maxDepth + 1) { bytes += [1, 1, UInt8(ascii: "e"), 2] }
        bytes += [0]
        XCTAssertThrowsError(try PostImages(decoding: bytes)) { error in
            XCTAssertTrue("\(error)".contains("deeper than \(PostImages.maxDepth)"), "\(error)")
        }
    }
}
