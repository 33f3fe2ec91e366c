import Foundation
import ORCore

/// One evaluation of sectioned results: the section keys in order and, for each
/// section, the positions of its elements in what the source read.
///
/// Sections are made in the order their keys first appear in the sorted elements,
/// and an element joins the section of its key wherever it is: a key block that does
/// not follow the primary sort still gives one section per key (as the Realm Swift
/// SDK does), its elements in sort order.
struct Sections<Key: Hashable, Element> {
    var keys: [Key] = []
    var members: [[Int]] = []
    var index: [Key: Int] = [:]
    var elements = SourceElements<Element>()

    init() {}

    init(_ elements: SourceElements<Element>, count: Int, key: (Int) -> Key) {
        self.elements = elements
        for position in 0..<count {
            let sectionKey = key(position)
            if let section = index[sectionKey] {
                members[section].append(position)
            } else {
                index[sectionKey] = keys.count
                keys.append(sectionKey)
                members.append([position])
            }
        }
    }
}

/// The engine room of `SectionedResults` and `ResultsSection`: a source of sorted
/// elements, the key block, and the sections of the last evaluation. The sections are
/// made again only when the realm's snapshot or the write transaction's generation
/// changed since, so reading sectioned results costs nothing while nothing changes;
/// frozen ones are made once.
///
/// The key block runs on every element at each evaluation, on the thread (or queue,
/// or actor) that reads the sections.
final class SectioningCore<Key: Hashable, Element: RealmCollectionValue> {
    let source: SectionSource<Element>
    let keyBlock: (Element) -> Key
    private var cached: Sections<Key, Element>?
    private var stamp: (txn: OpaquePointer?, version: UInt64, generation: UInt64) = (nil, .max, .max)

    init(source: SectionSource<Element>, keyBlock: @escaping (Element) -> Key) {
        self.source = source
        self.keyBlock = keyBlock
    }

    var realm: Realm { source.realm }

    /// The sections as the realm reads them now.
    var sections: Sections<Key, Element> {
        let txn = realm.txn
        let now = (txn: Optional(txn), version: orc_txn_version(txn), generation: orc_txn_generation(txn))
        if let cached, stamp == now { return cached }
        let elements = source.read()
        let count = elements.values.isEmpty ? elements.ids.count : elements.values.count
        let sections = Sections<Key, Element>(elements, count: count) { keyBlock(source.element(elements, at: $0)) }
        cached = sections
        stamp = now
        return sections
    }

    /// The element at `position` of section `section` of `sections`.
    func element(_ sections: Sections<Key, Element>, section: Int, item: Int) -> Element {
        let members = sections.members[section]
        precondition(item >= 0 && item < members.count, "Index \(item) is out of bounds (must be less than \(members.count)).")
        return source.element(sections.elements, at: members[item])
    }

    func frozen() -> SectioningCore {
        if realm.isFrozen { return self }
        return SectioningCore(source: source.frozen(), keyBlock: keyBlock)
    }

    func thawed() -> SectioningCore? {
        guard realm.isFrozen else { return self }
        return source.thawed().map { SectioningCore(source: $0, keyBlock: keyBlock) }
    }

    /// The same sectioning read through `other` (the realm of a queue or actor).
    func rebound(to other: Realm) -> SectioningCore? {
        if other === realm { return self }
        return source.rebound(to: other).map { SectioningCore(source: $0, keyBlock: keyBlock) }
    }
}
