import OpenRealmSyncCore
import OpenRealmWire

/// The client's half of conflict resolution for everything but list positions
/// (`docs/CONFLICTS.md`, "What a client must do to converge").
///
/// A downloaded changeset was integrated by the server before the client's pending
/// changesets (those its `lastIntegratedClientVersion` does not cover), and the server
/// will integrate those after it by its rules. So the client applies of the download
/// only what survives that, and its local values stay where a pending write will win:
///
/// - `set` (and the values of `createObject`): a pending `set` of the same property
///   with a greater stamp wins and the downloaded one is left out; inside a list
///   element, where the server applies every write, the pending one always wins. When
///   the download wins, pending `addInteger`s of the property are added to its value
///   (the server adds them after it).
/// - `addInteger`: left out when a pending `set` of the property will overwrite it.
/// - A pending `createEmbeddedObject` at a single link or dictionary key replaces what
///   is there: downloaded instructions on the object it replaces are left out. A downloaded `createEmbeddedObject` takes the pending
///   writes to the new object that will win.
/// - Dictionary keys and set values: a pending write of the same key or value is
///   integrated later and wins. A downloaded clear of a set or dictionary is followed
///   by the pending writes to it again (the server applies them after the clear).
/// - `eraseObject` and list instructions apply (lists were transformed before).
enum LastWriterWins {
    /// A property of an object.
    private struct PropertyKey: Hashable {
        var object: WireObjectPath
        var property: String
    }

    /// An element of a set (its value) or dictionary (its key).
    private struct ElementKey: Hashable {
        var collection: PropertyKey
        var element: WireValue
    }

    /// What the pending changesets write.
    private struct PendingWrites {
        /// The greatest stamp of a pending `set` of each property, and its latest value.
        var sets: [PropertyKey: (stamp: WriteStamp, value: WireValue)] = [:]
        var additions: [PropertyKey: Int64] = [:]
        /// Embedded objects a pending `createEmbeddedObject` replaces, by path.
        var replaced: Set<WireObjectPath> = []
        var elements: Set<ElementKey> = []
        /// The pending set and dictionary writes of each collection, in order.
        var collectionWrites: [PropertyKey: [WireInstruction]] = [:]

        init(_ pending: [(stamp: WriteStamp, instructions: [WireInstruction])]) {
            for (stamp, instructions) in pending {
                for instruction in instructions { add(instruction, stamp) }
            }
        }

        private mutating func set(_ key: PropertyKey, _ value: WireValue, _ stamp: WriteStamp) {
            if let known = sets[key], known.stamp > stamp { return }
            sets[key] = (stamp, value)
        }

        private mutating func add(_ instruction: WireInstruction, _ stamp: WriteStamp) {
            switch instruction {
            case .createObject(let className, let pk, let values):
                let path = WireObjectPath(className: className, primaryKey: pk)
                for v in values { set(PropertyKey(object: path, property: v.name), v.value, stamp) }
            case .set(let path, let property, let value):
                set(PropertyKey(object: path, property: property), value, stamp)
            case .addInteger(let path, let property, let delta):
                additions[PropertyKey(object: path, property: property), default: 0] &+= delta
            case .createEmbeddedObject(let parent, let property, let position, let values):
                let child = childPath(parent, property, position)
                if case .listIndex = position {} else { replaced.insert(child) }
                for v in values { set(PropertyKey(object: child, property: v.name), v.value, stamp) }
            case .setInsert(let path, let property, let value), .setErase(let path, let property, let value):
                let key = PropertyKey(object: path, property: property)
                elements.insert(ElementKey(collection: key, element: value))
                collectionWrites[key, default: []].append(instruction)
            case .dictionarySet(let path, let property, let dkey, _), .dictionaryErase(let path, let property, let dkey):
                let key = PropertyKey(object: path, property: property)
                elements.insert(ElementKey(collection: key, element: .string(dkey)))
                collectionWrites[key, default: []].append(instruction)
            default:
                break
            }
        }

        /// Whether `path` is, or is inside, an embedded object a pending instruction replaces.
        func isReplaced(_ path: WireObjectPath) -> Bool {
            replaced.contains { $0.root == path.root && path.path.starts(with: $0.path) }
        }

