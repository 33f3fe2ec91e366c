import OpenRealmWire

/// A stored object as the instructions that recreate it on a client: `createObject`
/// with its single values, then its collections' elements and its embedded objects
/// (`createEmbeddedObject` at their place, then their own contents, recursively). Used
/// for bootstraps and for objects that enter a client's view; the object is read as an
/// ``ObjectImage`` (``ObjectReading/images(_:)``).
enum ObjectSnapshot {
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
