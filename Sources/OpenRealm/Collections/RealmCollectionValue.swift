import Foundation
import ORCore

/// A type that can be an element of `List`, `MutableSet`, `Map` and `Results`: the
/// stored scalar types, their optionals, objects, enums and `AnyRealmValue`.
public protocol RealmCollectionValue: Hashable, _PersistableValue {}

extension Bool: RealmCollectionValue {}
extension Int: RealmCollectionValue {}
extension Int8: RealmCollectionValue {}
extension Int16: RealmCollectionValue {}
extension Int32: RealmCollectionValue {}
extension Int64: RealmCollectionValue {}
extension Float: RealmCollectionValue {}
extension Double: RealmCollectionValue {}
extension String: RealmCollectionValue {}
extension Data: RealmCollectionValue {}
extension Date: RealmCollectionValue {}
extension Decimal128: RealmCollectionValue {}
extension ObjectId: RealmCollectionValue {}
extension UUID: RealmCollectionValue {}
extension AnyRealmValue: RealmCollectionValue {}
extension ObjectBase: RealmCollectionValue {}
extension Optional: RealmCollectionValue where Wrapped: RealmCollectionValue & _OptionalPersistable {}

/// What a type that can be a persisted property is, in the SDK's name for it, which
/// generic code over Realm types constrains to.
public typealias _RealmSchemaDiscoverable = _PersistableValue

/// The element types that can also be held optional in a `List`, `MutableSet` or `Map`
/// (`List<T?>`), in the SDK's name for them.
public typealias _RealmCollectionValueInsideOptional = RealmCollectionValue & _OptionalPersistable

/// Types `Map` keys can have.
public protocol _MapKey: Hashable, Comparable {
    init(_orKey: String)
    var _orKey: String { get }
}

extension String: _MapKey {
    public init(_orKey: String) { self = _orKey }
    public var _orKey: String { self }
}

/// Where a managed collection lives: a property of a managed object.
struct CollectionLocation {
    let realm: Realm
    let table: UInt32
    let key: UInt64
    let column: UInt16
    let className: String
    let propertyName: String
    /// The owner's class binding and the collection's property index in it. The owner
    /// itself is not held: an object keeps its collections (``ObjectBase/_managedCollection``),
    /// which would otherwise keep it.
    let parentBound: BoundClass
    let propertyIndex: Int
    /// The owner's `_epoch`: the collection is invalidated with its owner.
    let epoch: UInt32

    init(_ object: ObjectBase, _ index: Int) {
        let bound = object._bound!
        realm = object._realm!
        table = bound.table
        key = object._key
        column = bound.columns[index]
        className = bound.className
        propertyName = bound.info.properties[index].name
        parentBound = bound
        propertyIndex = index
        epoch = object._epoch
    }

    /// An accessor of the owning object.
    var parent: ObjectBase { realm._accessor(parentBound, key) }

    /// The transaction the collection reads; stops when the realm was invalidated since
    /// the owner was read.
    var txn: OpaquePointer {
        requireNotStale()
        return realm.txn
    }

    var name: String { "\(className).\(propertyName)" }

    /// Whether the realm was invalidated since the owner was read.
    var isStale: Bool { realm.state.invalidations != epoch }

    /// Whether the collection can no longer be read: its owner was deleted, or the realm
    /// invalidated since the owner was read.
    var isInvalidated: Bool { isStale || !orc_obj_exists(realm.txn, table, key) }

    func requireNotStale() {
        if isStale {
            preconditionFailure("Object has been deleted or invalidated. ('\(name)' was read before its realm was invalidated: read it anew.)")
        }
    }

    func size() -> Int {
        var size = 0
        let status = orc_coll_size(txn, table, key, column, &size)
        if status != ORC_OK {
            if !orc_obj_exists(realm.txn, table, key) {
                preconditionFailure("The object owning '\(name)' has been deleted or invalidated.")
            }
            preconditionFailure("Reading '\(name)': \(ORC.lastMessage)")
        }
        return size
    }

    func get(_ i: Int) -> orc_value {
        var value = orc_value()
        let status = orc_coll_get(txn, table, key, column, i, &value)
        if status != ORC_OK {
            if status == ORC_ERR_OUT_OF_RANGE { preconditionFailure("Index \(i) is out of bounds (must be less than \(size())) in '\(name)'.") }
            preconditionFailure("Reading '\(name)'[\(i)]: \(ORC.lastMessage)")
        }
        return value
    }

    /// Runs a write on the collection; a failure fails the realm's write transaction.
    func write(_ what: String, _ body: (_ORWriteContext, OpaquePointer) throws -> Void) {
        requireNotStale()
        realm.requireWrite("modify '\(name)'")
        let context = _ORWriteContext(realm: realm, policy: .error, arena: realm.arena)
        do { try body(context, realm.writeTxn!) } catch { realm._failWrite(error) }
    }

    func check(_ status: Int32, _ what: @autoclosure () -> String) throws {
        if status != ORC_OK { throw ORC.error(status, "\(what()) '\(name)'") }
    }
}

extension _PersistableValue {
    /// Whether values of this type are embedded objects, optional or not (stored as
    /// children, not links).
    static var _orIsEmbedded: Bool { _orDescriptor.target.map { $0 is EmbeddedObject.Type } ?? false }
}

/// A managed collection that may hold embedded objects: `_detachedCopy` copies them.
protocol EmbeddedCollection {
    /// Unmanaged deep copies of the elements (a dictionary for maps), or nil when the
    /// elements are not embedded objects.
    func _orDetachedElements() -> Any?
}
