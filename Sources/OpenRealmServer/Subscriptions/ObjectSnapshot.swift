import OpenRealmWire

/// A stored object as the instructions that recreate it on a client: `createObject`
/// with its single values, then its collections' elements and its embedded objects
/// (`createEmbeddedObject` at their place, then their own contents, recursively). Used
/// for bootstraps and for objects that enter a client's view.
enum ObjectSnapshot {
    /// The instructions for object `key` of `cls`.
    ///
    /// - Parameter clearingEveryCollection: whether to clear every collection property
    ///   first, even empty ones, and to null empty embedded links (for a client whose
    ///   copy may differ, such as one whose write is reverted); otherwise only non-empty
    ///   collections are cleared.
    static func instructions(_ txn: StoreTransaction, _ schema: SyncSchema, _ cls: StoredClass, key: UInt64,
                             clearingEveryCollection: Bool = false) throws -> [WireInstruction] {
        let ref = try txn.objectRef(cls, key)
        let (values, rest) = try contents(txn, schema, cls, key: key, path: WireObjectPath(ref),
                                          clearing: clearingEveryCollection)
        return [.createObject(className: ref.className, primaryKey: ref.primaryKey, values: values)] + rest
    }

    /// The single values of object `key` of `cls` (for its create instruction), and the
    /// instructions that fill its collections and embedded objects, addressed by `path`.
    private static func contents(_ txn: StoreTransaction, _ schema: SyncSchema, _ cls: StoredClass, key: UInt64,
                                 path: WireObjectPath, clearing: Bool) throws -> ([WirePropertyValue], [WireInstruction]) {
        var values: [WirePropertyValue] = []
        var rest: [WireInstruction] = []
        // The server's own columns (the hidden partition and clocks) are not among the properties.
        for prop in cls.properties where !prop.isPrimaryKey {
            let embedded = schema.embeddedTarget(of: prop)
            let size = prop.collection == .none ? 0 : try txn.collectionSize(cls, key, prop)
            // A client that already holds the object gets its collections replaced, not appended to.
            if prop.collection != .none && (clearing || size > 0) {
                rest.append(.clearCollection(object: path, property: prop.name))
            }
            switch prop.collection {
            case .none:
                if let embedded {
                    if let child = try txn.embeddedObject(cls, key, prop) {
                        rest += try embeddedObject(txn, schema, embedded, child, parent: path, property: prop.name, position: .single)
                    } else if clearing {
                        rest.append(.set(object: path, property: prop.name, value: .null))
                    }
                } else {
                    values.append(WirePropertyValue(prop.name, try txn.value(cls, key, prop)))
                }
            case .list:
                for i in 0..<size {
                    if let embedded, let child = try txn.embeddedObject(cls, key, prop, at: i) {
                        rest += try embeddedObject(txn, schema, embedded, child, parent: path, property: prop.name,
                                                   position: .listIndex(UInt64(i)))
                    } else {
                        rest.append(.listInsert(object: path, property: prop.name, index: UInt64(i),
                                                value: try txn.collectionElement(cls, key, prop, i)))
                    }
                }
            case .set:
                for i in 0..<size {
                    rest.append(.setInsert(object: path, property: prop.name, value: try txn.collectionElement(cls, key, prop, i)))
                }
            case .dictionary:
                for i in 0..<size {
                    let dkey = try txn.dictionaryKey(cls, key, prop, i)
                    if let embedded, let child = try txn.embeddedObject(cls, key, prop, at: i) {
                        rest += try embeddedObject(txn, schema, embedded, child, parent: path, property: prop.name,
                                                   position: .dictionaryKey(dkey))
                    } else {
                        rest.append(.dictionarySet(object: path, property: prop.name, key: dkey,
                                                   value: embedded != nil ? .null : try txn.collectionElement(cls, key, prop, i)))
                    }
                }
            }
        }
        return (values, rest)
    }

