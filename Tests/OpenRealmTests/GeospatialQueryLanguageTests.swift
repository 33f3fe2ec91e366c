import Foundation
import XCTest
@testable import OpenRealmQuery

/// GEOWITHIN in the query language: the literal shapes (`geoBox`, `geoPolygon`,
/// `geoCircle`, longitude first), their canonical form, arguments, and what is refused
/// with which message, without a realm.
final class GeospatialQueryLanguageTests: XCTestCase {
    static let schema = QuerySchemaList([
        QuerySchemaClass(name: "Place", table: 1, properties: [
            QuerySchemaProperty(name: "name", column: 0, type: .string),
            QuerySchemaProperty(name: "location", column: 1, type: .link, isOptional: true, linkTargetClass: "Spot"),
            QuerySchemaProperty(name: "flat", column: 2, type: .link, isOptional: true, linkTargetClass: "Flat"),
            QuerySchemaProperty(name: "spots", column: 3, type: .link, collection: .list, linkTargetClass: "Spot"),
            QuerySchemaProperty(name: "odd", column: 4, type: .link, isOptional: true, linkTargetClass: "Odd"),
        ]),
        QuerySchemaClass(name: "Spot", table: 2, isEmbedded: true, properties: [
            QuerySchemaProperty(name: "type", column: 0, type: .string),
            QuerySchemaProperty(name: "coordinates", column: 1, type: .double, collection: .list),
        ]),
        QuerySchemaClass(name: "Flat", table: 3, properties: [
            QuerySchemaProperty(name: "type", column: 0, type: .string),
            QuerySchemaProperty(name: "coordinates", column: 1, type: .double, collection: .list),
        ]),
        QuerySchemaClass(name: "Odd", table: 4, isEmbedded: true, properties: [
            QuerySchemaProperty(name: "type", column: 0, type: .string),
            QuerySchemaProperty(name: "coordinates", column: 1, type: .int, collection: .list),
        ]),
    ])

    private func geo(_ text: String, _ arguments: [Any] = []) throws -> QueryGeoWithin {
        let parsed = try QueryParser.parse(text, arguments: arguments)
        guard case .geoWithin(let g) = parsed.predicate else {
            XCTFail("'\(text)' did not parse as GEOWITHIN: \(parsed.predicate)")
            throw QueryError(.syntax, "not GEOWITHIN")
        }
        return g
    }

    func testLiteralsAreLongitudeFirst() throws {
        let box = try geo("location GEOWITHIN geoBox([12.0826, 55.6281], [12.5684, 55.6762])")
        XCTAssertEqual(box.keyPath, QueryKeyPath("location"))
        XCTAssertEqual(box.shape, .shape(.box(GeoBox(bottomLeft: (55.6281, 12.0826), topRight: (55.6762, 12.5684))!)))

        let circle = try geo("location geowithin GEOCIRCLE([12.56, 55.67], 0.001)")
        XCTAssertEqual(circle.shape, .shape(.circle(GeoCircle(center: (55.67, 12.56), radiusInRadians: 0.001)!)))

        let polygon = try geo("location GEOWITHIN geoPolygon({[-80, 50], [22, 62], [22, 22, 3], [-80, -80], [-80, 50]}, {[-75, 40], [20, 60], [20, 20], [-75, 40]})")
        let expected = GeoPolygon(outerRing: [GeoPoint(latitude: 50, longitude: -80)!, GeoPoint(latitude: 62, longitude: 22)!,
                                              GeoPoint(latitude: 22, longitude: 22, altitude: 3)!, GeoPoint(latitude: -80, longitude: -80)!,
                                              GeoPoint(latitude: 50, longitude: -80)!],
                                  holes: [[GeoPoint(latitude: 40, longitude: -75)!, GeoPoint(latitude: 60, longitude: 20)!,
                                           GeoPoint(latitude: 20, longitude: 20)!, GeoPoint(latitude: 40, longitude: -75)!]])!
        XCTAssertEqual(polygon.shape, .shape(.polygon(expected)))
    }

    func testCanonicalFormReadsBack() throws {
        let texts = [
            "location GEOWITHIN geoBox([12.0826, 55.6281], [12.5684, 55.6762])",
            "location GEOWITHIN geoCircle([-20, 45], 0.7839339928754325)",
            "location GEOWITHIN geoPolygon({[-80, 50], [22, 62], [22, 22, 3], [-80, -80], [-80, 50]}, {[-75.5175781, 40.0096192], [20, 60], [20, 20], [-75.5175781, 40.0096192]})",
            "name == \"a\" AND NOT (location GEOWITHIN geoCircle([0, 0], 1))",
        ]
        for text in texts {
            let parsed = try QueryParser.parse(text)
            XCTAssertEqual(QueryRenderer.render(parsed), text)
            XCTAssertEqual(try QueryParser.parse(QueryRenderer.render(parsed)), parsed.normalized())
        }
        // An argument binds to the shape and renders as a literal.
        let bound = try QueryParser.parse("location GEOWITHIN $0", arguments: [GeoCircle(center: (1, 2), radiusInRadians: 0.5)!])
        XCTAssertEqual(QueryRenderer.render(bound), "location GEOWITHIN geoCircle([2, 1], 0.5)")
        // `IN` with a shape argument is GEOWITHIN, as the SDK reads it.
        let viaIn = try QueryParser.parse("location IN %@", arguments: [GeoBox(bottomLeft: (0, 0), topRight: (1, 1))!])
        XCTAssertEqual(QueryRenderer.render(viaIn), "location GEOWITHIN geoBox([0, 0], [1, 1])")
    }

