import OpenRealmWire


/// Object paths through lists: an embedded object in a list is reached by its index
/// (`Order[1].lines[2]`), so instructions on it, or on anything inside it, are moved by
/// concurrent edits of that list like the list's own instructions.
extension ListTransform {
    /// For the path of an element of a list of embedded objects (ending in a property
    /// and an index): the list and the index.
    static func elementStep(_ path: WireObjectPath) -> (ListID, UInt64)? {
        let steps = path.path
        guard steps.count >= 2, case .property(let p) = steps[steps.count - 2], case .index(let i) = steps[steps.count - 1] else {
            return nil
        }
        return (ListID(object: WireObjectPath(path.root, path: Array(steps.dropLast(2))), property: p), i)
    }

    /// The lists an instruction's object path passes through (by an index), outermost
    /// first; the erased element of an `eraseObject` is not counted (that is a list edit).
    static func listsOnPath(of instruction: WireInstruction) -> [ListID] {
        guard var path = instruction.objectPath else { return [] }
        if case .eraseObject = instruction, elementStep(path) != nil { path.path.removeLast(2) }
        var out: [ListID] = []
        var k = 0
        while k + 1 < path.path.count {
            if case .property(let p) = path.path[k], case .index = path.path[k + 1] {
                out.append(ListID(object: WireObjectPath(path.root, path: Array(path.path[..<k])), property: p))
            }
            k += 1
        }
        return out
    }

    /// `i` acting on `path` instead.
    static func replacingObjectPath(_ i: WireInstruction, _ o: WireObjectPath) -> WireInstruction {
        switch i {
        case .eraseObject: return .eraseObject(o)
        case .set(_, let p, let v): return .set(object: o, property: p, value: v)
        case .addInteger(_, let p, let d): return .addInteger(object: o, property: p, delta: d)
        case .listInsert(_, let p, let q, let v): return .listInsert(object: o, property: p, index: q, value: v)
        case .listSet(_, let p, let q, let v): return .listSet(object: o, property: p, index: q, value: v)
        case .listErase(_, let p, let q): return .listErase(object: o, property: p, index: q)
        case .listMove(_, let p, let f, let t): return .listMove(object: o, property: p, from: f, to: t)
        case .clearCollection(_, let p): return .clearCollection(object: o, property: p)
        case .setInsert(_, let p, let v): return .setInsert(object: o, property: p, value: v)
        case .setErase(_, let p, let v): return .setErase(object: o, property: p, value: v)
        case .dictionarySet(_, let p, let k, let v): return .dictionarySet(object: o, property: p, key: k, value: v)
        case .dictionaryErase(_, let p, let k): return .dictionaryErase(object: o, property: p, key: k)
        case .createEmbeddedObject(_, let p, let pos, let v): return .createEmbeddedObject(object: o, property: p, position: pos, values: v)
        default: return i
        }
    }

    /// An `eraseObject` of a list element as the `listErase` it amounts to.
    static func asListEdit(_ i: WireInstruction) -> WireInstruction {
        if case .eraseObject(let path) = i, let (id, index) = elementStep(path) {
            return .listErase(object: id.object, property: id.property, index: index)
        }
        return i
    }

    /// `a` with the index it takes in list `id` (a step of its object path) moved as
    /// `b` moves elements; nil when `b` erased that element.
    static func followingPath(_ a: WireInstruction, through id: ListID, _ b: WireInstruction) -> WireInstruction? {
        guard var path = a.objectPath else { return a }
        let limit = { if case .eraseObject = a, elementStep(path) != nil { return path.path.count - 2 } else { return path.path.count } }()
        var k = 0
        while k + 1 < limit {
            if case .property(let p) = path.path[k], p == id.property, case .index(let i) = path.path[k + 1],
               WireObjectPath(path.root, path: Array(path.path[..<k])) == id.object {
                guard let moved = elementAfter(i, b) else { return nil }
                path.path[k + 1] = .index(moved)
                return replacingObjectPath(a, path)
            }
            k += 1
        }
        return a
    }
}
