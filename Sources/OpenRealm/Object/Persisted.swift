import Foundation

/// Declares a stored property of a model class.
///
/// ```swift
/// class Task: Object {
///     @Persisted(primaryKey: true) var _id: ObjectId
///     @Persisted(indexed: true) var assignee: String?
///     @Persisted var progressMinutes = 0
///     @Persisted var tags: List<String>
///     @Persisted(originProperty: "tasks") var teams: LinkingObjects<Team>
/// }
/// ```
///
/// On an unmanaged object the value lives in the wrapper; once the object is managed,
/// every read and write goes to the realm.
///
/// The accessors are `@inlinable` so that they are specialized for each model's
/// concrete property types in the model's own module: unspecialized, every access
/// looked up the generic metadata of `Persisted<Value>` and applied its key paths at
/// run time, which cost more than the read or write itself.
@propertyWrapper
public struct Persisted<Value: _Persistable> {
    @usableFromInline
    enum Storage {
        /// Unmanaged, never read or written: the declared default is the type's default.
        case unmanagedNoDefault
        case unmanaged(Value)
    }

    /// The index of the property in its class once the object is managed, -1 while it
    /// is unmanaged, and `-2 - index` on an instance recording a typed key path
    /// (``_KeyPathRecorder``), so that a read of a managed property looks at this field
    /// only. It is the first stored field, at offset 0 whatever `Value` is, so that
    /// making an accessor writes one integer per property without generic code.
    @usableFromInline var managedIndex: Int32 = -1
    @usableFromInline var storage: Storage
    @usableFromInline let options: PersistedOptions

    @available(*, unavailable, message: "@Persisted can only be used on a property of an Object, EmbeddedObject or AsymmetricObject subclass")
    public var wrappedValue: Value {
        get { fatalError() }
        set { fatalError() }
    }

    /// A property holding the type's default value (zero, empty, nil, or a new
    /// `ObjectId`/`UUID`/`Date` for those types).
    @inlinable
    public init() {
        storage = .unmanagedNoDefault
        options = []
    }

    /// A property with a default value.
    @inlinable
    public init(wrappedValue value: Value) {
        storage = .unmanaged(value)
        options = []
    }

    @usableFromInline
    init(options: PersistedOptions) {
        storage = .unmanagedNoDefault
        self.options = options
    }

    @inlinable
    public static subscript<EnclosingSelf: ObjectBase>(
        _enclosingInstance observed: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Persisted<Value>>
    ) -> Value {
        // Always inlined into the model's accessor, where the key paths are literals
        // the optimizer turns into direct field addresses; called out of line, every
        // access projected the key paths at run time (a metadata lookup, retains).
        @inline(__always)
        get {
            // Only the index is loaded: a copy of the whole field would copy the
            // unmanaged value's storage too (a retain and release per read).
            let managedIndex = observed[keyPath: storageKeyPath].managedIndex
            if managedIndex >= 0 {
                return Value._orGet(observed, Int(managedIndex))
            }
            if managedIndex < -1, let recorder = observed._recorder {
                return Value._orRecord(recorder, observed, Int(-2 - managedIndex))
            }
            switch observed[keyPath: storageKeyPath].storage {
            case .unmanaged(let value):
                return value
            case .unmanagedNoDefault:
                let value = Value._orDefault()
                observed[keyPath: storageKeyPath].storage = .unmanaged(value)
                return value
            }
        }
        @inline(__always)
        set {
            let index = observed[keyPath: storageKeyPath].managedIndex
            if index >= 0 {
                Value._orSet(observed, Int(index), newValue)
            } else if index == -1 {
                observed[keyPath: storageKeyPath].storage = .unmanaged(newValue)
            }
            // Below -1: an instance recording a key path, whose writes go nowhere.
        }
    }
}

/// What a `@Persisted` declaration says beyond the value type.
@usableFromInline
struct PersistedOptions: OptionSet, Sendable {
    @usableFromInline let rawValue: UInt8
    @inlinable init(rawValue: UInt8) { self.rawValue = rawValue }
    @usableFromInline static let indexed = PersistedOptions(rawValue: 1)
    @usableFromInline static let primaryKey = PersistedOptions(rawValue: 2)
}

