import OpenRealmWire

/// Post-images as bytes, for a store to keep beside the history entry. Values are
/// encoded as on the wire (``WireRecordWriter``):
///
/// ```text
/// images    u8 1 (format) | v count | object{count}
/// object    objref | u8 flags (1: has image, 2: has partition) | [str partition] | [properties]
/// properties v count | (str name | property){count}
/// property  u8 0 | val                                  single value
///           u8 1                                        null embedded link
///           u8 2 | properties                           embedded object
///           u8 3 | v count | element{count}             list
///           u8 4 | v count | val{count}                 set
///           u8 5 | v count | (str key | element){count} dictionary
/// element   u8 0 | val  or  u8 1 | properties
/// ```
///
/// Decoding checks every count against the bytes left and bounds the nesting of
/// embedded objects, so damaged bytes fail with an error naming the field rather than
/// exhausting memory or the stack.
extension PostImages {
    /// The format's version byte.
    private static let format: UInt8 = 1
    /// The deepest nesting of embedded objects decoding accepts.
    static let maxDepth = 64

    /// The bytes of the post-images.
    ///
    /// - Throws: ``WireError`` for a value that cannot be encoded (an invalid timestamp).
    package func encoded() throws -> [UInt8] {
        var writer = WireRecordWriter()
        writer.u8(Self.format)
        writer.varint(UInt64(objects.count))
        for object in objects {
            try writer.objectRef(object.ref)
            writer.u8((object.image == nil ? 0 : 1) | (object.partition == nil ? 0 : 2))
            if let partition = object.partition { writer.string(partition) }
            if let image = object.image { try Self.write(image.properties, &writer) }
        }
        return writer.bytes
    }

    /// Post-images from ``encoded()``'s bytes.
    ///
    /// - Throws: ``WireError`` naming the field and offset of damaged bytes, an unknown
    ///   format or tag, or embedded objects nested deeper than ``maxDepth``.
    package init(decoding bytes: [UInt8]) throws {
        var reader = WireRecordReader(bytes)
        let format = try reader.u8("postImages.format")
        guard format == Self.format else {
            throw WireError(.badMessage, field: "postImages.format", "unknown post-image format \(format)")
        }
        var objects: [Object] = []
        let count = try reader.count("postImages.count", minimumElementSize: 3)
        objects.reserveCapacity(count)
        for _ in 0..<count {
            let ref = try reader.objectRef()
            let flags = try reader.u8("postImages.flags")
            let partition = flags & 2 != 0 ? try reader.string("postImages.partition") : nil
            let image = flags & 1 != 0 ? ObjectImage(ref: ref, properties: try Self.readProperties(&reader, depth: 0)) : nil
            objects.append(Object(ref: ref, image: image, partition: partition))
        }
        try reader.expectEnd()
        self.init(objects)
    }

    /// One object's properties alone (``ObjectImage/properties``), in the format above:
    /// `u8 1 (format) | properties`. A store that keeps each object as its image (the
    /// PostgreSQL store's rows) writes it with this and reads it with
    /// ``properties(decoding:)``.
    ///
    /// - Throws: ``WireError`` for a value that cannot be encoded (an invalid timestamp).
    package static func encoded(properties: [ObjectImage.Property]) throws -> [UInt8] {
        var writer = WireRecordWriter()
        writer.u8(format)
        try write(properties, &writer)
        return writer.bytes
    }

    /// The properties ``encoded(properties:)`` wrote.
    ///
    /// - Throws: ``WireError`` naming the field and offset of damaged bytes, an unknown
    ///   format or tag, or embedded objects nested deeper than ``maxDepth``.
    package static func properties(decoding bytes: [UInt8]) throws -> [ObjectImage.Property] {
        var reader = WireRecordReader(bytes)
        let format = try reader.u8("image.format")
        guard format == Self.format else {
            throw WireError(.badMessage, field: "image.format", "unknown image format \(format)")
        }
        let properties = try readProperties(&reader, depth: 0)
        try reader.expectEnd()
        return properties
    }

    private static func write(_ properties: [ObjectImage.Property], _ writer: inout WireRecordWriter) throws {
        writer.varint(UInt64(properties.count))
        for property in properties {
            writer.string(property.name)
            switch property.value {
            case .single(let value):
                writer.u8(0)
                try writer.value(value)
            case .embedded(nil):
                writer.u8(1)
            case .embedded(let child?):
                writer.u8(2)
                try write(child.properties, &writer)
            case .list(let elements):
                writer.u8(3)
                writer.varint(UInt64(elements.count))
                for element in elements { try write(element, &writer) }
            case .set(let values):
                writer.u8(4)
                writer.varint(UInt64(values.count))
                for value in values { try writer.value(value) }
            case .dictionary(let entries):
                writer.u8(5)
                writer.varint(UInt64(entries.count))
                for entry in entries {
                    writer.string(entry.key)
                    try write(entry.element, &writer)
                }
            }
        }
    }

    private static func write(_ element: ObjectImage.Element, _ writer: inout WireRecordWriter) throws {
        switch element {
        case .value(let value):
            writer.u8(0)
            try writer.value(value)
        case .embedded(let child):
            writer.u8(1)
            try write(child.properties, &writer)
        }
    }

    private static func readProperties(_ reader: inout WireRecordReader, depth: Int) throws -> [ObjectImage.Property] {
        guard depth <= maxDepth else {
            throw WireError(.badMessage, field: "postImages.embedded", "embedded objects nested deeper than \(maxDepth)")
        }
        let count = try reader.count("postImages.properties", minimumElementSize: 2)
        var properties: [ObjectImage.Property] = []
        properties.reserveCapacity(count)
        for _ in 0..<count {
            let name = try reader.string("postImages.property")
            let tag = try reader.u8("postImages.kind")
            let value: ObjectImage.Value
            switch tag {
            case 0:
                value = .single(try reader.value())
            case 1:
                value = .embedded(nil)
            case 2:
                value = .embedded(ObjectImage.Embedded(properties: try readProperties(&reader, depth: depth + 1)))
            case 3:
                let n = try reader.count("postImages.list", minimumElementSize: 2)
                var elements: [ObjectImage.Element] = []
                elements.reserveCapacity(n)
                for _ in 0..<n { elements.append(try readElement(&reader, depth: depth)) }
                value = .list(elements)
            case 4:
                let n = try reader.count("postImages.set", minimumElementSize: 1)
                var values: [WireValue] = []
                values.reserveCapacity(n)
                for _ in 0..<n { values.append(try reader.value()) }
                value = .set(values)
            case 5:
                let n = try reader.count("postImages.dictionary", minimumElementSize: 3)
                var entries: [ObjectImage.Entry] = []
                entries.reserveCapacity(n)
                for _ in 0..<n {
                    let key = try reader.string("postImages.key")
                    entries.append(ObjectImage.Entry(key, try readElement(&reader, depth: depth)))
                }
                value = .dictionary(entries)
            default:
                throw WireError(.badMessage, field: "postImages.kind", "unknown property kind \(tag) of '\(name)'")
            }
            properties.append(ObjectImage.Property(name, value))
        }
        return properties
    }

    private static func readElement(_ reader: inout WireRecordReader, depth: Int) throws -> ObjectImage.Element {
        let tag = try reader.u8("postImages.element")
        switch tag {
        case 0: return .value(try reader.value())
        case 1: return .embedded(ObjectImage.Embedded(properties: try readProperties(&reader, depth: depth + 1)))
        default: throw WireError(.badMessage, field: "postImages.element", "unknown element kind \(tag)")
        }
    }
}
