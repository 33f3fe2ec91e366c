/// Geospatial conditions: whether the location an object holds (an embedded object
/// shaped like a GeoJSON point, see ``GeoPoint``) lies in a box, polygon or circle.
extension Query {
    /// The objects whose location lies within `value`:
    ///
    /// ```swift
    /// let box = GeoBox(bottomLeft: (55.6281, 12.0826), topRight: (55.6762, 12.5684))!
    /// realm.objects(Person.self).where { $0.location.geoWithin(box) }
    /// // the same as filter("location GEOWITHIN %@", box)
    /// ```
    ///
    /// An object without a location, or whose location is not a valid point (its `type`
    /// is not "Point", or it has fewer than two coordinates), does not match. A polygon
    /// that is not valid (edges that cross, a hole outside the outer ring) stops the
    /// program when the query runs, naming the shape and the reason.
    public func geoWithin<U: RLMGeospatial, E: EmbeddedObject>(_ value: U) -> Query<Bool> where T == E? {
        Query<Bool>(.predicate(.geoWithin(QueryGeoWithin(keyPath, .shape(value._queryGeoShape)))), collection: collection)
    }
}
