import Foundation
import ORCore

/// The root of every model class: `Object`, `EmbeddedObject` and `AsymmetricObject`.
///
/// An instance is *unmanaged* (its `@Persisted` values live in the instance) until it is
/// added to a realm, or *managed* (every property read and write goes straight to the
/// realm's storage). Managed instances are confined to the thread of their realm.
open class ObjectBase: CustomStringConvertible {
    /// The realm managing this object, nil while unmanaged.
    final var _realm: Realm?
    /// The class binding (table and columns) in `_realm`; set with `_realm`.
    final var _bound: BoundClass?
    /// The object key in its table; meaningful while managed.
    final var _key: UInt64 = 0
    /// What a property read needs, copied from `_realm` and `_bound` when the object is
    /// made an accessor (`Realm._manage`, the only place those two are set): the table,
    /// the binding's column buffer, and the realm and its state unretained (the object
    /// holds both through `_realm`). Reads load them with no reference counting.
    final var _readTable: UInt32 = 0
    final var _readColumns: UnsafePointer<UInt16>?
    final var _readRealm: Unmanaged<Realm>?
    final var _readState: Unmanaged<RealmState>?
    /// The realm state's `invalidations` when the object was made an accessor: once
    /// `invalidate()` moved it on, the accessor is invalidated for good.
    final var _epoch: UInt32 = 0
    /// Set while the instance only records which properties are read (typed key paths).
    @usableFromInline final var _recorder: _KeyPathRecorder?
    /// Values set by name (`object["name"] = ...`, `Object(value:)`) on an unmanaged object.
    final var _unmanagedValues: [Int: Any]?

    public required init() {}

    /// Creates an unmanaged object from a dictionary of property values, an array of values
    /// in property order, or another object. Nested dictionaries and arrays create linked
    /// and embedded objects. A value that does not fit stops with a message naming it.
    public convenience init(value: Any) {
        self.init()
        do {
            try _setValues(from: value, policy: .error, realm: nil)
        } catch {
            preconditionFailure(error.localizedDescription)
        }
    }

    /// The realm managing this object, or nil for an unmanaged object.
    public var realm: Realm? { _realm }

    /// Whether the object was deleted, or its realm invalidated (`Realm.invalidate()`),
    /// since it was read. An invalidated object stays so: read it anew from the realm.
    public var isInvalidated: Bool {
        guard let realm = _realm else { return false }
        if _isStale { return true }
        guard let table = _table else { return false }
        return !orc_obj_exists(realm.txn, table, _key)
    }

    /// Whether the object's realm was invalidated since the object was read.
    final var _isStale: Bool {
        guard let realm = _realm else { return false }
        return realm.state.invalidations != _epoch
    }

    /// Stops with the Realm Swift SDK's message when the object's realm was invalidated
    /// since it was read (its row may still exist, but this accessor no longer reads it).
    final func _requireNotStale() {
        if _isStale {
            preconditionFailure("Object has been deleted or invalidated. (This '\(_typeInfo.className)' was read before its realm was invalidated: read it anew.)")
        }
    }

    /// Whether the object belongs to a frozen realm.
    public var isFrozen: Bool { _realm?.isFrozen ?? false }

    /// The schema of this object's class.
    public var objectSchema: ObjectSchema {
        if let dynamic = self as? DynamicObject, let name = dynamic._dynamicEntry?.name, let schema = _realm?.schema[name] {
            return schema
        }
        return Self._typeInfo.objectSchema
    }

    /// The class name stored in the realm: `_realmObjectName()` when a class overrides
    /// it, else the Swift class name without its module.
    open class func className() -> String {
        _realmObjectName() ?? String(describing: self)
    }

    /// Override to store the class under another name than its Swift name (for example
    /// to keep a stored name after renaming the Swift class).
    open class func _realmObjectName() -> String? { nil }

    /// Override to store properties under other names than their Swift names: a
    /// dictionary from the Swift property name to the name stored in the file (and
    /// synced), for the properties to rename only. The Swift name is what everything
    /// else uses: queries, sorting, key-value coding, key paths and notifications.
    ///
    /// ```swift
    /// class Person: Object {
    ///     @Persisted var firstName: String
    ///     override class func propertiesMapping() -> [String: String] { ["firstName": "first_name"] }
    /// }
    /// realm.objects(Person.self).where { $0.firstName == "Ann" }   // stored as first_name
    /// ```
    ///
    /// A migration block sees the file's stored names (`oldObject!["first_name"]`),
    /// and `renameProperty(onType:from:to:)` takes stored names.
    open class func propertiesMapping() -> [String: String] { [:] }

