import Foundation
import ORCore

/// The objects of a class that match a query, in order: what `realm.objects(_:)`,
/// `filter`, `where`, `sorted` and `distinct` return.
///
/// Results are lazy (nothing is read until they are) and live (after a write in the
/// same realm, or when the realm moves to a newer version, they show the new state).
/// Reading an element makes an accessor for that object only.
///
/// ```swift
/// let longTasks = realm.objects(Task.self)
///     .where { $0.progressMinutes >= 60 }
///     .sorted(byKeyPath: "dueDate")
/// ```
public struct Results<Element: RealmCollectionValue>: RandomAccessCollection, CustomStringConvertible {
    package let core: ResultsCore

    init(core: ResultsCore) {
        self.core = core
    }

    /// The realm the results belong to.
    public var realm: Realm? { core.realm }
    /// Whether the realm was invalidated (`Realm.invalidate()`) since the results were
    /// made: then every read of them stops; read them anew from the realm.
    public var isInvalidated: Bool { core.isStale }
    /// Whether the results are frozen (they never change).
    public var isFrozen: Bool { core.realm.isFrozen }

    // MARK: Collection

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    public var count: Int {
        core.requireNotStale()
        return core.count
    }
    public var isEmpty: Bool { count == 0 }

    public subscript(position: Int) -> Element {
        core.requireNotStale()
        let keys = core.keys
        precondition(position >= 0 && position < keys.count, "Index \(position) is out of bounds (must be less than \(keys.count)).")
        return object(forKey: keys[position])
    }

    func object(forKey key: UInt64) -> Element {
        Self.element(core.object(forKey: key))
    }

    /// The element for an accessor of the results' class: the accessor itself, or for
    /// results of a projection class (`realm.objects(PersonProjection.self)`), a
    /// projection of it.
    static func element(_ object: ObjectBase) -> Element {
        // The accessor itself first: the common case costs the one cast it always did.
        if let element = object as? Element { return element }
        if let projection = Element.self as? ProjectionOfObjects.Type { return projection._projecting(object) as! Element }
        preconditionFailure("An object of '\(type(of: object))' is not a \(Element.self).")
    }

    public var first: Element? {
        core.requireNotStale()
        return core.keys.first.map(object(forKey:))
    }
    public var last: Element? {
        core.requireNotStale()
        return core.keys.last.map(object(forKey:))
    }

    /// The objects at the given indexes.
    public func objects(at indexes: IndexSet) -> [Element] { indexes.map { self[$0] } }

    /// Iterates the objects matching when iteration began, making each accessor as it is reached.
    ///
    /// Outside a write transaction, the results of a whole class are read straight off
    /// its table, each object's row as the walk reaches it, without listing the keys
    /// first; should the realm move to a newer version during the loop (`refresh()` in
    /// its body), the rest of the loop shows that version, as the results themselves do.
    public func makeIterator() -> ResultsIterator<Element> {
        core.requireNotStale()
        if let table = core.walkableTable { return ResultsIterator(results: self, walking: table) }
        return ResultsIterator(results: self, keys: core.keys)
    }

    /// The position of an object, or nil (also for an object of another realm file).
    public func index(of object: Element) -> Int? {
        guard let object = (object as? ObjectBase) ?? (object as? ProjectionOfObjects)?._rootObjectBase,
              let realm = object._realm, realm._coordinator === core.realm._coordinator,
              object._table == core.table else { return nil }
        core.requireNotStale()
        return core.keys.firstIndex(of: object._key)
    }

    /// The position of the first object matching a query string.
    public func index(matching predicateFormat: String, _ args: Any...) -> Int? {
        filter(predicateFormat, args).first.flatMap { index(of: $0) }
    }

    /// The position of the first object matching a typed query.
    public func index(matching isIncluded: (Query<Element>) -> Query<Bool>) -> Int? {
        self.where(isIncluded).first.flatMap { index(of: $0) }
    }

    /// The elements, described as the Realm Swift SDK does (`DescriptionWithMaxDepth`).
    public var description: String { _description(maxDepth: DescriptionWithMaxDepth.maxDepth) }

    // MARK: Filtering

    private func adding(_ parsed: ParsedQuery) -> Results<Element> {
        core.requireNotStale()
        var query = core.query
        switch (query.predicate, parsed.predicate) {
        case (.truePredicate, let p): query.predicate = p
        case (let p, .truePredicate): query.predicate = p
        case (let a, let b): query.predicate = .and([a, b])
        }
        query.descriptors += parsed.descriptors
        return Results(core: core.with(query: query))
    }

