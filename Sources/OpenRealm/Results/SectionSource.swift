import Foundation
import ORCore

/// The elements `SectionedResults` group, in their sorted order, as one realm reads
/// them: the objects of sorted `Results` (``ObjectSectionSource``), or the values of a
/// managed list or set sorted by value (``ValueSectionSource``).
///
/// A source reads the elements afresh on every evaluation, so sectioned results made
/// from it are live; it can be frozen, thawed and read through another realm of the
/// file (for notifications delivered on a queue or actor).
class SectionSource<Element: RealmCollectionValue> {
    /// The realm the elements are read through.
    var realm: Realm { preconditionFailure("abstract") }
    /// Whether the elements can no longer be read (the realm was invalidated, the
    /// collection's owner deleted).
    var isInvalidated: Bool { preconditionFailure("abstract") }

    /// The elements in order (for objects, their keys; for values, the values).
    func read() -> SourceElements<Element> { preconditionFailure("abstract") }
    /// An identity for each element of two reads, the same in both for the same
    /// element: an object's key; for values, the value and how many equal values
    /// precede it, so that adding or removing one copy of a repeated value changes
    /// only that copy.
    func identities(_ old: SourceElements<Element>, _ new: SourceElements<Element>) -> (old: [UInt64], new: [UInt64]) {
        (old.ids, new.ids)
    }
    /// The element at `position` of what `read()` returned.
    func element(_ elements: SourceElements<Element>, at position: Int) -> Element { preconditionFailure("abstract") }
    /// The same source in a frozen realm at the current version.
    func frozen() -> SectionSource<Element> { preconditionFailure("abstract") }
    /// The same source in a live realm on this thread; nil when its collection is gone.
    func thawed() -> SectionSource<Element>? { preconditionFailure("abstract") }
    /// The same source read through `other`; nil when it cannot be found there.
    func rebound(to other: Realm) -> SectionSource<Element>? { preconditionFailure("abstract") }
    /// The restriction of an observation to key paths of the elements (objects only).
    func keyPathFilter(_ paths: [String]?, in realm: Realm) -> KeyPathFilter? { nil }
    /// The identities of the elements a change modified (objects only: along the
    /// filter's key paths, or directly and through their links without one).
    func modified(_ context: ChangeContext, _ filter: KeyPathFilter?) -> Set<UInt64> { [] }
}

/// What a ``SectionSource`` read: the objects' keys in order, or the values.
struct SourceElements<Element> {
    var ids: [UInt64] = []
    var values: [Element] = []
}

/// The objects of sorted `Results`.
final class ObjectSectionSource<Element: RealmCollectionValue>: SectionSource<Element> {
    let results: Results<Element>

    init(_ results: Results<Element>) {
        self.results = results
    }

    override var realm: Realm { results.core.realm }
    override var isInvalidated: Bool { results.isInvalidated }

    override func read() -> SourceElements<Element> {
        results.core.requireNotStale()
        return SourceElements(ids: results.core.keys)
    }

    override func element(_ elements: SourceElements<Element>, at position: Int) -> Element {
        results.object(forKey: elements.ids[position])
    }

    override func frozen() -> SectionSource<Element> { ObjectSectionSource(results.freeze()) }
    override func thawed() -> SectionSource<Element>? { results.thaw().map(ObjectSectionSource.init) }

    override func rebound(to other: Realm) -> SectionSource<Element>? {
        if other === results.core.realm { return self }
        return results.core.rebound(to: other).map { ObjectSectionSource(Results(core: $0)) }
    }

    override func keyPathFilter(_ paths: [String]?, in realm: Realm) -> KeyPathFilter? {
        KeyPathFilter(paths, className: results.core.className, realm: realm)
    }

    override func modified(_ context: ChangeContext, _ filter: KeyPathFilter?) -> Set<UInt64> {
        guard let table = results.core.table else { return [] }
        return filter.map { $0.modified(context) } ?? context.deepModified(table: table)
    }
}

/// The values of a managed `List` or `MutableSet`, sorted by value in ORCore's value
/// order (the order `sorted(byKeyPath:)` gives objects): the sources of sectioned
/// collections of values, which the Realm Swift SDK sorts by `"self"`.
final class ValueSectionSource<Element: RealmCollectionValue>: SectionSource<Element> {
    let location: CollectionLocation
    let ascending: Bool

    init(_ location: CollectionLocation, ascending: Bool) {
        self.location = location
        self.ascending = ascending
    }

    override var realm: Realm { location.realm }
    override var isInvalidated: Bool { location.isInvalidated }

    override func read() -> SourceElements<Element> {
        location.requireNotStale()
        guard orc_obj_exists(location.txn, location.table, location.key) else { return SourceElements() }
        // The raw values point into the snapshot: sort and decode them before anything else reads.
        let raw = (0..<location.size()).map(location.get)
        let order = raw.indices.sorted { a, b in
            var left = raw[a], right = raw[b]
            let c = orc_value_compare(&left, &right)
            if c != 0 { return ascending ? c < 0 : c > 0 }
            return ascending ? a < b : a > b
        }
        return SourceElements(values: order.map { Element._orDecode(raw[$0], location.realm) })
    }

    override func identities(_ old: SourceElements<Element>, _ new: SourceElements<Element>) -> (old: [UInt64], new: [UInt64]) {
        var numbers: [Element: [UInt64]] = [:]   // per value, the identity of each copy
        var next: UInt64 = 0
        func number(_ values: [Element]) -> [UInt64] {
            var copies: [Element: Int] = [:]
            return values.map { value in
                let copy = copies[value, default: 0]
                copies[value] = copy + 1
                if let ids = numbers[value], copy < ids.count { return ids[copy] }
                next += 1
                numbers[value, default: []].append(next)
                return next
            }
        }
        return (number(old.values), number(new.values))
    }

    override func element(_ elements: SourceElements<Element>, at position: Int) -> Element {
        elements.values[position]
    }

    override func frozen() -> SectionSource<Element> {
        location.requireNotStale()
        if location.realm.isFrozen { return self }
        return ValueSectionSource(CollectionLocation(location.parent.freeze(), location.propertyIndex), ascending: ascending)
    }

    override func thawed() -> SectionSource<Element>? {
        guard location.realm.isFrozen else { return self }
        return location.parent.thaw().map { ValueSectionSource(CollectionLocation($0, location.propertyIndex), ascending: ascending) }
    }

    override func rebound(to other: Realm) -> SectionSource<Element>? {
        if other === location.realm { return self }
        return CollectionObservation.owner(location, in: other).map {
            ValueSectionSource(CollectionLocation($0, location.propertyIndex), ascending: ascending)
        }
    }
}