    /// The instructions that create the embedded object `child` of class `cls` at
    /// `position` of `parent`'s `property`, with its contents.
    private static func embeddedObject(_ txn: StoreTransaction, _ schema: SyncSchema, _ cls: StoredClass, _ child: UInt64,
                                       parent: WireObjectPath, property: String,
                                       position: WireEmbeddedPosition) throws -> [WireInstruction] {
        var steps = parent.path + [WirePathElement.property(property)]
        switch position {
        case .single: break
        case .listIndex(let i): steps.append(.index(i))
        case .dictionaryKey(let k): steps.append(.key(k))
        }
        let (values, rest) = try contents(txn, schema, cls, key: child, path: WireObjectPath(parent.root, path: steps),
                                          clearing: false)
        return [.createEmbeddedObject(object: parent, property: property, position: position, values: values)] + rest
    }

    // MARK: From images

    /// The instructions for the object `image` shows.
    ///
    /// - Parameter clearingEveryCollection: whether to clear every collection property
    ///   first, even empty ones, and to null empty embedded links (for a client whose
    ///   copy may differ, such as one whose write is reverted); otherwise only non-empty
    ///   collections are cleared.
    static func instructions(_ image: ObjectImage, clearingEveryCollection: Bool = false) -> [WireInstruction] {
        var rest: [WireInstruction] = []
        let values = contents(image.properties, path: WireObjectPath(image.ref), clearing: clearingEveryCollection, into: &rest)
        return [.createObject(className: image.ref.className, primaryKey: image.ref.primaryKey, values: values)] + rest
    }

    /// The single values of an object with `properties` (for its create instruction);
    /// appends to `rest` the instructions that fill its collections and embedded
    /// objects, addressed by `path`.
    private static func contents(_ properties: [ObjectImage.Property], path: WireObjectPath, clearing: Bool,
                                 into rest: inout [WireInstruction]) -> [WirePropertyValue] {
        var values: [WirePropertyValue] = []
        for property in properties {
            let name = property.name
            // A client that already holds the object gets its collections replaced, not appended to.
            func clear(_ count: Int) {
                if clearing || count > 0 { rest.append(.clearCollection(object: path, property: name)) }
            }
            switch property.value {
            case .single(let value):
                values.append(WirePropertyValue(name, value))
            case .embedded(let child):
                if let child {
                    embeddedObject(child, parent: path, property: name, position: .single, into: &rest)
                } else if clearing {
                    rest.append(.set(object: path, property: name, value: .null))
                }
            case .list(let elements):
                clear(elements.count)
                for (i, element) in elements.enumerated() {
                    switch element {
                    case .value(let value):
                        rest.append(.listInsert(object: path, property: name, index: UInt64(i), value: value))
                    case .embedded(let child):
                        embeddedObject(child, parent: path, property: name, position: .listIndex(UInt64(i)), into: &rest)
                    }
                }
            case .set(let elements):
                clear(elements.count)
                for value in elements { rest.append(.setInsert(object: path, property: name, value: value)) }
            case .dictionary(let entries):
                clear(entries.count)
                for entry in entries {
                    switch entry.element {
                    case .value(let value):
                        rest.append(.dictionarySet(object: path, property: name, key: entry.key, value: value))
                    case .embedded(let child):
                        embeddedObject(child, parent: path, property: name, position: .dictionaryKey(entry.key), into: &rest)
                    }
                }
            }
        }
        return values
    }

    /// Appends the instructions that create the embedded object `child` at `position` of
    /// `parent`'s `property`, with its contents.
    private static func embeddedObject(_ child: ObjectImage.Embedded, parent: WireObjectPath, property: String,
                                       position: WireEmbeddedPosition, into rest: inout [WireInstruction]) {
        var steps = parent.path + [WirePathElement.property(property)]
        switch position {
        case .single: break
        case .listIndex(let i): steps.append(.index(i))
        case .dictionaryKey(let k): steps.append(.key(k))
        }
        var inner: [WireInstruction] = []
        let values = contents(child.properties, path: WireObjectPath(parent.root, path: steps), clearing: false, into: &inner)
        rest.append(.createEmbeddedObject(object: parent, property: property, position: position, values: values))
        rest += inner
    }
}
