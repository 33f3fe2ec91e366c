import Foundation

/// What `SectionedResults` and `ResultsSection` have in common: live collections (of
/// sections, or of one section's elements) that can be frozen, thawed and observed.
public protocol RealmSectionedResult: RandomAccessCollection, Equatable {
    /// The realm the elements belong to.
    var realm: Realm? { get }
    /// Whether the collection can no longer be read (`invalidate()` was called on its
    /// realm, or the collection it was made from was deleted).
    var isInvalidated: Bool { get }
    /// The number of sections, or of elements in a section.
    var count: Int { get }
    /// Whether the collection is frozen (it never changes and may be read on any thread).
    var isFrozen: Bool { get }
    /// A frozen snapshot: the same sections and elements, which never change.
    func freeze() -> Self
    /// The live collection of a frozen one (itself when live); nil when the collection
    /// it was made from no longer exists.
    func thaw() -> Self?
    /// Registers a block called with the collection first, then after each write that
    /// changes its sections or the elements in them; see the extension's
    /// `observe(keyPaths:on:_:)`.
    func observe(keyPaths: [String]?, on queue: DispatchQueue?,
                 _ block: @escaping (SectionedResultsChange<Self>) -> Void) -> NotificationToken
}

extension RealmSectionedResult {
    /// Registers a block called with the collection first (`.initial`), then after each
    /// write that changes which sections exist or the elements in them (`.update`).
    ///
    /// ```swift
    /// let byLetter = realm.objects(Contact.self).sectioned(by: \.firstLetter, ascending: true)
    /// let token = byLetter.observe { change in
    ///     switch change {
    ///     case .initial(let sections):
    ///         print(sections.allKeys)
    ///     case .update(let sections, let deletions, let insertions, let modifications,
    ///                  let sectionsToInsert, let sectionsToDelete):
    ///         // Remove `sectionsToDelete` and the rows at `deletions` (old index paths),
    ///         // then insert `sectionsToInsert` and the rows at `insertions` (new index
    ///         // paths); `modifications` are old index paths of rows that changed in place.
    ///         print(sections.count, deletions, insertions, modifications, sectionsToInsert, sectionsToDelete)
    ///     }
    /// }
    /// ```
    ///
    /// The rows of a deleted section are not listed in `deletions`; the rows of an
    /// inserted section are listed in `insertions`. A modified element whose index path
    /// changed (it moved within its section, or to another) is reported as deleted
    /// and inserted. Without `keyPaths`, an element counts as modified when one of its
    /// properties changed or an object it links to changed; with `keyPaths`
    /// (`["name"]`), only changes along those paths count. Changes that move an
    /// element or change its section are always reported.
    ///
    /// An observed `ResultsSection` reports only the changes to its own section (by
    /// key), with index paths into the whole sectioned results.
    ///
    /// - Parameters:
    ///   - keyPaths: the property paths whose changes count as modifications.
    ///   - queue: a serial queue to deliver on (with a realm confined to it); nil to
    ///     deliver on the realm's own thread, as collection notifications are.
    ///   - block: called with each change.
    /// - Returns: a token; delivery stops when it is invalidated or released.
    ///
    /// Cannot be called on a frozen collection, nor inside a write transaction.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (SectionedResultsChange<Self>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths, on: queue, block)
    }
}

extension RealmSectionedResult where Element: RealmSectionedResult, Element.Element: ObjectBase {
    /// Registers a block for changes, restricted to typed key paths (`[\Contact.name]`).
    public func observe(keyPaths: [PartialKeyPath<Element.Element>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (SectionedResultsChange<Self>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.map { _KeyPathRecorder.names(of: $0).joined(separator: ".") }, on: queue, block)
    }
}

extension RealmSectionedResult where Element: ObjectBase {
    /// Registers a block for changes to this section, restricted to typed key paths.
    public func observe(keyPaths: [PartialKeyPath<Element>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (SectionedResultsChange<Self>) -> Void) -> NotificationToken {
        observe(keyPaths: keyPaths.map { _KeyPathRecorder.names(of: $0).joined(separator: ".") }, on: queue, block)
    }
}

/// A collection's elements sorted and grouped into sections by a key: what
/// `sectioned(by:ascending:)`, `sectioned(by:sortDescriptors:)` and
/// `sectioned(sortDescriptors:_:)` return.
///
/// ```swift
/// let byLetter = realm.objects(Contact.self).sectioned(by: \.firstLetter, ascending: true)
/// for section in byLetter {
///     print(section.key, section.map(\.name))
/// }
/// let first = byLetter[IndexPath(item: 0, section: 0)]
/// ```
///
/// Sectioned results are live: after a write (or when the realm moves to a newer
/// version) they show the new sections. Sections come in the sorted order of their
/// first elements; every element whose key is equal is in the same section.
public struct SectionedResults<Key: _Persistable & Hashable, SectionElement: RealmCollectionValue>: RealmSectionedResult {
    public typealias Element = ResultsSection<Key, SectionElement>

