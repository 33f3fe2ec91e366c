/// `GEOWITHIN`: the checks that name the class and properties, then the ORCore
/// program (orcore.h, "Queries": `0x07 path path shape`). ORCore checks the region
/// itself (crossing edges, holes outside the outer ring, ...) when it compiles the
/// program, and refuses it with a message naming the shape.
extension QueryCompiler {
    /// The names of a location's properties, by the GeoJSON convention the SDK follows.
    static let geoTypeProperty = "type"
    static let geoCoordinatesProperty = "coordinates"

    func geoWithin(_ g: QueryGeoWithin, _ cls: QuerySchemaClass, into w: inout QueryProgramWriter) throws {
        let text = QueryRenderer.render(.geoWithin(g))
        guard case .shape(let shape) = g.shape else {
            throw QueryError(.badArgument, "Invalid query: the shape of '\(text)' is not bound (pass the query's arguments)")
        }
        let location = try resolve(g.keyPath, from: cls)
        guard !g.keyPath.components.isEmpty, location.type == .link, !location.isMulti, let target = location.target else {
            throw QueryError(.typeMismatch, "Invalid query: GEOWITHIN needs a link to one embedded object, but \(location.name) is a \(location.typeDescription) (in '\(text)')")
        }
        guard target.isEmbedded else {
            throw QueryError(.typeMismatch, "Invalid query: A GEOWITHIN query can only operate on a link to an embedded class but '\(target.name)' is at the top level (in '\(text)')")
        }
        guard let type = target.property(named: Self.geoTypeProperty), !type.isBacklink,
              type.type == .string, type.collection == .none,
              let coordinates = target.property(named: Self.geoCoordinatesProperty), !coordinates.isBacklink,
              coordinates.type == .double, coordinates.collection == .list else {
            throw QueryError(.typeMismatch, "Invalid query: Query '\(text)' links to data in the wrong format for a geoWithin query: class '\(target.name)' needs a String property 'type' and a List<Double> property 'coordinates'")
        }
        func path(_ name: String) throws -> [UInt8] {
            var p = g.keyPath
            p.components.append(.property(name))
            return try resolve(p, from: cls).bytes
        }
        w.u8(QueryProgramWriter.opGeoWithin)
        w.append(try path(type.name))
        w.append(try path(coordinates.name))
        switch shape {
        case .box(let b):
            w.u8(1)
            for p in [b.bottomLeft, b.topRight] {
                w.f64(p.longitude)
                w.f64(p.latitude)
            }
        case .polygon(let polygon):
            let rings = [polygon.outerRing] + (polygon.holes ?? [])
            w.u8(2)
            w.u32(UInt32(rings.count))
            for ring in rings {
                w.u32(UInt32(ring.count))
                for p in ring {
                    w.f64(p.longitude)
                    w.f64(p.latitude)
                    w.f64(p.altitude)
                }
            }
        case .circle(let c):
            w.u8(3)
            w.f64(c.center.longitude)
            w.f64(c.center.latitude)
            w.f64(c.center.altitude)
            w.f64(c.radians)
        }
    }
}