        /// Whether a downloaded `set` of `key` stamped `stamp` loses to a pending one.
        func setLoses(_ key: PropertyKey, _ stamp: WriteStamp) -> Bool {
            guard let pending = sets[key] else { return false }
            return isInListElement(key.object) || pending.stamp > stamp
        }

        /// A downloaded value of `key` that wins, with the pending additions added.
        func winning(_ key: PropertyKey, _ value: WireValue) -> WireValue {
            guard let delta = additions[key], case .int(let n) = value else { return value }
            return .int(n &+ delta)
        }
    }

    /// `downloaded` (one changeset, stamped `stamp`, its list positions already
    /// transformed) without what the client's pending changesets win, oldest first.
    static func resolve(_ downloaded: [WireInstruction], stamp: WriteStamp,
                        pending: [(stamp: WriteStamp, instructions: [WireInstruction])]) -> [WireInstruction] {
        guard !pending.isEmpty else { return downloaded }
        let writes = PendingWrites(pending)
        var out: [WireInstruction] = []
        for instruction in downloaded {
            if let path = instruction.objectPath, writes.isReplaced(path) { continue }
            switch instruction {
            case .createObject(let className, let pk, let values):
                let path = WireObjectPath(className: className, primaryKey: pk)
                let kept = values.compactMap { v -> WirePropertyValue? in
                    let key = PropertyKey(object: path, property: v.name)
                    return writes.setLoses(key, stamp) ? nil : WirePropertyValue(v.name, writes.winning(key, v.value))
                }
                out.append(.createObject(className: className, primaryKey: pk, values: kept))
            case .set(let path, let property, let value):
                let key = PropertyKey(object: path, property: property)
                if writes.setLoses(key, stamp) { continue }
                if writes.replaced.contains(WireObjectPath(path.root, path: path.path + [.property(property)])) { continue }
                out.append(.set(object: path, property: property, value: writes.winning(key, value)))
            case .addInteger(let path, let property, _):
                if writes.sets[PropertyKey(object: path, property: property)] != nil { continue }
                out.append(instruction)
            case .createEmbeddedObject(let parent, let property, let position, let values):
                let child = childPath(parent, property, position)
                if case .listIndex = position {} else if writes.isReplaced(child) { continue }
                // The new object's values take this changeset's stamp; pending writes to
                // it that beat that stamp are applied after it on the server.
                var merged = values.map { v in
                    WirePropertyValue(v.name, writes.winning(PropertyKey(object: child, property: v.name), v.value))
                }
                for (key, write) in writes.sets where key.object == child && (isInListElement(child) || write.stamp > stamp) {
                    merged.removeAll { $0.name == key.property }
                    merged.append(WirePropertyValue(key.property, write.value))
                }
                out.append(.createEmbeddedObject(object: parent, property: property, position: position, values: merged))
            case .setInsert(let path, let property, let value), .setErase(let path, let property, let value):
                if writes.elements.contains(ElementKey(collection: PropertyKey(object: path, property: property), element: value)) { continue }
                out.append(instruction)
            case .dictionarySet(let path, let property, let dkey, _), .dictionaryErase(let path, let property, let dkey):
                if writes.elements.contains(ElementKey(collection: PropertyKey(object: path, property: property), element: .string(dkey))) { continue }
                out.append(instruction)
            case .clearCollection(let path, let property):
                out.append(instruction)
                out += writes.collectionWrites[PropertyKey(object: path, property: property)] ?? []
            default:
                out.append(instruction)
            }
        }
        return out
    }

    private static func childPath(_ parent: WireObjectPath, _ property: String, _ position: WireEmbeddedPosition) -> WireObjectPath {
        var steps = parent.path + [.property(property)]
        switch position {
        case .single: break
        case .listIndex(let i): steps.append(.index(i))
        case .dictionaryKey(let k): steps.append(.key(k))
        }
        return WireObjectPath(parent.root, path: steps)
    }

    private static func isInListElement(_ path: WireObjectPath) -> Bool {
        path.path.contains { if case .index = $0 { return true } else { return false } }
    }
}
