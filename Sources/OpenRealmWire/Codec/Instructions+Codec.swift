/*
 * Changeset instructions (docs/PROTOCOL.md §5). The tag is ORCore's orc_instr_op
 * number; "obj" is an objpath, "prop" a property name.
 *
 *   instructions  v count | instruction{count}
 *
 *   tag  instruction            body
 *   1    createObject           name class | pk | v n | (name prop | val){n}
 *   2    eraseObject            obj
 *   3    set                    obj | name prop | val
 *   4    addInteger             obj | name prop | z delta
 *   5    listInsert             obj | name prop | v index | val
 *   6    listSet                obj | name prop | v index | val
 *   7    listErase              obj | name prop | v index
 *   8    listMove               obj | name prop | v from | v to
 *   9    clearCollection        obj | name prop
 *   10   setInsert              obj | name prop | val
 *   11   setErase               obj | name prop | val
 *   12   dictionarySet          obj | name prop | str key | val
 *   13   dictionaryErase        obj | name prop | str key
 *   14   createEmbeddedObject   obj | name prop | position | v n | (name prop | val){n}
 *          position  u8 0 (single) | u8 1 v index (list) | u8 2 str key (dictionary)
 *   20   addClass               name class | u8 kind | u8 hasPrimaryKey
 *                               [| name pk | u8 type | bool optional]
 *          top-level and asymmetric classes have a primary key of type int (2),
 *          string (5), objectId (9) or uuid (10); embedded classes have none
 *   23   addProperty            name class | name prop | u8 type | u8 collection |
 *                               u8 flags (0x1 optional, 0x2 indexed) [| name linkTarget]
 *          linkTarget is present exactly when type is link (11)
 *
 * The smallest instruction (an eraseObject of a one-letter class with a null key)
 * takes 5 bytes; counts are checked against that.
 */

/// The fewest bytes one encoded instruction takes.
let minimumInstructionSize = 5

extension WireWriter {
    mutating func writeInstructions(_ instructions: [WireInstruction]) throws(WireError) {
        varint(UInt64(instructions.count))
        for (i, instruction) in instructions.enumerated() {
            do throws(WireError) { try self.instruction(instruction) } catch { throw error.within("instructions[\(i)]") }
        }
    }

    mutating func instruction(_ instruction: WireInstruction) throws(WireError) {
        u8(instruction.tag)
        switch instruction {
        case .createObject(let className, let primaryKey, let values):
            try name(className, "className")
            self.primaryKey(primaryKey)
            try propertyValues(values)
        case .eraseObject(let object):
            do throws(WireError) { try objectPath(object) } catch { throw error.within("object") }
        case .set(let object, let property, let value):
            try target(object, property)
            try fieldValue(value)
        case .addInteger(let object, let property, let delta):
            try target(object, property)
            zigzag(delta)
        case .listInsert(let object, let property, let index, let value),
             .listSet(let object, let property, let index, let value):
            try target(object, property)
            varint(index)
            try fieldValue(value)
        case .listErase(let object, let property, let index):
            try target(object, property)
            varint(index)
        case .listMove(let object, let property, let from, let to):
            try target(object, property)
            varint(from)
            varint(to)
        case .clearCollection(let object, let property):
            try target(object, property)
        case .setInsert(let object, let property, let value), .setErase(let object, let property, let value):
            try target(object, property)
            try fieldValue(value)
        case .dictionarySet(let object, let property, let key, let value):
            try target(object, property)
            string(key)
            try fieldValue(value)
        case .dictionaryErase(let object, let property, let key):
            try target(object, property)
            string(key)
        case .createEmbeddedObject(let object, let property, let position, let values):
            try target(object, property)
            switch position {
            case .single: u8(0)
            case .listIndex(let index): u8(1); varint(index)
            case .dictionaryKey(let key): u8(2); string(key)
            }
            try propertyValues(values)
        case .addClass(let schema):
            try classSchema(schema)
        case .addProperty(let className, let property):
            try name(className, "className")
            try propertySchema(property)
        }
    }