    /// The name of the class's primary key property (declared with
    /// `@Persisted(primaryKey: true)`), or nil when it has none.
    open class func primaryKey() -> String? { _typeInfo.primaryKey?.name }

    /// The names of the properties declared with `@Persisted(indexed: true)`.
    open class func indexedProperties() -> [String] {
        _typeInfo.properties.filter { $0.isIndexed && !$0.isPrimaryKey }.map(\.name)
    }

    /// Properties that are not persisted. Only `@Persisted` properties are stored, so
    /// every other property is ignored already; the list is empty.
    open class func ignoredProperties() -> [String] { [] }

    /// The schema of the class as its declarations make it (the same value as an
    /// instance's `objectSchema` and the realm schema's entry for the class), or nil for
    /// the roots `Object`, `EmbeddedObject`, `AsymmetricObject` and for `DynamicObject`,
    /// which declare no model of their own.
    open class func sharedSchema() -> ObjectSchema? {
        if self == ObjectBase.self || self == Object.self || self == EmbeddedObject.self
            || self == AsymmetricObject.self || self == DynamicObject.self {
            return nil
        }
        return _typeInfo.objectSchema
    }

    /// The class's Swift metadata (properties, schema), computed once per class.
    static var _typeInfo: ObjectTypeInfo { ObjectTypeInfo.of(self) }
    final var _typeInfo: ObjectTypeInfo { ObjectTypeInfo.of(type(of: self)) }

    /// The object's class and persisted properties, nested objects and collections
    /// described five levels deep as the Realm Swift SDK does (so a cycle of objects
    /// describes in finite text); `[invalid object]` once deleted or invalidated.
    open var description: String {
        isInvalidated ? "[invalid object]" : _description(maxDepth: DescriptionWithMaxDepth.maxDepth)
    }

    // MARK: Property access by name

    /// Reads or writes a property by name: `task["progressMinutes"] = 30`. An unknown name stops
    /// with a precondition message; a value of the wrong type stops too outside a write and
    /// fails the write inside one.
    open subscript(key: String) -> Any? {
        get {
            guard let index = _typeInfo.index(ofProperty: key) else {
                preconditionFailure("Invalid property name '\(key)' for class '\(_typeInfo.className)'.")
            }
            return _typeInfo.properties[index].field.getAny(self, index)
        }
        set {
            guard let index = _typeInfo.index(ofProperty: key) else {
                preconditionFailure("Invalid property name '\(key)' for class '\(_typeInfo.className)'.")
            }
            do {
                try _typeInfo.properties[index].field.setAny(self, index, newValue, policy: .error)
            } catch {
                if let realm = _realm, realm.isInWriteTransaction { realm._failWrite(error) } else {
                    preconditionFailure(error.localizedDescription)
                }
            }
        }
    }

    /// Whether two instances are the same stored object (managed), or the same instance.
    public func isSameObject(as object: ObjectBase?) -> Bool {
        guard let object else { return false }
        if self === object { return true }
        guard let a = _table, let b = object._table, let ra = _realm, let rb = object._realm else { return false }
        return _key == object._key && a == b && ra._coordinator === rb._coordinator
    }
}

extension ObjectBase: Equatable, Hashable {
    /// Managed objects are equal when they are the same stored object; unmanaged ones
    /// only to themselves.
    public static func == (lhs: ObjectBase, rhs: ObjectBase) -> Bool { lhs.isSameObject(as: rhs) }

    public func hash(into hasher: inout Hasher) {
        if let table = _table, _realm != nil {
            hasher.combine(table)
            hasher.combine(_key)
        } else {
            hasher.combine(ObjectIdentifier(self))
        }
    }
}

/// A top-level model class. Subclass it and declare `@Persisted` properties:
///
/// ```swift
/// class Task: Object {
///     @Persisted(primaryKey: true) var _id: ObjectId
///     @Persisted var taskName: String
///     @Persisted var progressMinutes: Int
/// }
/// ```
open class Object: ObjectBase {
    public required init() { super.init() }

}

/// An object that exists only as the value of one parent's property and is deleted with it.
open class EmbeddedObject: ObjectBase {
    public required init() { super.init() }

}

/// An object that can only be created (and, in sync, only uploaded): it cannot be read
/// back, queried or subscribed to.
open class AsymmetricObject: ObjectBase {
    public required init() { super.init() }

}
