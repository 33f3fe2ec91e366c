import Foundation

// The shapes of a geospatial query (`geoWithin`), with the Realm Swift SDK's names,
// initializers and validation. None of them is stored: a location is stored as an
// embedded object shaped like a GeoJSON point (see ``GeoPoint``), and a query asks
// whether that point lies within a ``GeoBox``, ``GeoPolygon`` or ``GeoCircle``. The
// geometry (on a sphere: polygon edges are great-circle arcs, a circle is every point
// within an angle of its centre) is ORCore's (`CSources/ORCore/geo.c`), which also
// refuses a polygon whose rings cross or whose holes leave the outer ring.

/// A shape a `geoWithin` query can test points against: ``GeoBox``, ``GeoPolygon`` or
/// ``GeoCircle`` (the SDK's conforming protocol for them, under its name).
public protocol RLMGeospatial: Sendable {
    /// The shape as the query tree holds it.
    var _queryGeoShape: _QueryGeoShape { get }
}

/// A point of latitude and longitude in degrees (latitude in -90...90, longitude in
/// -180...180, both inclusive), with an altitude that is never negative and that no
/// query uses. It builds the other shapes; it is not stored.
///
/// A location is stored duck-typed, as an embedded object with a `type` string that is
/// "Point" and a `coordinates` list of longitude, then latitude (GeoJSON's order):
///
/// ```swift
/// class Location: EmbeddedObject {
///     @Persisted private(set) var coordinates: List<Double>
///     @Persisted var type: String = "Point"
///     convenience init(_ latitude: Double, _ longitude: Double) {
///         self.init()
///         coordinates.append(objectsIn: [longitude, latitude])
///     }
/// }
/// ```
public struct GeoPoint: Hashable, Sendable {
    /// Latitude in degrees.
    public let latitude: Double
    /// Longitude in degrees.
    public let longitude: Double
    /// Altitude (not used by queries).
    public let altitude: Double

    /// A point, or nil when latitude or longitude is out of range or NaN.
    public init?(latitude: Double, longitude: Double) {
        self.init(latitude: latitude, longitude: longitude, altitude: 0)
    }

    /// A point, or nil when latitude or longitude is out of range, the altitude negative,
    /// or any of them NaN.
    public init?(latitude: Double, longitude: Double, altitude: Double) {
        // NaN fails every comparison, so the range checks refuse it too.
        guard (-90...90).contains(latitude), (-180...180).contains(longitude), altitude >= 0 else { return nil }
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
    }
}

/// A rectangle of latitudes and longitudes: every point whose latitude lies between the
/// corners' and whose longitude lies between theirs (eastward from `bottomLeft`, so a box
/// whose left longitude is greater than its right one crosses the antimeridian). Edges
/// belong to the box.
public struct GeoBox: RLMGeospatial, Hashable {
    /// The south-west corner.
    public let bottomLeft: GeoPoint
    /// The north-east corner.
    public let topRight: GeoPoint

    /// The box between two corners. A box whose bottom latitude is above its top one is
    /// refused when a query uses it.
    public init(bottomLeft: GeoPoint, topRight: GeoPoint) {
        self.bottomLeft = bottomLeft
        self.topRight = topRight
    }

    /// The box between two corners given as (latitude, longitude); nil when either is
    /// not a valid ``GeoPoint``.
    public init?(bottomLeft: (Double, Double), topRight: (Double, Double)) {
        guard let lo = GeoPoint(latitude: bottomLeft.0, longitude: bottomLeft.1),
              let hi = GeoPoint(latitude: topRight.0, longitude: topRight.1) else { return nil }
        self.init(bottomLeft: lo, topRight: hi)
    }

    public var _queryGeoShape: _QueryGeoShape { .box(self) }
}

/// A polygon: an outer ring and any number of holes, each ring a closed list of points
/// (the last equal to the first, so at least 4 points for a triangle) joined by
/// great-circle arcs. A point matches when it lies inside the outer ring and in no hole.
///
/// What the initializers check: each ring has at least 4 points and is closed. What a
/// query checks when it uses the polygon (and refuses with a message): a ring's edges do
/// not cross and it repeats no vertex; every hole lies inside the outer ring; rings share
/// no edge and do not cross; holes are not nested.
public struct GeoPolygon: RLMGeospatial, Hashable {
    /// The outer ring.
    public let outerRing: [GeoPoint]
    /// The holes, if any were given.
    public let holes: [[GeoPoint]]?

    /// A polygon without holes; nil when the ring has fewer than 4 points or is not closed.
    public init?(outerRing: [GeoPoint]) {
        self.init(outerRing: outerRing, holes: nil)
    }

    /// A polygon; nil when a ring (outer or hole) has fewer than 4 points or is not closed.
    public init?(outerRing: [GeoPoint], holes: [[GeoPoint]]?) {
        func isClosedRing(_ ring: [GeoPoint]) -> Bool { ring.count > 3 && ring.first == ring.last }
        guard isClosedRing(outerRing), (holes ?? []).allSatisfy(isClosedRing) else { return nil }
        self.outerRing = outerRing
        self.holes = holes
    }

