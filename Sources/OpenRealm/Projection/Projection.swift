import Foundation
import ORCore

/// A projection of any kind, as generic code names it: a class with a root object it
/// shows, made from that object.
public protocol ProjectionObservable: AnyObject, ThreadConfined {
    /// The class of the object the projection shows.
    associatedtype Root: ObjectBase
    /// The object the projection shows.
    var rootObject: Root { get }
    /// A projection of `object`.
    init(projecting object: Root)
}

/// A view of an object class shaped for one use: a subclass declares `@Projected`
/// properties, each reading a key path of the root object, and is fetched, queried,
/// sorted and observed as the root class is.
///
/// ```swift
/// class Person: Object {
///     @Persisted var firstName = ""
///     @Persisted var lastName = ""
///     @Persisted var address: Address?
///     @Persisted var friends: List<Person>
/// }
///
/// class PersonProjection: Projection<Person> {
///     @Projected(\Person.firstName) var firstName
///     @Projected(\Person.lastName.localizedUppercase) var lastNameCaps
///     @Projected(\Person.address?.city) var homeCity
///     @Projected(\Person.friends.projectTo.firstName) var friendsNames: ProjectedCollection<String>
/// }
///
/// let people: Results<PersonProjection> = realm.objects(PersonProjection.self).filter("lastName == 'Snow'")
/// ```
///
/// A projection holds no values of its own: every read goes to `rootObject`, so
/// projections are live as their objects are, and a write through a projected
/// property (inside a write transaction) writes the root object. Queries and sorts
/// name the root's properties. A projection belongs to its root object's realm and
/// thread, and is frozen, thawed and handed over (`ThreadSafeReference`) with it.
///
/// The class's `@Projected` properties are read once per class, when its first
/// projection is made; a key path that reads no `@Persisted` property of the root
/// stops the program then, naming the property.
open class Projection<Root: ObjectBase & RealmCollectionValue & ThreadConfined>: RealmCollectionValue, ProjectionObservable {
    /// The type a projection is stored and queried as: its root class.
    public typealias PersistedType = Root

    /// The object the projection shows.
    public let rootObject: Root

    /// A projection of `object`, which may be managed or not.
    public required init(projecting object: Root) {
        rootObject = object
        // Read the schema now, so that a bad declaration stops here rather than at a later read.
        _ = _projectionProperties
    }

    /// Two projections are equal when they show the same object in the same realm
    /// version: a live projection and a frozen one of its object are not equal; two
    /// frozen at the same version are.
    public static func == (lhs: Projection, rhs: Projection) -> Bool {
        guard lhs.rootObject.isSameObject(as: rhs.rootObject) else { return false }
        guard let left = lhs.rootObject.realm, let right = rhs.rootObject.realm else { return true }
        if left.isFrozen != right.isFrozen { return false }
        return !left.isFrozen || left.snapshotVersion == right.snapshotVersion
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(rootObject)
    }

    /// The projection's class, its root's class and address, then each projected
    /// property with the root property path it reads and its value:
    ///
    /// ```
    /// PersonProjection<Person> <0x600001234560> {
    ///         firstName(\.firstName) = John;
    ///         homeCity(\.address.city) = Optional("Winterfell");
    /// }
    /// ```
    open var description: String {
        let properties = _projectionProperties.map { property in
            "\t\(property.label)(\\.\(property.originPropertyKeyPathString)) = \(rootObject[keyPath: property.projectedKeyPath]!);"
        }
        return "\(type(of: self))<\(type(of: rootObject))> <\(Unmanaged.passUnretained(rootObject).toOpaque())> {\n\t"
            + properties.joined(separator: "\n") + "\n}"
    }

    /// The `@Projected` properties of this projection's class.
    var _projectionProperties: [ProjectionProperty] { ProjectionSchema.properties(of: self) }
}

/// Inside the description of results or a collection, a projection is written as its
/// own `description`.
extension Projection: _DescribedWithMaxDepth {
    func _description(maxDepth: Int) -> String { description }
}

// MARK: Fetching

extension Projection: RealmFetchable {
    /// The stored class a projection is fetched from: its root's.
    public static func className() -> String { Root.className() }
}

/// What `Results` and `realm.objects` need of a projection class without knowing its
/// root's type: the class to query, and how to make a projection of one of its objects.
protocol ProjectionOfObjects {
    static var _rootObjectType: ObjectBase.Type { get }
    static func _projecting(_ object: ObjectBase) -> Self
    var _rootObjectBase: ObjectBase { get }
}

extension Projection: ProjectionOfObjects {
    static var _rootObjectType: ObjectBase.Type { Root.self }
    static func _projecting(_ object: ObjectBase) -> Self { Self(projecting: object as! Root) }
    var _rootObjectBase: ObjectBase { rootObject }
}

// MARK: Storage
//
// A projection is a `RealmCollectionValue` (so that `Results<PersonProjection>` is a
// type): it is stored, read and converted as its root object.

extension Projection {
    public static var _orDescriptor: _ORPropertyDescriptor { Root._orDescriptor }

    /// There is no default projection: a projection needs an object.
    public static func _orDefault() -> Self {
        preconditionFailure("A \(Self.self) has no default value: make one with init(projecting:) from an object.")
    }

    public static func _orGet(_ object: ObjectBase, _ index: Int) -> Self { Self(projecting: Root._orGet(object, index)) }

    public static func _orSet(_ object: ObjectBase, _ index: Int, _ value: Projection<Root>) {
        Root._orSet(object, index, value.rootObject)
    }

    public static func _orRecord(_ recorder: _KeyPathRecorder, _ object: ObjectBase, _ index: Int) -> Self {
        Self(projecting: Root._orRecord(recorder, object, index))
    }

    public static func _orFromAny(_ value: Any?, _ context: _ORWriteContext?) throws -> Self {
        if let projection = value as? Self { return projection }
        if let projection = value as? Projection<Root> { return Self(projecting: projection.rootObject) }
        return Self(projecting: try Root._orFromAny(value, context))
    }

    public func _orToAny() -> Any? { self }

    public static func _orDecode(_ value: orc_value, _ realm: Realm?) -> Self { Self(projecting: Root._orDecode(value, realm)) }

    public func _orEncode(_ context: _ORWriteContext) throws -> orc_value { try rootObject._orEncode(context) }
}