    private mutating func target(_ object: WireObjectPath, _ property: String) throws(WireError) {
        do throws(WireError) { try objectPath(object) } catch { throw error.within("object") }
        try name(property, "property")
    }

    private mutating func fieldValue(_ value: WireValue) throws(WireError) {
        do throws(WireError) { try self.value(value) } catch { throw error.within("value") }
    }

    private mutating func propertyValues(_ values: [WirePropertyValue]) throws(WireError) {
        varint(UInt64(values.count))
        for (i, pair) in values.enumerated() {
            do throws(WireError) {
                try name(pair.name, "name")
                do throws(WireError) { try value(pair.value) } catch { throw error.within("value") }
            } catch {
                throw error.within("values[\(i)]")
            }
        }
    }

    private mutating func classSchema(_ schema: WireClassSchema) throws(WireError) {
        try name(schema.name, "name")
        u8(schema.kind.rawValue)
        switch (schema.kind, schema.primaryKey) {
        case (.embedded, nil):
            u8(0)
        case (.embedded, .some):
            throw WireError(.badMessage, field: "primaryKey", "an embedded class has no primary key")
        case (_, nil):
            throw WireError(.badMessage, field: "primaryKey", "a top-level or asymmetric class needs a primary key")
        case (_, .some(let key)):
            guard isPrimaryKeyType(key.type) else {
                throw WireError(.badMessage, field: "primaryKey.type", "\(key.type) cannot be a primary key (int, string, objectId or uuid)")
            }
            u8(1)
            try name(key.name, "primaryKey.name")
            u8(key.type.rawValue)
            bool(key.isOptional)
        }
    }

    private mutating func propertySchema(_ property: WirePropertySchema) throws(WireError) {
        try name(property.name, "property.name")
        u8(property.type.rawValue)
        u8(property.collection.rawValue)
        u8((property.isOptional ? 0x1 : 0) | (property.isIndexed ? 0x2 : 0))
        switch (property.type, property.linkTarget) {
        case (.link, .some(let target)):
            try name(target, "property.linkTarget")
        case (.link, nil):
            throw WireError(.badMessage, field: "property.linkTarget", "a link property needs a target class")
        case (_, .some):
            throw WireError(.badMessage, field: "property.linkTarget", "only a link property has a target class, not a \(property.type) one")
        case (_, nil):
            break
        }
    }
}

/// Whether a property of `type` can be a primary key.
func isPrimaryKeyType(_ type: WirePropertyType) -> Bool {
    type == .int || type == .string || type == .objectId || type == .uuid
}

extension WireReader {
    mutating func readInstructions() throws(WireError) -> [WireInstruction] {
        let count = try self.count("instructions", minimumElementSize: minimumInstructionSize)
        var instructions: [WireInstruction] = []
        for i in 0..<count {
            do throws(WireError) { instructions.append(try instruction()) } catch { throw error.within("instructions[\(i)]") }
        }
        return instructions
    }