    /// A polygon of (latitude, longitude) pairs; nil when a pair is not a valid
    /// ``GeoPoint`` or a ring has fewer than 4 points or is not closed.
    public init?(outerRing: [(Double, Double)], holes: [[(Double, Double)]] = []) {
        func points(_ ring: [(Double, Double)]) -> [GeoPoint]? {
            let made = ring.compactMap { GeoPoint(latitude: $0.0, longitude: $0.1) }
            return made.count == ring.count ? made : nil
        }
        guard let outer = points(outerRing) else { return nil }
        var inner: [[GeoPoint]] = []
        for hole in holes {
            guard let ring = points(hole) else { return nil }
            inner.append(ring)
        }
        self.init(outerRing: outer, holes: inner)
    }

    /// A polygon of (latitude, longitude) pairs with holes given one by one.
    public init?(outerRing: [(Double, Double)], holes: [(Double, Double)]...) {
        self.init(outerRing: outerRing, holes: holes)
    }

    /// Polygons are equal when their rings are; no holes and an empty list of holes are
    /// the same.
    public static func == (a: GeoPolygon, b: GeoPolygon) -> Bool {
        a.outerRing == b.outerRing && (a.holes ?? []) == (b.holes ?? [])
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(outerRing)
        hasher.combine(holes ?? [])
    }

    public var _queryGeoShape: _QueryGeoShape { .polygon(self) }
}

/// A distance on the sphere, held as an angle in radians. Kilometres and miles convert
/// through an Earth radius of 6378.1 km, the SDK's.
public struct Distance: Hashable, Sendable {
    /// The Earth's radius the conversions use, in metres.
    static let earthRadiusMeters = 6_378_100.0

    /// The distance in radians.
    public let radians: Double

    private init?(radiansValue: Double) {
        guard radiansValue >= 0 else { return nil } // also refuses NaN
        radians = radiansValue
    }

    /// A distance of `kilometers`; nil when negative or NaN.
    public static func kilometers(_ kilometers: Double) -> Distance? {
        Distance(radiansValue: kilometers * 1000 / earthRadiusMeters)
    }

    /// A distance of `miles`; nil when negative or NaN.
    public static func miles(_ miles: Double) -> Distance? {
        Distance(radiansValue: miles * 1609.344 / earthRadiusMeters)
    }

    /// A distance of `degrees` of arc; nil when negative or NaN.
    public static func degrees(_ degrees: Double) -> Distance? {
        Distance(radiansValue: degrees * Double.pi / 180)
    }

    /// A distance of `radians` of arc; nil when negative or NaN.
    public static func radians(_ radians: Double) -> Distance? {
        Distance(radiansValue: radians)
    }

    /// The distance in kilometres.
    public func asKilometers() -> Double { radians * Self.earthRadiusMeters / 1000 }
    /// The distance in miles.
    public func asMiles() -> Double { radians * Self.earthRadiusMeters / 1609.344 }
    /// The distance in degrees of arc.
    public func asDegrees() -> Double { radians * 180 / Double.pi }
}

/// Every point within an angle of a centre, measured along the sphere (great-circle
/// distance); points at exactly the radius belong to the circle. A radius of π or more
/// covers the whole sphere.
public struct GeoCircle: RLMGeospatial, Hashable {
    /// The centre.
    public let center: GeoPoint
    /// The radius in radians.
    public let radians: Double

    /// A circle; nil when the radius is negative or NaN.
    public init?(center: GeoPoint, radiusInRadians: Double) {
        guard radiusInRadians >= 0 else { return nil }
        self.center = center
        self.radians = radiusInRadians
    }

    /// A circle of radius `radius`.
    public init(center: GeoPoint, radius: Distance) {
        self.center = center
        self.radians = radius.radians
    }

    /// A circle around (latitude, longitude); nil when that is not a valid ``GeoPoint``
    /// or the radius is negative or NaN.
    public init?(center: (Double, Double), radiusInRadians: Double) {
        guard let point = GeoPoint(latitude: center.0, longitude: center.1) else { return nil }
        self.init(center: point, radiusInRadians: radiusInRadians)
    }

    /// A circle of radius `radius` around (latitude, longitude); nil when that is not a
    /// valid ``GeoPoint``.
    public init?(center: (Double, Double), radius: Distance) {
        guard let point = GeoPoint(latitude: center.0, longitude: center.1) else { return nil }
        self.init(center: point, radius: radius)
    }

    public var _queryGeoShape: _QueryGeoShape { .circle(self) }
}

/// The right side of `GEOWITHIN` in the query tree.
public enum _QueryGeoShape: Hashable, Sendable {
    case box(GeoBox)
    case polygon(GeoPolygon)
    case circle(GeoCircle)
}
