/// One step of a changeset on the wire: the ORCore instruction set with objects, classes
/// and properties named instead of numbered.
///
/// ORCore's changeset log names objects by table id and object key and properties by
/// column id, which differ from file to file. On the wire a top-level object is
/// (class name, primary key), an embedded object is a path from its top-level owner
/// (``WireObjectPath``) and a property is its name. The client maps its log to these
/// instructions before uploading and maps downloaded instructions back; the server does
/// the same with its own storage. Instructions ORCore flags as derived (consequences of
/// others, such as links nulled by an erase) do not travel: each peer derives them again.
///
/// Only additive schema instructions travel (``addClass(_:)``, ``addProperty(className:property:)``),
/// for development mode; destructive schema changes are not synced.
///
/// ```swift
/// let task = WireObjectPath(className: "Task", primaryKey: .int(1))
/// let changeset: [WireInstruction] = [
///     .createObject(className: "Task", primaryKey: .int(1),
///                   values: [WirePropertyValue("title", .string("Write docs"))]),
///     .listInsert(object: task, property: "tags", index: 0, value: .string("docs")),
///     .addInteger(object: task, property: "edits", delta: 1),
/// ]
/// ```
public enum WireInstruction: Sendable, Hashable {
    /// Creates a top-level or asymmetric object with its primary key and initial
    /// single values (not collections, not embedded objects: those follow as their own
    /// instructions). Properties not given read as null, zero or empty. Creating an
    /// object whose key exists is not an error for sync: the server and the clients
    /// merge it into the existing object (the initial values act as `set`s).
    case createObject(className: String, primaryKey: WirePrimaryKey, values: [WirePropertyValue])
    /// Erases an object (and the embedded objects it owns); links to it become null
    /// and list elements linking to it are removed. With a non-empty path, erases the
    /// embedded object at the path (the owning link becomes null, or the element is removed).
    case eraseObject(WireObjectPath)
    /// Sets a single-valued property.
    case set(object: WireObjectPath, property: String, value: WireValue)
    /// Adds `delta` to an int property (wrapping), so that concurrent additions commute.
    case addInteger(object: WireObjectPath, property: String, delta: Int64)
    /// Inserts `value` into a list before position `index` (`index` == count appends).
    case listInsert(object: WireObjectPath, property: String, index: UInt64, value: WireValue)
    /// Replaces the list element at `index`.
    case listSet(object: WireObjectPath, property: String, index: UInt64, value: WireValue)
    /// Removes the list element at `index`.
    case listErase(object: WireObjectPath, property: String, index: UInt64)
    /// Moves the list element at `from` so that it ends at `to`.
    case listMove(object: WireObjectPath, property: String, from: UInt64, to: UInt64)
    /// Removes every element of a list, set or dictionary.
    case clearCollection(object: WireObjectPath, property: String)
    /// Adds `value` to a set (nothing happens when it is already there).
    case setInsert(object: WireObjectPath, property: String, value: WireValue)
    /// Removes `value` from a set (nothing happens when it is not there).
    case setErase(object: WireObjectPath, property: String, value: WireValue)
    /// Sets the dictionary value at `key`, adding the key when it is new.
    case dictionarySet(object: WireObjectPath, property: String, key: String, value: WireValue)
    /// Removes `key` from a dictionary.
    case dictionaryErase(object: WireObjectPath, property: String, key: String)
    /// Creates an embedded object as the value of `property` of `object`, at `position`,
    /// with initial single values. Later instructions reach it by a path through
    /// `property` (and the index or key).
    case createEmbeddedObject(object: WireObjectPath, property: String, position: WireEmbeddedPosition, values: [WirePropertyValue])
    /// Declares a class (development mode). Adding a class that exists with the same
    /// kind and primary key is not an error.
    case addClass(WireClassSchema)
    /// Declares a property of a class (development mode). Adding a property that exists
    /// with the same type is not an error.
    case addProperty(className: String, property: WirePropertySchema)

    /// The tag byte that starts the instruction's encoding (ORCore's `orc_instr_op` number).
    public var tag: UInt8 {
        switch self {
        case .createObject: return 1
        case .eraseObject: return 2
        case .set: return 3
        case .addInteger: return 4
        case .listInsert: return 5
        case .listSet: return 6
        case .listErase: return 7
        case .listMove: return 8
        case .clearCollection: return 9
        case .setInsert: return 10
        case .setErase: return 11
        case .dictionarySet: return 12
        case .dictionaryErase: return 13
        case .createEmbeddedObject: return 14
        case .addClass: return 20
        case .addProperty: return 23
        }
    }

    /// The top-level object the instruction touches (for an embedded object, its
    /// owner), or nil for schema instructions. The server checks view and write rules
    /// against it.
    public var topLevelObject: WireObjectRef? {
        switch self {
        case .createObject(let className, let primaryKey, _):
            return WireObjectRef(className: className, primaryKey: primaryKey)
        case .eraseObject(let object):
            return object.root
        case .set(let object, _, _), .addInteger(let object, _, _), .listInsert(let object, _, _, _),
             .listSet(let object, _, _, _), .listErase(let object, _, _), .listMove(let object, _, _, _),
             .clearCollection(let object, _), .setInsert(let object, _, _), .setErase(let object, _, _),
             .dictionarySet(let object, _, _, _), .dictionaryErase(let object, _, _),
             .createEmbeddedObject(let object, _, _, _):
            return object.root
        case .addClass, .addProperty:
            return nil
        }
    }
}

/// A property name and its value: an initial value of a created object.
public struct WirePropertyValue: Sendable, Hashable {
    /// The property name.
    public var name: String
    /// Its value.
    public var value: WireValue

    /// Property `name` holding `value`.
    public init(_ name: String, _ value: WireValue) {
        self.name = name
        self.value = value
    }
}

/// Where ``WireInstruction/createEmbeddedObject(object:property:position:values:)`` puts
/// the new object inside the parent's property.
public enum WireEmbeddedPosition: Sendable, Hashable {
    /// The property is a single link: the new object replaces (and erases) the old one.
    case single
    /// The property is a list: the new object is inserted before this position.
    case listIndex(UInt64)
    /// The property is a dictionary: the new object is stored at this key, replacing
    /// (and erasing) the previous value.
    case dictionaryKey(String)
}