    /// The objects that also match a Realm Query Language string, with `$0`-style or
    /// `%@` arguments:
    ///
    /// ```swift
    /// realm.objects(Task.self).filter("progressMinutes > $0 AND assignee == $1", 60, "Ali")
    /// ```
    ///
    /// A malformed query, an unknown property or an argument of the wrong type stops the
    /// program with a message naming the offending token (as Realm does); use
    /// `filter(_:arguments:)` to check queries that come from users.
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<Element> {
        filter(predicateFormat, args)
    }

    func filter(_ predicateFormat: String, _ args: [Any]) -> Results<Element> {
        do {
            return try filter(predicateFormat, arguments: args)
        } catch {
            preconditionFailure((error as? RealmError)?.message ?? "\(error)")
        }
    }

    /// The throwing form of `filter(_:_:)`: a malformed query throws a `Realm.Error` with
    /// code `.invalidQuery` and a message naming the offending token and its offset.
    public func filter(_ predicateFormat: String, arguments: [Any]) throws -> Results<Element> {
        let parsed: ParsedQuery
        do {
            parsed = try QueryParser.parse(predicateFormat, arguments: arguments,
                                           rawValue: QueryArgumentBinder.persistedStandIn)
        } catch let error as QueryError {
            throw error.realmError
        }
        let results = adding(parsed)
        try results.core.validate()
        return results
    }

    /// The objects that also match a typed query:
    ///
    /// ```swift
    /// realm.objects(Task.self).where { $0.progressMinutes >= 60 && !$0.completed }
    /// ```
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results<Element> {
        let predicate = isIncluded(Query<Element>()).predicate
        let results = adding(ParsedQuery(predicate: predicate))
        do { try results.core.validate() } catch {
            preconditionFailure((error as? RealmError)?.message ?? "\(error)")
        }
        return results
    }

    // MARK: Sorting and distinct

    /// Sorted by one property (or a path through to-one links).
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<Element> {
        sorted(by: [SortDescriptor(keyPath: keyPath, ascending: ascending)])
    }

    /// Sorted by several keys, the first most significant.
    public func sorted<S: Sequence>(by sortDescriptors: S) -> Results<Element> where S.Iterator.Element == SortDescriptor {
        let keys = sortDescriptors.map { descriptor -> QuerySortKey in
            do {
                return QuerySortKey(try QueryParser.parseKeyPath(descriptor.keyPath), ascending: descriptor.ascending)
            } catch {
                preconditionFailure("Invalid sort key path '\(descriptor.keyPath)': \((error as? QueryError)?.message ?? "\(error)")")
            }
        }
        let results = adding(ParsedQuery(predicate: .truePredicate, descriptors: [.sort(keys)]))
        do { try results.core.validate() } catch {
            preconditionFailure((error as? RealmError)?.message ?? "\(error)")
        }
        return results
    }

    /// Sorted by a typed key path: a property (or a path through to-one links) of a
    /// sortable stored type, an optional one (nil first when ascending), or a
    /// `PersistableEnum` or `CustomPersistable` one, ordered by its persisted values.
    public func sorted<T: _HasPersistedType>(by keyPath: KeyPath<Element, T>, ascending: Bool = true) -> Results<Element>
    where T.PersistedType: SortableType, Element: ObjectBase {
        sorted(byKeyPath: _KeyPathRecorder.names(of: keyPath).joined(separator: "."), ascending: ascending)
    }