    mutating func instruction() throws(WireError) -> WireInstruction {
        let start = position
        let tag = try u8("tag")
        switch tag {
        case 1:
            let className = try name("className")
            let key = try primaryKey()
            return .createObject(className: className, primaryKey: key, values: try propertyValues())
        case 2:
            do throws(WireError) { return .eraseObject(try objectPath()) } catch { throw error.within("object") }
        case 3:
            let (object, property) = try target()
            return .set(object: object, property: property, value: try fieldValue())
        case 4:
            let (object, property) = try target()
            return .addInteger(object: object, property: property, delta: try zigzag("delta"))
        case 5, 6:
            let (object, property) = try target()
            let index = try varint("index")
            let value = try fieldValue()
            return tag == 5 ? .listInsert(object: object, property: property, index: index, value: value)
                            : .listSet(object: object, property: property, index: index, value: value)
        case 7:
            let (object, property) = try target()
            return .listErase(object: object, property: property, index: try varint("index"))
        case 8:
            let (object, property) = try target()
            let from = try varint("from")
            return .listMove(object: object, property: property, from: from, to: try varint("to"))
        case 9:
            let (object, property) = try target()
            return .clearCollection(object: object, property: property)
        case 10, 11:
            let (object, property) = try target()
            let value = try fieldValue()
            return tag == 10 ? .setInsert(object: object, property: property, value: value)
                             : .setErase(object: object, property: property, value: value)
        case 12:
            let (object, property) = try target()
            let key = try string("key")
            return .dictionarySet(object: object, property: property, key: key, value: try fieldValue())
        case 13:
            let (object, property) = try target()
            return .dictionaryErase(object: object, property: property, key: try string("key"))
        case 14:
            let (object, property) = try target()
            let positionStart = position
            let placement: WireEmbeddedPosition
            switch try u8("position") {
            case 0: placement = .single
            case 1: placement = .listIndex(try varint("position.index"))
            case 2: placement = .dictionaryKey(try string("position.key"))
            case let other: throw failure("position", "unknown embedded position kind \(other)", at: positionStart)
            }
            return .createEmbeddedObject(object: object, property: property, position: placement, values: try propertyValues())
        case 20:
            return .addClass(try classSchema())
        case 23:
            let className = try name("className")
            return .addProperty(className: className, property: try propertySchema())
        default:
            throw failure("tag", "unknown instruction tag \(tag)", at: start)
        }
    }

    private mutating func target() throws(WireError) -> (WireObjectPath, String) {
        let object: WireObjectPath
        do throws(WireError) { object = try objectPath() } catch { throw error.within("object") }
        return (object, try name("property"))
    }

    private mutating func fieldValue() throws(WireError) -> WireValue {
        do throws(WireError) { return try value() } catch { throw error.within("value") }
    }

    private mutating func propertyValues() throws(WireError) -> [WirePropertyValue] {
        // A pair is at least a one-letter name (2 bytes) and a null (1 byte).
        let count = try self.count("values", minimumElementSize: 3)
        var values: [WirePropertyValue] = []
        for i in 0..<count {
            do throws(WireError) {
                let name = try self.name("name")
                values.append(WirePropertyValue(name, try fieldValue()))
            } catch {
                throw error.within("values[\(i)]")
            }
        }
        return values
    }

    private mutating func classSchema() throws(WireError) -> WireClassSchema {
        let className = try name("name")
        let kind: WireClassKind = try code("kind", unknown: "class kind")
        let flagStart = position
        let hasKey = try bool("hasPrimaryKey")
        if kind == .embedded && hasKey {
            throw failure("hasPrimaryKey", "an embedded class has no primary key", at: flagStart)
        }
        if kind != .embedded && !hasKey {
            throw failure("hasPrimaryKey", "a top-level or asymmetric class needs a primary key", at: flagStart)
        }
        var key: WirePrimaryKeySchema?
        if hasKey {
            let keyName = try name("primaryKey.name")
            let typeStart = position
            let rawType = try u8("primaryKey.type")
            guard let type = WirePropertyType(rawValue: rawType), isPrimaryKeyType(type) else {
                throw failure("primaryKey.type", "type \(rawType) cannot be a primary key (int, string, objectId or uuid)", at: typeStart)
            }
            key = WirePrimaryKeySchema(name: keyName, type: type, isOptional: try bool("primaryKey.isOptional"))
        }
        return WireClassSchema(name: className, kind: kind, primaryKey: key)
    }

    private mutating func propertySchema() throws(WireError) -> WirePropertySchema {
        let propertyName = try name("property.name")
        let type: WirePropertyType = try code("property.type", unknown: "property type")
        let collection: WireCollectionKind = try code("property.collection", unknown: "collection kind")
        let flagsStart = position
        let flags = try u8("property.flags")
        guard flags & ~0x3 == 0 else {
            throw failure("property.flags", "unknown flag bits 0x\(String(flags & ~0x3, radix: 16))", at: flagsStart)
        }
        let target: String? = type == .link ? try name("property.linkTarget") : nil
        return WirePropertySchema(name: propertyName, type: type, collection: collection,
                                  isOptional: flags & 0x1 != 0, isIndexed: flags & 0x2 != 0, linkTarget: target)
    }
}
