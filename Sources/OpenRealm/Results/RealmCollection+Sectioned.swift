import Foundation

extension RealmCollection where Element: RealmCollectionValue {
    /// The collection sorted by `sortDescriptors` and grouped into sections by the key
    /// `keyBlock` gives each element.
    ///
    /// ```swift
    /// let byLetter = realm.objects(Contact.self)
    ///     .sectioned(sortDescriptors: [SortDescriptor(keyPath: "name")]) { String($0.name.prefix(1)) }
    /// ```
    ///
    /// The primary sort descriptor should decide the key (equal keys next to each
    /// other); elements of equal keys are in one section wherever they sort. For a
    /// collection of values (`List<String>`, `MutableSet<Int>`), the only key path is
    /// `"self"`: the values sorted by themselves. The collection must be managed. The
    /// block runs on every element each time the sections are made again (after a
    /// change), on the thread that reads them.
    public func sectioned<Key: _Persistable & Hashable>(sortDescriptors: [SortDescriptor],
                                                        _ keyBlock: @escaping ((Element) -> Key)) -> SectionedResults<Key, Element> {
        precondition(!sortDescriptors.isEmpty, "There must be at least one SortDescriptor when using SectionedResults.")
        return SectionedResults(core: SectioningCore(source: sectionSource(sortDescriptors), keyBlock: keyBlock))
    }

    /// The collection sorted by its values (`"self"`) and grouped into sections by the
    /// key `block` gives each element:
    ///
    /// ```swift
    /// let byLength = person.nicknames.sectioned(by: { $0.count }, ascending: true)
    /// ```
    public func sectioned<Key: _Persistable & Hashable>(by block: @escaping ((Element) -> Key),
                                                        ascending: Bool = true) -> SectionedResults<Key, Element> {
        sectioned(sortDescriptors: [SortDescriptor(keyPath: "self", ascending: ascending)], block)
    }

    /// Where the sorted elements come from: sorted `Results` for objects, the sorted
    /// values of a list or set.
    private func sectionSource(_ sortDescriptors: [SortDescriptor]) -> SectionSource<Element> {
        if Element.self is ObjectBase.Type {
            return ObjectSectionSource(SectionedSourceResults.results(of: self).sorted(by: sortDescriptors))
        }
        for descriptor in sortDescriptors where descriptor.keyPath != "self" {
            preconditionFailure("Invalid sort key path '\(descriptor.keyPath)': a collection of \(Element.self) sorts only by \"self\".")
        }
        guard let location = SectionedSourceResults.location(of: self) else {
            preconditionFailure("Sectioning needs a managed collection: add the object owning the collection to a realm first.")
        }
        return ValueSectionSource(location, ascending: sortDescriptors[0].ascending)
    }
}

extension RealmCollection where Element: ObjectBase {
    /// The collection sorted by a property and grouped into one section per value of
    /// the key path:
    ///
    /// ```swift
    /// extension Contact {
    ///     var firstLetter: String { String(name.prefix(1)) }
    /// }
    /// let byLetter = realm.objects(Contact.self).sectioned(by: \.firstLetter, ascending: true)
    /// ```
    ///
    /// The sort is by the stored property the key path reads (`name` above).
    public func sectioned<Key: _Persistable & Hashable>(by keyPath: KeyPath<Element, Key>,
                                                        ascending: Bool = true) -> SectionedResults<Key, Element> {
        sectioned(sortDescriptors: [SortDescriptor(keyPath: Self.sortName(keyPath), ascending: ascending)]) { $0[keyPath: keyPath] }
    }

    /// The collection sorted by `sortDescriptors` and grouped into one section per value
    /// of the key path, which must be what the first sort descriptor sorts by.
    public func sectioned<Key: _Persistable & Hashable>(by keyPath: KeyPath<Element, Key>,
                                                        sortDescriptors: [SortDescriptor]) -> SectionedResults<Key, Element> {
        guard let primary = sortDescriptors.first else {
            preconditionFailure("Can not section Results with empty sortDescriptor parameter.")
        }
        let name = Self.sortName(keyPath)
        precondition(name == primary.keyPath,
                     "The section key path must match the primary sort descriptor: '\(name)' is not '\(primary.keyPath)'.")
        return sectioned(sortDescriptors: sortDescriptors) { $0[keyPath: keyPath] }
    }

    /// The collection sorted by `sortDescriptors` and grouped into sections by the key
    /// `block` gives each object.
    public func sectioned<Key: _Persistable & Hashable>(by block: @escaping ((Element) -> Key),
                                                        sortDescriptors: [SortDescriptor]) -> SectionedResults<Key, Element> {
        sectioned(sortDescriptors: sortDescriptors, block)
    }

    private static func sortName<Key>(_ keyPath: KeyPath<Element, Key>) -> String {
        _KeyPathRecorder.names(of: keyPath).joined(separator: ".")
    }
}

/// Finds what a generic realm collection is, for its section source.
enum SectionedSourceResults {
    /// The objects of a collection of objects as `Results`.
    static func results<C: RealmCollection>(of collection: C) -> Results<C.Element> where C.Element: RealmCollectionValue {
        if let results = collection as? Results<C.Element> { return results }
        if let erased = collection as? AnyRealmCollection<C.Element> { return erased.results() }
        if let queries = collection as? any _ObjectCollectionQueries { return open(queries) as! Results<C.Element> }
        preconditionFailure("Cannot section \(type(of: collection)): not a collection of objects.")
    }

    private static func open<Q: _ObjectCollectionQueries>(_ queries: Q) -> Any { queries._results() }

    /// Where a managed list or set of values lives; nil for anything else.
    static func location<C: RealmCollection>(of collection: C) -> CollectionLocation? where C.Element: RealmCollectionValue {
        if let erased = collection as? AnyRealmCollection<C.Element> { return location(of: erased.base) }
        if let list = collection as? List<C.Element> { return list.location }
        if let set = collection as? MutableSet<C.Element> { return set.location }
        return nil
    }
}