    func testMalformedShapesAreRefusedByTheParser() {
        assertQueryError(.syntax, mentions: ["geoBox(...), geoPolygon(...), geoCircle(...) or an argument"]) {
            "\(try QueryParser.parse("location GEOWITHIN 5"))"
        }
        assertQueryError(.syntax, mentions: ["at least 4 points"]) {
            "\(try QueryParser.parse("location GEOWITHIN geoPolygon({[0, 0], [1, 1], [0, 0]})"))"
        }
        assertQueryError(.syntax, mentions: ["at least 4 points"]) {
            "\(try QueryParser.parse("location GEOWITHIN geoPolygon({[0, 0], [1, 1], [2, 0], [3, 3]})"))"
        }
        assertQueryError(.syntax, mentions: ["[0.0, 91.0] is not valid"]) {
            "\(try QueryParser.parse("location GEOWITHIN geoBox([0, 91], [1, 1])"))"
        }
        assertQueryError(.syntax, mentions: ["radius"]) {
            "\(try QueryParser.parse("location GEOWITHIN geoCircle([0, 0], -1)"))"
        }
        assertQueryError(.syntax, mentions: ["a number"]) {
            "\(try QueryParser.parse("location GEOWITHIN geoCircle([0, 0], 'far')"))"
        }
        assertQueryError(.syntax, mentions: ["']'"]) {
            "\(try QueryParser.parse("location GEOWITHIN geoBox([0, 0, 0, 0], [1, 1])"))"
        }
        assertQueryError(.unsupported, mentions: ["GEOWITHIN"]) {
            "\(try QueryParser.parse("ANY spots GEOWITHIN geoCircle([0, 0], 1)"))"
        }
    }

    func testArgumentsMustBeShapes() {
        assertQueryError(.badArgument, mentions: ["GEOWITHIN needs a GeoBox, GeoPolygon or GeoCircle", "argument $0", "String"]) {
            "\(try QueryParser.parse("location GEOWITHIN %@", arguments: ["here"]))"
        }
        assertQueryError(.badArgument, mentions: ["argument $0"]) {
            "\(try QueryParser.parse("location GEOWITHIN $0", arguments: []))"
        }
        // A shape where a value is compared is refused as a value.
        assertQueryError(.badArgument, mentions: ["argument $0", "GeoBox"]) {
            "\(try QueryParser.parse("name == %@", arguments: [GeoBox(bottomLeft: (0, 0), topRight: (1, 1))!]))"
        }
    }

    func testTheCompilerChecksTheLocation() throws {
        func compile(_ text: String) throws -> String {
            let program = try QueryCompiler.compile(try QueryParser.parse(text), className: "Place", schema: Self.schema)
            return "compiled \(program.count) bytes"
        }
        let program = try QueryCompiler.compile(try QueryParser.parse("location GEOWITHIN geoBox([0, 0], [1, 1])"),
                                                className: "Place", schema: Self.schema)
        // 0x07, two paths of two steps (location.type, location.coordinates), BOX and its 4 doubles
        XCTAssertEqual(program.count, 1 + 2 * (1 + 2 * 3 + 1) + 1 + 32)
        XCTAssertEqual(program.first, 0x07)

        assertQueryError(.typeMismatch, mentions: ["A GEOWITHIN query can only operate on a link to an embedded class but 'Flat' is at the top level"]) {
            try compile("flat GEOWITHIN geoBox([0, 0], [1, 1])")
        }
        assertQueryError(.typeMismatch, mentions: ["links to data in the wrong format for a geoWithin query", "List<Double> property 'coordinates'"]) {
            try compile("odd GEOWITHIN geoBox([0, 0], [1, 1])")
        }
        assertQueryError(.typeMismatch, mentions: ["GEOWITHIN needs a link to one embedded object", "'Place.name'"]) {
            try compile("name GEOWITHIN geoBox([0, 0], [1, 1])")
        }
        assertQueryError(.typeMismatch, mentions: ["GEOWITHIN needs a link to one embedded object", "list of object 'Spot'"]) {
            try compile("spots GEOWITHIN geoBox([0, 0], [1, 1])")
        }
        assertQueryError(.unknownProperty, mentions: ["nowhere"]) {
            try compile("nowhere GEOWITHIN geoBox([0, 0], [1, 1])")
        }
    }

    func testTheServersEvaluatorRefusesGeoWithin() throws {
        let predicate = try QueryParser.parse("location GEOWITHIN geoCircle([0, 0], 1)").predicate
        assertQueryError(.unsupported, mentions: ["GEOWITHIN is evaluated by the local database only"]) {
            "\(try QueryEvaluator(predicate, className: "Place", schema: Self.schema))"
        }
    }
}