extension Persisted where Value: _Indexable {
    /// An indexed property: equality, `IN` and range queries on it use an index.
    @inlinable
    public init(indexed: Bool) {
        self.init(options: indexed ? .indexed : [])
    }

    /// An indexed property with a default value.
    @inlinable
    public init(wrappedValue value: Value, indexed: Bool) {
        storage = .unmanaged(value)
        options = indexed ? .indexed : []
    }
}

extension Persisted where Value: _PrimaryKey {
    /// The primary key of the class: unique among its objects, and how
    /// `object(ofType:forPrimaryKey:)` and updates by `add(_:update:)` find an object.
    @inlinable
    public init(primaryKey: Bool) {
        self.init(options: primaryKey ? .primaryKey : [])
    }

    /// A primary key with a default value.
    @inlinable
    public init(wrappedValue value: Value, primaryKey: Bool) {
        storage = .unmanaged(value)
        options = primaryKey ? .primaryKey : []
    }
}

extension Persisted where Value: _LinkingObjectsProtocol {
    /// The objects of `Value.Element` whose property `originProperty` links to this object.
    public init(originProperty: String) {
        storage = .unmanaged(Value(_originProperty: originProperty))
        options = []
    }
}

extension Persisted: CustomStringConvertible {
    public var description: String {
        if managedIndex >= 0 { return "Persisted(managed property #\(managedIndex))" }
        switch storage {
        case .unmanaged(let value): return "Persisted(\(value))"
        case .unmanagedNoDefault: return "Persisted(default)"
        }
    }
}

/// Type-erased access to a `Persisted` field of an object at a byte offset: how the
/// schema reader, `add`, `Object(value:)` and `object["name"]` reach properties whose
/// static type they do not know. The offset comes from the runtime's field list.
protocol PersistedField {
    static var valueType: any _Persistable.Type { get }
    static func options(_ object: ObjectBase, _ offset: Int) -> PersistedOptions
    static func declaredValue(_ object: ObjectBase, _ offset: Int) -> Any?
    /// Where `managedIndex` sits inside the wrapper (0 in practice; checked, not assumed).
    static var managedIndexOffset: Int { get }
    static func unmanagedValue(_ object: ObjectBase, _ offset: Int) -> any _Persistable
    static func setUnmanaged(_ object: ObjectBase, _ offset: Int, _ value: Any) -> Bool
    /// Lets go of the value an object held while unmanaged, once it is managed and reads
    /// the realm: links to other objects held there would keep a cycle of them alive.
    static func releaseUnmanaged(_ object: ObjectBase, _ offset: Int)
}

extension Persisted: PersistedField {
    static var valueType: any _Persistable.Type { Value.self }

    @inline(__always)
    private static func pointer(_ object: ObjectBase, _ offset: Int) -> UnsafeMutablePointer<Persisted<Value>> {
        (Unmanaged.passUnretained(object).toOpaque() + offset).assumingMemoryBound(to: Persisted<Value>.self)
    }

    static func options(_ object: ObjectBase, _ offset: Int) -> PersistedOptions {
        pointer(object, offset).pointee.options
    }

    static func declaredValue(_ object: ObjectBase, _ offset: Int) -> Any? {
        if case .unmanaged(let value) = pointer(object, offset).pointee.storage { return value }
        return nil
    }

    static var managedIndexOffset: Int { MemoryLayout<Persisted<Value>>.offset(of: \Persisted<Value>.managedIndex)! }

    static func unmanagedValue(_ object: ObjectBase, _ offset: Int) -> any _Persistable {
        let field = pointer(object, offset)
        switch field.pointee.storage {
        case .unmanaged(let value): return value
        case .unmanagedNoDefault:
            let value = Value._orDefault()
            field.pointee.storage = .unmanaged(value)
            return value
        }
    }

    static func setUnmanaged(_ object: ObjectBase, _ offset: Int, _ value: Any) -> Bool {
        guard let typed = value as? Value else { return false }
        pointer(object, offset).pointee.storage = .unmanaged(typed)
        return true
    }

    static func releaseUnmanaged(_ object: ObjectBase, _ offset: Int) {
        pointer(object, offset).pointee.storage = .unmanagedNoDefault
    }
}
