import Foundation

/// The `GEOWITHIN` comparison and its shape literals (the grammar in `QueryParser.swift`).
/// Points are written longitude first, as GeoJSON and the SDK's query strings write
/// them; a literal shape is checked as the SDK's initializers check it (coordinates in
/// range, rings closed with at least 4 points, a radius not negative).
extension QueryParser {
    mutating func geoWithin(_ lhs: Side) throws -> QueryGeoWithin {
        let opToken = advance()
        guard case .keyPath(let path) = lhs.operand, lhs.quantifier == .implicit, path.aggregate == nil else {
            throw unsupported("a GEOWITHIN whose left side is not a plain key path ('\(lhs.token.text)')", at: lhs.token)
        }
        let t = current
        switch t.kind {
        case .argument, .positionalArgument:
            guard case .argument(let i) = try constantOrArgument(expected: "a shape") else {
                throw unexpected(t, expected: "a shape after GEOWITHIN")
            }
            return QueryGeoWithin(path, .argument(i))
        default:
            break
        }
        guard isSymbol(peekToken(1), "(") else {
            throw unexpected(t, expected: "geoBox(...), geoPolygon(...), geoCircle(...) or an argument after '\(opToken.text)'")
        }
        switch Self.word(t) {
        case "geobox":
            _ = advance()
            _ = try expect("(", "'(' after geoBox")
            let lo = try geoPoint()
            _ = try expect(",", "',' between geoBox's corners")
            let hi = try geoPoint()
            _ = try expect(")", "')' after geoBox's two corners")
            return QueryGeoWithin(path, .shape(.box(GeoBox(bottomLeft: lo, topRight: hi))))
        case "geopolygon":
            _ = advance()
            _ = try expect("(", "'(' after geoPolygon")
            var rings = [try geoRing()]
            while isSymbol(current, ",") {
                _ = advance()
                rings.append(try geoRing())
            }
            _ = try expect(")", "',' or ')' after a ring of geoPolygon")
            guard let polygon = GeoPolygon(outerRing: rings[0], holes: Array(rings.dropFirst())) else {
                throw error("geoPolygon's rings must each have at least 4 points, the last equal to the first", at: t)
            }
            return QueryGeoWithin(path, .shape(.polygon(polygon)))
        case "geocircle":
            _ = advance()
            _ = try expect("(", "'(' after geoCircle")
            let center = try geoPoint()
            _ = try expect(",", "',' between geoCircle's centre and radius")
            let radiusToken = current
            let radius = try geoNumber()
            _ = try expect(")", "')' after geoCircle's radius")
            guard let circle = GeoCircle(center: center, radiusInRadians: radius) else {
                throw error("geoCircle's radius must be a number of radians, 0 or more", at: radiusToken)
            }
            return QueryGeoWithin(path, .shape(.circle(circle)))
        default:
            throw unexpected(t, expected: "geoBox(...), geoPolygon(...), geoCircle(...) or an argument after '\(opToken.text)'")
        }
    }

    /// `[lng, lat]` or `[lng, lat, alt]`.
    private mutating func geoPoint() throws -> GeoPoint {
        let open = try expect("[", "'[' starting a point [longitude, latitude]")
        let lng = try geoNumber()
        _ = try expect(",", "',' between longitude and latitude")
        let lat = try geoNumber()
        var alt = 0.0
        if isSymbol(current, ",") {
            _ = advance()
            alt = try geoNumber()
        }
        _ = try expect("]", "']' after a point's coordinates")
        guard let point = GeoPoint(latitude: lat, longitude: lng, altitude: alt) else {
            throw error("the point [\(lng), \(lat)] is not valid (longitude in -180...180, latitude in -90...90, altitude 0 or more)", at: open)
        }
        return point
    }

    /// `{point, point, ...}`.
    private mutating func geoRing() throws -> [GeoPoint] {
        _ = try expect("{", "'{' starting a ring of points")
        var points = [try geoPoint()]
        while isSymbol(current, ",") {
            _ = advance()
            points.append(try geoPoint())
        }
        _ = try expect("}", "',' or '}' in a ring of points")
        return points
    }

    /// A number literal, signed or not, as a double.
    private mutating func geoNumber() throws -> Double {
        let t = current
        guard case .value(let v) = try constantOrArgument(expected: "a number") else {
            throw unexpected(t, expected: "a number (arguments cannot stand inside a shape literal)")
        }
        switch v {
        case .int(let i): return Double(i)
        case .double(let d): return d
        case .float(let f): return Double(f)
        case .decimal(let d): return Double(d.description) ?? .nan
        default: throw unexpected(t, expected: "a number")
        }
    }
}
