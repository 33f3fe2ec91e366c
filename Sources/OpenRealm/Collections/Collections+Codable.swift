import Foundation

// Collections code as JSON arrays (a `Map` as an object): decoding makes an unmanaged
// collection, encoding writes the elements as they are read.

extension RealmCollection where Element: Encodable {
    /// Encodes the elements, in order, as an unkeyed container.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for element in self {
            try container.encode(element)
        }
    }
}

/// The elements of an unkeyed container, in order.
private func decodedElements<Element: Decodable>(_ decoder: any Decoder) throws -> [Element] {
    var container = try decoder.unkeyedContainer()
    var elements: [Element] = []
    while !container.isAtEnd {
        elements.append(try container.decode(Element.self))
    }
    return elements
}

extension List: Decodable where Element: Decodable {
    /// An unmanaged list of the decoded elements, in order.
    public convenience init(from decoder: any Decoder) throws {
        self.init(try decodedElements(decoder) as [Element])
    }
}

extension List: Encodable where Element: Encodable {}

extension MutableSet: Decodable where Element: Decodable {
    /// An unmanaged set of the decoded elements.
    public convenience init(from decoder: any Decoder) throws {
        self.init(try decodedElements(decoder) as [Element])
    }
}

extension MutableSet: Encodable where Element: Encodable {}

extension Results: Encodable where Element: Encodable {}

extension AnyRealmCollection: Encodable where Element: Encodable {}

extension Map: Decodable where Key: Decodable, Value: Decodable {
    /// An unmanaged map of the decoded entries.
    public convenience init(from decoder: any Decoder) throws {
        self.init()
        let container = try decoder.singleValueContainer()
        for (key, value) in try container.decode([Key: Value].self) {
            self[key] = value
        }
    }
}

extension Map: Encodable where Key: Encodable, Value: Encodable {
    /// Encodes the entries as a keyed object.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        var entries: [Key: Value] = [:]
        for (key, value) in self { entries[key] = value }
        try container.encode(entries)
    }
}
