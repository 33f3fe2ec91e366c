import OpenRealmWire


/// Operational transformation of list instructions (`listInsert`, `listSet`,
/// `listErase`, `listMove`, `createEmbeddedObject` into a list, `clearCollection`) so
/// that concurrent edits of one list keep their intent.
///
/// A changeset was made on the client's copy as of its `lastIntegratedServerVersion`
/// `L`; the history entries of other clients after `L` were integrated before it
/// without the client knowing. Each list instruction of the changeset is transformed
/// against those entries' instructions on the same list (same object path and
/// property), in server order, while those are transformed in turn against the
/// changeset's earlier instructions (the usual inclusion transformation of one
/// sequence against another):
///
/// | concurrent (integrated first) | incoming | result |
/// |---|---|---|
/// | insert at `p` | insert at `q` | `q + 1` when `q ≥ p`: on a tie the element integrated first stays first |
/// | insert at `p` | set / erase / move at `q` | `q + 1` when `q ≥ p` |
/// | erase at `p` | insert at `q` | `q − 1` when `q > p` |
/// | erase at `p` | set / erase at `q` | dropped when `q = p` (the element is gone), `q − 1` when `q > p` |
/// | move `f → t` | any at `q` | `q` follows the element layout the move produced |
/// | clear | any but a clear | dropped: the clear wins over concurrent edits |
///
/// Instructions whose object path goes through a list (`Order[1].lines[2].qty`) have
/// that index moved the same way (dropped when the element was erased), and an
/// `eraseObject` of a list element counts as a `listErase`.
///
/// A client converges by doing the same to what it downloads: a downloaded list
/// instruction was integrated before the client's own pending ones, so it is
/// transformed against them with the downloaded one winning ties.
public enum ListTransform {
    /// A list a list instruction acts on.
    public struct ListID: Hashable, Sendable {
        public var object: WireObjectPath
        public var property: String

        public init(object: WireObjectPath, property: String) {
            self.object = object
            self.property = property
        }
    }

    /// The list `instruction` edits, or nil when it edits no list.
    public static func list(of instruction: WireInstruction) -> ListID? {
        switch instruction {
        case .listInsert(let o, let p, _, _), .listSet(let o, let p, _, _), .listErase(let o, let p, _),
             .listMove(let o, let p, _, _), .clearCollection(let o, let p):
            return ListID(object: o, property: p)
        case .createEmbeddedObject(let o, let p, .listIndex, _):
            return ListID(object: o, property: p)
        case .eraseObject(let path):
            return elementStep(path)?.0
        default:
            return nil
        }
    }

    /// `incoming` (made without knowledge of `concurrent`, which was applied first)
    /// rewritten to apply after `concurrent`; instructions that lost their element are
    /// left out. Instructions on lists no concurrent instruction touches are unchanged.
    ///
    /// `incomingWinsTies`: whether `incoming` counts as integrated first (false on the
    /// server for an uploaded changeset; true to carry earlier-integrated instructions
    /// past a changeset integrated after them, or on a client for downloaded ones).
    public static func transform(_ incoming: [WireInstruction], against concurrent: [WireInstruction],
                          incomingWinsTies: Bool = false) -> [WireInstruction] {
        var others: [ListID: [WireInstruction]] = [:]
        for c in concurrent { if let id = list(of: c) { others[id, default: []].append(c) } }
        guard !others.isEmpty else { return incoming }
        var out: [WireInstruction] = []
        for instruction in incoming {
            var current: WireInstruction? = instruction
            // The lists its path goes through, outermost first, then its own list.
            for id in listsOnPath(of: instruction) + [list(of: instruction)].compactMap({ $0 }) {
                guard let against = others[id] else { continue }
                var rewritten: [WireInstruction] = []
                for b in against {
                    guard let a = current else { rewritten.append(b); continue }
                    current = transform(a, against: b, winsTies: incomingWinsTies)
                    if let b2 = transform(b, against: a, winsTies: !incomingWinsTies) { rewritten.append(b2) }
                }
                others[id] = rewritten
            }
            if let current { out.append(current) }
        }
        return out
    }

