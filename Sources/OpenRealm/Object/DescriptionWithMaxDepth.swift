import Foundation
import ORCore

/// How objects and collections describe themselves, as the Realm Swift SDK writes it:
///
/// ```
/// Dog {
/// 	name = Rex;
/// 	owners = List<Person> <0x600000c04000> (
/// 		[0] Person {
/// 			name = Ann;
/// 		}
/// 	);
/// }
/// ```
///
/// An object lists its persisted properties (not its `LinkingObjects`), a collection its
/// first 100 elements; what nests deeper than ``maxDepth`` levels (objects and
/// collections each count one) is written `<Maximum depth exceeded>`, which is what
/// makes the description of a cycle of objects finite.
enum DescriptionWithMaxDepth {
    /// The depth the SDK describes to.
    static let maxDepth = 5
    /// What a level past the depth is written as.
    static let exceeded = "<Maximum depth exceeded>"
    /// How many elements of a collection are written.
    static let maxElements = 100

    /// A value inside an object or collection, itself described `depth` levels deep.
    static func text(of value: Any?, depth: Int) -> String {
        switch AnyValueConversion.unwrap(value) {
        case nil:
            return "(null)"
        case let nested as _DescribedWithMaxDepth:
            return nested._description(maxDepth: depth)
        case let any as AnyRealmValue:
            return text(of: AnyValueConversion.anyRealmValuePayload(any), depth: depth)
        case let bool as Bool:
            return bool ? "1" : "0"
        case let data as Data:
            return dataText(data)
        case let string as String:
            return string
        case let value?:
            if let raw = (value as? any RawRepresentable)?.rawValue { return text(of: raw, depth: depth) }
            return "\(value)"
        }
    }

    /// Up to 24 bytes in hex, in words of four, and the total length:
    /// `<48656c6c 6f — 5 total bytes>`.
    static func dataText(_ data: Data) -> String {
        var hex = ""
        for (i, byte) in data.prefix(24).enumerated() {
            if i > 0 && i % 4 == 0 { hex += " " }
            hex += String(byte, radix: 16).leftPadded(to: 2)
        }
        return "<\(hex) — \(data.count) total bytes>"
    }

    /// `text`'s lines after the first indented one tab further, for nesting.
    static func indented(_ text: String) -> String {
        text.replacingOccurrences(of: "\n", with: "\n\t")
    }

    /// A collection: `name<type> <address> (`, each element as `[i] element`, `)`.
    static func collection<S: Sequence>(_ name: String, elementType: String, address: UnsafeRawPointer,
                                        count: Int, elements: S, depth: Int) -> String {
        guard depth > 0 else { return exceeded }
        var text = "\(name)<\(elementType)> <\(address)> (\n"
        var index = 0
        for element in elements {
            text += "\t[\(index)] \(indented(Self.text(of: element, depth: depth - 1))),\n"
            index += 1
            if index >= maxElements { break }
        }
        if index > 0 { text.removeLast(2) }
        if count > index { text += "\n\t... \(count - index) objects skipped." }
        return text + "\n)"
    }

    /// A map: as a collection, each entry written `[key]: value` (not indented, as the
    /// SDK writes it).
    static func map<S: Sequence, K, V>(_ name: String, keyType: String, valueType: String, address: UnsafeRawPointer,
                                       count: Int, entries: S, depth: Int) -> String where S.Element == (key: K, value: V) {
        guard depth > 0 else { return exceeded }
        var text = "\(name)<\(keyType), \(valueType)> <\(address)> (\n"
        var index = 0
        for (key, value) in entries {
            text += indented("[\(Self.text(of: key, depth: depth - 1))]: \(Self.text(of: value, depth: depth - 1))") + ",\n"
            index += 1
            if index >= maxElements { break }
        }
        if index > 0 { text.removeLast(2) }
        if count > index { text += "\n\t... \(count - index) objects skipped." }
        return text + "\n)"
    }

    /// The SDK's name of an element type: the class name of objects, else the stored
    /// type's (`int`, `string`, `object id`, `mixed` ...).
    static func typeName<T: _PersistableValue>(_ type: T.Type) -> String {
        let descriptor = T._orDescriptor
        if let target = descriptor.target { return ObjectTypeInfo.className(of: target) }
        switch descriptor.type {
        case ORC_TYPE_BOOL: return "bool"
        case ORC_TYPE_INT: return "int"
        case ORC_TYPE_FLOAT: return "float"
        case ORC_TYPE_DOUBLE: return "double"
        case ORC_TYPE_STRING: return "string"
        case ORC_TYPE_BINARY: return "data"
        case ORC_TYPE_TIMESTAMP: return "date"
        case ORC_TYPE_DECIMAL: return "decimal128"
        case ORC_TYPE_OBJECT_ID: return "object id"
        case ORC_TYPE_UUID: return "uuid"
        case ORC_TYPE_MIXED: return "mixed"
        default: return "object"
        }
    }
}

/// Objects and collections: what nests in a description, one level each.
protocol _DescribedWithMaxDepth {
    /// The description, nesting at most `maxDepth` levels (0: `<Maximum depth exceeded>`).
    func _description(maxDepth: Int) -> String
}

extension ObjectBase: _DescribedWithMaxDepth {
    func _description(maxDepth depth: Int) -> String {
        guard depth > 0 else { return DescriptionWithMaxDepth.exceeded }
        if let dynamic = self as? DynamicObject { return dynamic.description }
        if isInvalidated { return "[invalid object]" }
        let info = _typeInfo
        var text = "\(info.className) {\n"
        for property in info.properties where property.isStored {
            let value = DescriptionWithMaxDepth.text(of: self[property.name], depth: depth - 1)
            text += "\t\(property.name) = \(DescriptionWithMaxDepth.indented(value));\n"
        }
        return text + "}"
    }
}

extension List: _DescribedWithMaxDepth {
    func _description(maxDepth depth: Int) -> String {
        DescriptionWithMaxDepth.collection("List", elementType: DescriptionWithMaxDepth.typeName(Element.self),
                                           address: UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque()),
                                           count: count, elements: self, depth: depth)
    }
}

extension MutableSet: _DescribedWithMaxDepth {
    func _description(maxDepth depth: Int) -> String {
        DescriptionWithMaxDepth.collection("MutableSet", elementType: DescriptionWithMaxDepth.typeName(Element.self),
                                           address: UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque()),
                                           count: count, elements: self, depth: depth)
    }
}

extension Map: _DescribedWithMaxDepth {
    func _description(maxDepth depth: Int) -> String {
        DescriptionWithMaxDepth.map("Map", keyType: "string", valueType: DescriptionWithMaxDepth.typeName(Value.self),
                                    address: UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque()),
                                    count: count, entries: self, depth: depth)
    }
}

extension LinkingObjects: _DescribedWithMaxDepth {
    func _description(maxDepth depth: Int) -> String {
        DescriptionWithMaxDepth.collection("LinkingObjects", elementType: Element.className(),
                                           address: UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque()),
                                           count: count, elements: self, depth: depth)
    }
}

extension Results: _DescribedWithMaxDepth {
    func _description(maxDepth depth: Int) -> String {
        DescriptionWithMaxDepth.collection("Results", elementType: core.className,
                                           address: UnsafeRawPointer(Unmanaged.passUnretained(core).toOpaque()),
                                           count: count, elements: self, depth: depth)
    }
}

private extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
