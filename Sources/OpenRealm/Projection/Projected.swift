import Foundation
import Synchronization

/// A `@Projected` property as the projection's schema sees it, whatever its types.
protocol AnyProjected {
    var projectedKeyPath: AnyKeyPath { get }
}

/// Declares a property of a `Projection`: a key path from the projection's root object
/// to the value the property shows.
///
/// ```swift
/// class PersonProjection: Projection<Person> {
///     @Projected(\Person.firstName) var firstName
///     @Projected(\Person.address?.city) var homeCity
///     @Projected(\Person.lastName.localizedUppercase) var lastNameCaps
///     @Projected(\Person.friends.projectTo.firstName) var friendsNames: ProjectedCollection<String>
/// }
/// ```
///
/// Reading the property reads the key path on `rootObject`; setting it (inside a write
/// transaction) writes through the key path, which must then be writable (a
/// `@Persisted` property, or a path through to-one links ending at one).
@propertyWrapper
public struct Projected<T: ObjectBase, Value>: AnyProjected {
    fileprivate var _projectedKeyPath: KeyPath<T, Value>
    var projectedKeyPath: AnyKeyPath { _projectedKeyPath }

    @available(*, unavailable, message: "@Projected can only be used as a property on a Projection")
    public var wrappedValue: Value {
        get { fatalError("called wrappedValue getter") }
        // swiftlint:disable:next unused_setter_value
        set { fatalError("called wrappedValue setter") }
    }

    /// The property's value on the projection `observed`: the key path read on (or
    /// written through) its root object.
    public static subscript<EnclosingSelf: Projection<T>>(
        _enclosingInstance observed: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Self>
    ) -> Value {
        get {
            observed.rootObject[keyPath: observed[keyPath: storageKeyPath]._projectedKeyPath]
        }
        set {
            guard let keyPath = observed[keyPath: storageKeyPath]._projectedKeyPath as? ReferenceWritableKeyPath<T, Value> else {
                preconditionFailure("KeyPath is not writable: \(type(of: observed)) cannot set a property projected from \(observed[keyPath: storageKeyPath]._projectedKeyPath).")
            }
            observed.rootObject[keyPath: keyPath] = newValue
        }
    }

    /// A property showing the value at `projectedKeyPath` of the root object.
    public init(_ projectedKeyPath: KeyPath<T, Value>) {
        _projectedKeyPath = projectedKeyPath
    }
}

/// One `@Projected` property of a projection class: its key path from the root, the
/// root's property path it reads (`address.city`, what notifications and descriptions
/// name), and its label in the projection class.
struct ProjectionProperty: @unchecked Sendable {
    let projectedKeyPath: AnyKeyPath
    let originPropertyKeyPathString: String
    let label: String
}

/// The `@Projected` properties of each projection class, found once per class by
/// reflecting an instance and recording which root properties each key path reads.
enum ProjectionSchema {
    private static let cache = Mutex<[ObjectIdentifier: [ProjectionProperty]]>([:])

    /// The properties of `projection`'s class, in declaration order (superclasses'
    /// first). Stops when a `@Projected` key path reads no `@Persisted` property of the
    /// root (a plain or ignored property), as the Realm Swift SDK does.
    static func properties<P: ProjectionObservable>(of projection: P) -> [ProjectionProperty] {
        let identifier = ObjectIdentifier(type(of: projection))
        if let known = cache.withLock({ $0[identifier] }) { return known }
        var mirrors: [Mirror] = []
        var mirror: Mirror? = Mirror(reflecting: projection)
        while let current = mirror {
            mirrors.insert(current, at: 0)
            mirror = current.superclassMirror
        }
        var properties: [ProjectionProperty] = []
        for child in mirrors.flatMap(\.children) {
            guard let label = child.label?.dropFirst(), let projected = child.value as? AnyProjected else { continue }
            let names = recordedNames(projected.projectedKeyPath, root: P.Root.self)
            guard !names.isEmpty else {
                preconditionFailure("@Projected property '\(label)' must be a part of Realm object: the key path \(projected.projectedKeyPath) of \(type(of: projection)) reads no @Persisted property of '\(P.Root.className())'.")
            }
            properties.append(ProjectionProperty(projectedKeyPath: projected.projectedKeyPath,
                                                 originPropertyKeyPathString: names.joined(separator: "."),
                                                 label: String(label)))
        }
        cache.withLock { $0[identifier] = properties }
        return properties
    }

    /// The root property names a key path of the root reads (empty when it reads none).
    /// A path through `projectTo` records the collection's own property only
    /// (`friends` for `\Person.friends.projectTo.firstName`).
    static func recordedNames(_ keyPath: AnyKeyPath, root: ObjectBase.Type) -> [String] {
        let recorder = _KeyPathRecorder()
        let object = recorder.makeRecordingObject(root)
        _ = object[keyPath: keyPath]
        return recorder.names
    }
}