    /// `a` rewritten to apply after `b` (both made on the same list state); nil when `a`
    /// no longer has an element to act on. `winsTies`: whether `a` was integrated first
    /// (it is then placed first when both insert at one position, and loses when both
    /// set or move the same element: the one integrated later wins).
    ///
    /// A move `f → t` is an erase at `f` and an insert at `t` in the list without the
    /// element; positions are mapped through both.
    public static func transform(_ a: WireInstruction, against b: WireInstruction, winsTies: Bool) -> WireInstruction? {
        let b = asListEdit(b)
        guard let bList = list(of: b) else { return a }
        // An erase of a list element is transformed as the list edit it is.
        if case .eraseObject(let path) = a, let (id, index) = elementStep(path) {
            var prefix = WireObjectPath(path.root, path: Array(path.path.dropLast(2)))
            if id != bList {
                // b may move an element the erased one sits in.
                guard let moved = followingPath(.set(object: prefix, property: "", value: .null), through: bList, b),
                      case .set(let o, _, _) = moved else { return nil }
                prefix = o
                return .eraseObject(WireObjectPath(prefix.root, path: prefix.path + [.property(id.property), .index(index)]))
            }
            guard case .listErase(_, _, let j)? = transform(.listErase(object: prefix, property: id.property, index: index),
                                                            against: b, winsTies: winsTies) else { return nil }
            return .eraseObject(WireObjectPath(prefix.root, path: prefix.path + [.property(id.property), .index(j)]))
        }
        // Paths through the list b edits follow their element.
        guard let a = followingPath(a, through: bList, b) else { return nil }
        guard list(of: a) == bList else { return a }
        if case .clearCollection = b {
            // The clear wins: what was made without knowing of it goes with the rest.
            if case .clearCollection = a { return a }
            return nil
        }
        if case .listMove(let o, let p, let f, let t) = a {
            return moveAfter(f, t, b, winsTies).map { .listMove(object: o, property: p, from: $0.0, to: $0.1) }
        }
        if case .listSet(_, _, let q, _) = a, case .listSet(_, _, let p, _) = b, q == p, winsTies { return nil }
        return map(a) { q, isInsert in isInsert ? gapAfter(q, b, winsTies) : elementAfter(q, b) }
    }

    /// Where the element at `q` is after `b`; nil when `b` erased it.
    static func elementAfter(_ q: UInt64, _ b: WireInstruction) -> UInt64? {
        switch b {
        case .listInsert(_, _, let p, _), .createEmbeddedObject(_, _, .listIndex(let p), _):
            return q >= p ? q + 1 : q
        case .listErase(_, _, let p):
            return q == p ? nil : (q > p ? q - 1 : q)
        case .listMove(_, _, let f, let t):
            if q == f { return t }
            let without = q > f ? q - 1 : q
            return without >= t ? without + 1 : without
        case .clearCollection:
            return nil
        default:
            return q
        }
    }

    /// Where the insertion point `q` (before the element at `q`) is after `b`.
    static func gapAfter(_ q: UInt64, _ b: WireInstruction, _ winsTies: Bool) -> UInt64 {
        switch b {
        case .listInsert(_, _, let p, _), .createEmbeddedObject(_, _, .listIndex(let p), _):
            return q > p || (q == p && !winsTies) ? q + 1 : q
        case .listErase(_, _, let p):
            return q > p ? q - 1 : q
        case .listMove(_, _, let f, let t):
            let without = q > f ? q - 1 : q
            return without > t || (without == t && !winsTies) ? without + 1 : without
        default:
            return q
        }
    }

    /// A move `f → t` rewritten to apply after `b`.
    private static func moveAfter(_ f: UInt64, _ t: UInt64, _ b: WireInstruction, _ winsTies: Bool) -> (UInt64, UInt64)? {
        switch b {
        case .listInsert(_, _, let p, _), .createEmbeddedObject(_, _, .listIndex(let p), _):
            // In the list without the moved element, the insert is at p' .
            let pp = p > f ? p - 1 : p
            return (f >= p ? f + 1 : f, t > pp || (t == pp && !winsTies) ? t + 1 : t)
        case .listErase(_, _, let p):
            guard p != f else { return nil }
            let pp = p > f ? p - 1 : p
            return (f > p ? f - 1 : f, t > pp ? t - 1 : t)
        case .listMove(_, _, let bf, let bt):
            if bf == f { return winsTies ? nil : (bt, t) }
            guard let from = elementAfter(f, b) else { return nil }
            // b in the list without a's element: the erase at bf, then the insert at bt.
            let bff = bf > f ? bf - 1 : bf
            let fInWithoutB = f > bf ? f - 1 : f
            let btt = bt > fInWithoutB ? bt - 1 : bt
            var to = t > bff ? t - 1 : t
            to = to > btt || (to == btt && !winsTies) ? to + 1 : to
            return (from, to)
        default:
            return (f, t)
        }
    }

    /// `a` with each of its positions rewritten by `f` (given whether the position is an
    /// insertion point); nil when `f` drops one.
    private static func map(_ a: WireInstruction, _ f: (UInt64, Bool) -> UInt64?) -> WireInstruction? {
        switch a {
        case .listInsert(let o, let p, let q, let v):
            return f(q, true).map { .listInsert(object: o, property: p, index: $0, value: v) }
        case .createEmbeddedObject(let o, let p, .listIndex(let q), let v):
            return f(q, true).map { .createEmbeddedObject(object: o, property: p, position: .listIndex($0), values: v) }
        case .listSet(let o, let p, let q, let v):
            return f(q, false).map { .listSet(object: o, property: p, index: $0, value: v) }
        case .listErase(let o, let p, let q):
            return f(q, false).map { .listErase(object: o, property: p, index: $0) }
        case .listMove(let o, let p, let from, let to):
            guard let from2 = f(from, false), let to2 = f(to, false) else { return nil }
            return .listMove(object: o, property: p, from: from2, to: to2)
        default:
            return a
        }
    }
}