    let core: SectioningCore<Key, SectionElement>

    init(core: SectioningCore<Key, SectionElement>) {
        self.core = core
    }

    public var realm: Realm? { core.realm }
    public var isInvalidated: Bool { core.source.isInvalidated }
    public var isFrozen: Bool { core.realm.isFrozen }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    public var count: Int { core.sections.keys.count }

    /// The keys of the sections, in order.
    public var allKeys: [Key] { core.sections.keys }

    /// The section at `index`.
    public subscript(_ index: Int) -> ResultsSection<Key, SectionElement> {
        let keys = core.sections.keys
        precondition(index >= 0 && index < keys.count, "Index \(index) is out of bounds (must be less than \(keys.count)).")
        return ResultsSection(core: core, key: keys[index])
    }

    /// The element at `indexPath.item` of section `indexPath.section`.
    public subscript(_ indexPath: IndexPath) -> SectionElement {
        let sections = core.sections
        precondition(indexPath.section >= 0 && indexPath.section < sections.keys.count,
                     "Section \(indexPath.section) is out of bounds (must be less than \(sections.keys.count)).")
        return core.element(sections, section: indexPath.section, item: indexPath.item)
    }

    /// Iterates the sections there were when iteration began.
    public func makeIterator() -> SectionedResultsIterator<Key, SectionElement> {
        SectionedResultsIterator(core: core, keys: core.sections.keys)
    }

    public func freeze() -> SectionedResults { SectionedResults(core: core.frozen()) }
    public func thaw() -> SectionedResults? { core.thawed().map(SectionedResults.init) }

    public func observe(keyPaths: [String]?, on queue: DispatchQueue?,
                        _ block: @escaping (SectionedResultsChange<SectionedResults>) -> Void) -> NotificationToken {
        SectionedObservation.register(core, keyPaths: keyPaths, section: nil, queue: queue, actor: nil) { core, changes in
            let sections = SectionedResults(core: core)
            block(changes.map { .changed(sections, $0) } ?? .initial(sections))
        }
    }

    /// Registers a block called on `actor` with sectioned results confined to it.
    @preconcurrency
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, SectionedResultsChange<SectionedResults>) -> Void) async -> NotificationToken {
        let deliver = Observation.onActor(actor, block)
        return SectionedObservation.register(core, keyPaths: keyPaths, section: nil, queue: nil, actor: actor) { core, changes in
            let sections = SectionedResults(core: core)
            deliver(changes.map { .changed(sections, $0) } ?? .initial(sections))
        }
    }

    /// The same sectioned results (made by the same call), not equal sections.
    public static func == (lhs: SectionedResults, rhs: SectionedResults) -> Bool { lhs.core === rhs.core }
}

/// One section of `SectionedResults`: its key and its elements, in order.
///
/// A section is its key's section of the sectioned results it came from, and is live
/// with them: after a write it holds the elements that now have its key (none when
/// the key no longer has a section).
public struct ResultsSection<Key: _Persistable & Hashable, T: RealmCollectionValue>: RealmSectionedResult, Identifiable {
    public typealias Element = T

    let core: SectioningCore<Key, T>
    /// The section's key.
    public let key: Key

    init(core: SectioningCore<Key, T>, key: Key) {
        self.core = core
        self.key = key
    }

    /// The section's key, as its identity (`Identifiable`).
    public var id: Key { key }

