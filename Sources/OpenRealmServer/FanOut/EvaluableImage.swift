import Foundation
import OpenRealmQuery
import OpenRealmWire

/// An object image as the query evaluator reads it (``QueryEvaluable``): its properties
/// by name, values converted as ORCore stores them, and its hidden partition under
/// ``HiddenColumn/partition`` (partitions' predicates query that column).
///
/// Views use an object's own fields only (``SubscriptionValidator``): a link is given
/// as an object without properties (enough for `link == nil`), an embedded object with
/// its own. Neither has an object key, so comparing objects with each other is refused
/// by the evaluator (``QueryEvaluationError``), as are linking objects; a link held by a
/// mixed value compares by its class only (key 0), which no subscription can tell apart.
package struct EvaluableImage: QueryEvaluable {
    private let properties: [ObjectImage.Property]
    private let partition: String?
    private let cls: QuerySchemaClass?
    private let schema: any QuerySchema

    /// The object `image` of the class the schema names `className`, with its hidden
    /// `partition`.
    package init(_ image: ObjectImage, partition: String?, schema: any QuerySchema) {
        self.init(image.properties, partition: partition, className: image.ref.className, schema: schema)
    }

    private init(_ properties: [ObjectImage.Property], partition: String?, className: String?, schema: any QuerySchema) {
        self.properties = properties
        self.partition = partition
        self.cls = className.flatMap { schema.queryClass(named: $0) }
        self.schema = schema
    }

    package func queryProperty(_ name: String) -> QueryPropertyValue? {
        if name == HiddenColumn.partition.rawValue, cls?.property(named: name) != nil {
            return .value(partition.map { .string($0) } ?? .null)
        }
        guard let property = properties.first(where: { $0.name == name }) else { return nil }
        let declared = cls?.property(named: name)
        let target = declared?.linkTargetClass
        // Links or values: as the schema declares (a mixed value holding a link is a
        // value); as the image shows when the schema does not know the property.
        func links(_ shown: Bool) -> Bool { declared.map { $0.type == .link } ?? shown }
        switch property.value {
        case .single(let value):
            if case .link = value, links(true) { return .object(LinkedObject()) }
            return .value(Self.queryValue(value, schema: schema))
        case .embedded(let child):
            return .object(child.map { embedded($0, target) })
        case .list(let elements):
            guard links(elements.contains(where: \.isObject)) else {
                return .values(elements.compactMap { $0.value.map { Self.queryValue($0, schema: schema) } })
            }
            return .objects(elements.compactMap { object($0, target) })
        case .set(let values):
            guard links(values.contains(where: \.isLink)) else { return .values(values.map { Self.queryValue($0, schema: schema) }) }
            return .objects(values.compactMap { $0.isLink ? LinkedObject() : nil })
        case .dictionary(let entries):
            guard links(entries.contains(where: \.element.isObject)) else {
                return .dictionary(entries.map { ($0.key, $0.element.value.map { Self.queryValue($0, schema: schema) } ?? .null) })
            }
            return .objectDictionary(entries.map { ($0.key, object($0.element, target)) })
        }
    }

    private func embedded(_ child: ObjectImage.Embedded, _ className: String?) -> any QueryEvaluable {
        EvaluableImage(child.properties, partition: nil, className: className, schema: schema)
    }

    /// The object an element stands for; nil for a null link.
    private func object(_ element: ObjectImage.Element, _ className: String?) -> (any QueryEvaluable)? {
        switch element {
        case .embedded(let child): return embedded(child, className)
        case .value(.link): return LinkedObject()
        case .value: return nil
        }
    }

    /// A wire value as the query engine compares it.
    package static func queryValue(_ value: WireValue, schema: any QuerySchema) -> QueryValue {
        switch value {
        case .null: return .null
        case .bool(let v): return .bool(v)
        case .int(let v): return .int(v)
        case .float(let v): return .float(v)
        case .double(let v): return .double(v)
        case .string(let v): return .string(v)
        case .binary(let v): return .binary(Data(v))
        case .timestamp(let t): return .timestamp(seconds: t.seconds, nanoseconds: t.nanoseconds)
        case .decimal128(let d): return .decimal(Decimal128(bidLow: d.low, bidHigh: d.high))
        case .objectId(let o):
            let b = o.bytes
            return .objectId(ObjectId(orcBytes: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11])))
        case .uuid(let u): return .uuid(u.uuid)
        case .link(let ref): return .link(table: schema.queryClass(named: ref.className)?.table ?? 0, key: 0)
        }
    }
}

/// A top-level object a link reaches: views do not read through links, so it has no
/// properties to give.
private struct LinkedObject: QueryEvaluable {
    func queryProperty(_ name: String) -> QueryPropertyValue? { nil }
}

private extension ObjectImage.Element {
    var isObject: Bool {
        switch self {
        case .embedded, .value(.link): return true
        case .value: return false
        }
    }

    var value: WireValue? {
        if case .value(let v) = self { return v }
        return nil
    }
}

private extension WireValue {
    var isLink: Bool {
        if case .link = self { return true }
        return false
    }
}