    /// Only the first object of each distinct combination of the key paths' values.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Iterator.Element == String {
        let paths = keyPaths.map { keyPath -> QueryKeyPath in
            do { return try QueryParser.parseKeyPath(keyPath) } catch {
                preconditionFailure("Invalid distinct key path '\(keyPath)': \((error as? QueryError)?.message ?? "\(error)")")
            }
        }
        let results = adding(ParsedQuery(predicate: .truePredicate, descriptors: [.distinct(paths)]))
        do { try results.core.validate() } catch {
            preconditionFailure((error as? RealmError)?.message ?? "\(error)")
        }
        return results
    }

    /// Only the first object of each distinct combination of the typed key paths' values.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<Element> where S.Iterator.Element == PartialKeyPath<Element>, Element: ObjectBase {
        distinct(by: keyPaths.map { _KeyPathRecorder.names(of: $0).joined(separator: ".") })
    }

    // MARK: Aggregates

    /// The smallest value of a property among the objects, nil when there are none.
    public func min<T: MinMaxType>(ofProperty property: String) -> T? {
        core.aggregate(property, .min).flatMap { AggregateValue.convert($0, core.realm) }
    }

    /// The largest value of a property among the objects, nil when there are none.
    public func max<T: MinMaxType>(ofProperty property: String) -> T? {
        core.aggregate(property, .max).flatMap { AggregateValue.convert($0, core.realm) }
    }

    /// The sum of a property over the objects (zero when there are none).
    public func sum<T: AddableType>(ofProperty property: String) -> T {
        guard let value = core.aggregate(property, .sum), let result: T = AggregateValue.convert(value, core.realm) else {
            return AggregateValue.zero()
        }
        return result
    }

    /// The mean of a property over the objects, nil when there are none.
    public func average<T: AddableType>(ofProperty property: String) -> T? {
        core.aggregate(property, .avg).flatMap { AggregateValue.convert($0, core.realm) }
    }

    public func min<T: MinMaxType>(of keyPath: KeyPath<Element, T>) -> T? where Element: ObjectBase {
        min(ofProperty: _KeyPathRecorder.names(of: keyPath).joined(separator: "."))
    }
    public func max<T: MinMaxType>(of keyPath: KeyPath<Element, T>) -> T? where Element: ObjectBase {
        max(ofProperty: _KeyPathRecorder.names(of: keyPath).joined(separator: "."))
    }
    public func sum<T: AddableType>(of keyPath: KeyPath<Element, T>) -> T where Element: ObjectBase {
        sum(ofProperty: _KeyPathRecorder.names(of: keyPath).joined(separator: "."))
    }
    public func average<T: AddableType>(of keyPath: KeyPath<Element, T>) -> T? where Element: ObjectBase {
        average(ofProperty: _KeyPathRecorder.names(of: keyPath).joined(separator: "."))
    }

    /// The canonical query string of these results (the RQL the query renders to).
    public var queryDescription: String { QueryRenderer.render(core.query) }
}

/// Iterates `Results`, one accessor at a time.
///
/// `next()` is inlinable so that it is specialized for the element type in the loop's
/// module: all it does there is hand out the accessor ``_ResultsCursor`` made, without
/// generic code per element.
public struct ResultsIterator<Element: RealmCollectionValue>: IteratorProtocol {
    @usableFromInline var cursor: _ResultsCursor
    /// Whether an accessor of the bound class is an `Element` as it is (a reference to
    /// the same object): known after the first checked cast, so that the following
    /// accessors, all of the same class, are handed out without a dynamic cast each.
    @usableFromInline var castIsIdentity = false

    init(results: Results<Element>, keys: [UInt64]) {
        cursor = _ResultsCursor(core: results.core, keys: keys, walking: nil)
    }

    init(results: Results<Element>, walking table: UInt32) {
        cursor = _ResultsCursor(core: results.core, keys: [], walking: table)
    }

    @inlinable
    public mutating func next() -> Element? {
        guard let object = cursor.nextObject() else { return nil }
        if castIsIdentity { return unsafeBitCast(object, to: Element.self) }
        return firstElement(object)
    }

    /// `object` (an accessor of the bound class) as an `Element`, learning whether the
    /// following ones can be handed out as they are.
    @usableFromInline
    mutating func firstElement(_ object: ObjectBase) -> Element {
        let cast = Results<Element>.element(object)
        castIsIdentity = MemoryLayout<Element>.size == MemoryLayout<ObjectBase>.size
            && Element.self is AnyObject.Type && (cast as AnyObject) === object
        return cast
    }
}

/// Which object a ``ResultsIterator`` hands out next, and its accessor: the part of the
/// iteration that does not depend on the element type.
@usableFromInline
struct _ResultsCursor {
    let core: ResultsCore
    let keys: [UInt64]
    var position = 0
    /// When the iterator walks the class's table instead of `keys`: the table, and the
    /// key handed out last (0 before the first).
    var walk: (table: UInt32, after: UInt64)?
    /// The realm's state, for the snapshot each step of a walk reads (`core` holds the
    /// realm, so the state outlives the iterator: no reference counting per step).
    let state: Unmanaged<RealmState>
    /// The results' `epoch`: a loop whose body invalidates the realm stops at the next step.
    let epoch: UInt32
    /// The class binding, looked up once per iteration rather than per element.
    var bound: BoundClass?
    /// The accessor returned last. When the next element is asked for and nothing else
    /// holds it (no strong, weak or unowned reference: the loop body let it go), it is
    /// re-pointed at the next row rather than a new accessor being made — only for
    /// classes whose accessors hold nothing else (`recyclesAccessors`), so no value can
    /// be seen to move from one row to another.
    var recycled: ObjectBase?