    public var realm: Realm? { core.realm }
    public var isInvalidated: Bool { core.source.isInvalidated }
    public var isFrozen: Bool { core.realm.isFrozen }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    public var count: Int {
        let sections = core.sections
        return sections.index[key].map { sections.members[$0].count } ?? 0
    }

    /// The element at `index`.
    public subscript(_ index: Int) -> T {
        let sections = core.sections
        guard let section = sections.index[key] else {
            preconditionFailure("Index \(index) is out of bounds: the section '\(key)' is empty.")
        }
        return core.element(sections, section: section, item: index)
    }

    /// Iterates the elements the section held when iteration began.
    public func makeIterator() -> SectionIterator<T> {
        let sections = core.sections
        let core = self.core
        guard let section = sections.index[key] else { return SectionIterator { nil } }
        var item = 0
        let count = sections.members[section].count
        return SectionIterator {
            guard item < count else { return nil }
            defer { item += 1 }
            return core.element(sections, section: section, item: item)
        }
    }

    public func freeze() -> ResultsSection { ResultsSection(core: core.frozen(), key: key) }
    public func thaw() -> ResultsSection? { core.thawed().map { ResultsSection(core: $0, key: key) } }

    public func observe(keyPaths: [String]?, on queue: DispatchQueue?,
                        _ block: @escaping (SectionedResultsChange<ResultsSection>) -> Void) -> NotificationToken {
        let key = self.key
        return SectionedObservation.register(core, keyPaths: keyPaths, section: key, queue: queue, actor: nil) { core, changes in
            let section = ResultsSection(core: core, key: key)
            block(changes.map { .changed(section, $0) } ?? .initial(section))
        }
    }

    /// Registers a block called on `actor` with a section confined to it.
    @preconcurrency
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, SectionedResultsChange<ResultsSection>) -> Void) async -> NotificationToken {
        let key = self.key
        let deliver = Observation.onActor(actor, block)
        return SectionedObservation.register(core, keyPaths: keyPaths, section: key, queue: nil, actor: actor) { core, changes in
            let section = ResultsSection(core: core, key: key)
            deliver(changes.map { .changed(section, $0) } ?? .initial(section))
        }
    }

    /// The same section (key) of the same sectioned results.
    public static func == (lhs: ResultsSection, rhs: ResultsSection) -> Bool { lhs.core === rhs.core && lhs.key == rhs.key }
}

/// Iterates the sections of `SectionedResults`.
public struct SectionedResultsIterator<Key: _Persistable & Hashable, Element: RealmCollectionValue>: IteratorProtocol {
    private let core: SectioningCore<Key, Element>
    private let keys: [Key]
    private var position = 0

    init(core: SectioningCore<Key, Element>, keys: [Key]) {
        self.core = core
        self.keys = keys
    }

    public mutating func next() -> ResultsSection<Key, Element>? {
        guard position < keys.count else { return nil }
        defer { position += 1 }
        return ResultsSection(core: core, key: keys[position])
    }
}

/// Iterates the elements of a `ResultsSection`.
public struct SectionIterator<Element: RealmCollectionValue>: IteratorProtocol {
    private let nextElement: () -> Element?

    init(_ next: @escaping () -> Element?) {
        nextElement = next
    }

    public mutating func next() -> Element? { nextElement() }
}

/// What an observer of `SectionedResults` or a `ResultsSection` is called with.
public enum SectionedResultsChange<Collection> {
    /// The first evaluation, delivered once after `observe`.
    case initial(Collection)
    /// A write changed the sections or their elements. `deletions` and
    /// `modifications` are index paths in the previous version, `insertions` in the
    /// new one; `sectionsToDelete` are the old positions of sections that are gone,
    /// `sectionsToInsert` the new positions of sections that are new. The arrays are
    /// sorted ascending.
    case update(Collection, deletions: [IndexPath], insertions: [IndexPath], modifications: [IndexPath],
                sectionsToInsert: IndexSet, sectionsToDelete: IndexSet)

    static func changed(_ collection: Collection, _ changes: SectionedChanges) -> SectionedResultsChange {
        .update(collection, deletions: changes.deletions, insertions: changes.insertions, modifications: changes.modifications,
                sectionsToInsert: changes.sectionsToInsert, sectionsToDelete: changes.sectionsToDelete)
    }
}