    init(core: ResultsCore, keys: [UInt64], walking table: UInt32?) {
        self.core = core
        self.keys = keys
        state = Unmanaged.passUnretained(core.realm.state)
        epoch = core.epoch
        walk = table.map { ($0, 0) }
    }

    /// The accessor of the next object, or nil after the last.
    @usableFromInline
    mutating func nextObject() -> ObjectBase? {
        if state._withUnsafeGuaranteedRef({ $0.invalidations != epoch }) {
            preconditionFailure("Collection is no longer valid: the realm of Results<\(core.className)> was invalidated during the iteration.")
        }
        let key: UInt64
        if let (table, after) = walk {
            var found: UInt64 = 0
            let txn = state._withUnsafeGuaranteedRef { $0.readTxnOnOwnerThread } ?? core.realm.txn
            let status = orc_obj_next(txn, table, after, &found)
            guard status == ORC_OK else {
                if status == ORC_ERR_NOT_FOUND { return nil }
                preconditionFailure("Iterating results of '\(core.className)': \(ORC.lastMessage)")
            }
            walk = (table, found)
            key = found
        } else {
            guard position < keys.count else { return nil }
            key = keys[position]
            position += 1
        }
        // `recycled` is only ever set once the binding is known: nothing else to look up.
        // The checks borrow it unretained (this iterator holds it); only the accessor
        // handed out is retained.
        if isKnownUniquelyReferenced(&recycled),
           Unmanaged.passUnretained(recycled.unsafelyUnwrapped)._withUnsafeGuaranteedRef({ object in
               guard _getUnownedRetainCount(object) == 1, _getWeakRetainCount(object) == 1 else { return false }
               object._key = key
               return true
           }) {
            return recycled.unsafelyUnwrapped
        }
        if bound == nil { bound = core.bound }
        guard let bound else { return core.object(forKey: key) }
        let object = core.realm._accessor(bound, key)
        if bound.info.recyclesAccessors { recycled = object }
        return object
    }
}

extension Results: Equatable {
    public static func == (lhs: Results<Element>, rhs: Results<Element>) -> Bool { lhs.core === rhs.core }
}

/// Converts aggregate results to the caller's type.
enum AggregateValue {
    static func convert<T>(_ value: orc_value, _ realm: Realm) -> T? {
        let any: Any?
        switch value.type {
        case ORC_TYPE_NULL: return nil
        case ORC_TYPE_INT: any = Int(value.integer)
        case ORC_TYPE_FLOAT: any = value.fnum
        case ORC_TYPE_DOUBLE: any = value.dnum
        case ORC_TYPE_DECIMAL: any = Decimal128._orDecode(value, realm)
        case ORC_TYPE_TIMESTAMP: any = Date._orDecode(value, realm)
        default: any = DynamicValues.decode(value, realm, linkTable: 0)
        }
        guard let any else { return nil }
        if let typed = any as? T { return typed }
        if T.self == AnyRealmValue.self { return AnyRealmValue.fromAny(any) as? T }
        if let converted = try? AnyValueConversion.convert(any, to: T.self, nil) { return converted }
        if let wrapped = T.self as? any OptionalTypeProtocol.Type, let inner = wrapped.wrap(any, realm) { return inner as? T }
        // A mean of ints read as an int, or a sum past Int64 read as a double: convert numerically.
        if let d = any as? Double {
            if T.self == Int.self { return Int(exactly: d.rounded(.towardZero)) as? T }
            if T.self == Float.self { return Float(d) as? T }
        }
        return nil
    }

    static func zero<T>() -> T {
        for candidate: Any in [0, Int8(0), Int16(0), Int32(0), Int64(0), Float(0), Double(0), Decimal128(), AnyRealmValue.int(0)] {
            if let zero = candidate as? T { return zero }
        }
        if let optional = T.self as? any OptionalTypeProtocol.Type { return optional.nilValue as! T }
        preconditionFailure("No zero value of type \(T.self).")
    }
}

protocol OptionalTypeProtocol {
    /// `nil` of this optional type. (Not named `none`: a static `none` would shadow the
    /// case `Optional.none` wherever this module's internals are visible.)
    static var nilValue: Any { get }
    static func wrap(_ value: Any, _ realm: Realm) -> Any?
}

extension Optional: OptionalTypeProtocol {
    static var nilValue: Any { nil as Wrapped? as Any }
    static func wrap(_ value: Any, _ realm: Realm) -> Any? {
        if let typed = value as? Wrapped { return Optional(typed) as Any }
        if let converted = try? AnyValueConversion.convert(value, to: Wrapped.self, nil) { return Optional(converted) as Any }
        return nil
    }
}
