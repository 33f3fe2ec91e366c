/// A top-level object named the way the wire names objects: by class name and primary
/// key. Synced classes have a primary key (`_id`), so the pair is unique and is the same
/// on every peer, whatever ORCore object key each file gives the object.
public struct WireObjectRef: Sendable, Hashable, CustomStringConvertible {
    /// The class name, as in the schema (`"Task"`).
    public var className: String
    /// The object's primary key.
    public var primaryKey: WirePrimaryKey

    /// The object of class `className` whose primary key is `primaryKey`.
    public init(className: String, primaryKey: WirePrimaryKey) {
        self.className = className
        self.primaryKey = primaryKey
    }

    /// `Class[pk]`, for messages.
    public var description: String { "\(className)[\(primaryKey)]" }

    public static func == (a: WireObjectRef, b: WireObjectRef) -> Bool {
        sameUTF8(a.className, b.className) && a.primaryKey == b.primaryKey
    }

    public func hash(into hasher: inout Hasher) {
        // The name's bytes in one call (the same stream as byte by byte, without a call each).
        var name = className
        name.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        hasher.combine(primaryKey)
    }
}

/// One step of the path from a top-level object to an embedded object inside it.
public enum WirePathElement: Sendable, Hashable, CustomStringConvertible {
    /// Follow the property of this name (a link to an embedded class, or a collection of them).
    case property(String)
    /// Take the element at this position of the list reached so far.
    case index(UInt64)
    /// Take the value at this key of the dictionary reached so far.
    case key(String)

    public var description: String {
        switch self {
        case .property(let name): return ".\(name)"
        case .index(let i): return "[\(i)]"
        case .key(let k): return "[\"\(k)\"]"
        }
    }

    public static func == (a: WirePathElement, b: WirePathElement) -> Bool {
        switch (a, b) {
        case let (.property(x), .property(y)): return sameUTF8(x, y)
        case let (.index(x), .index(y)): return x == y
        case let (.key(x), .key(y)): return sameUTF8(x, y)
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .property(let s): hasher.combine(0 as UInt8); for b in s.utf8 { hasher.combine(b) }
        case .index(let i): hasher.combine(1 as UInt8); hasher.combine(i)
        case .key(let s): hasher.combine(2 as UInt8); for b in s.utf8 { hasher.combine(b) }
        }
    }
}

/// The object an instruction acts on: a top-level object, or an embedded object reached
/// from its top-level owner by a path.
///
/// The path alternates a property step with, for collections, an index or key step:
/// `Order[7].lines[2].address` is
/// `WireObjectPath(WireObjectRef(className: "Order", primaryKey: .int(7)), path: [.property("lines"), .index(2), .property("address")])`.
/// Positions are those in effect when the instruction is applied, after the
/// instructions before it in the same changeset.
public struct WireObjectPath: Sendable, Hashable, CustomStringConvertible {
    /// The top-level owner.
    public var root: WireObjectRef
    /// The steps from the owner to the object; empty for the owner itself. At most
    /// ``WireLimits/maxPathDepth`` steps.
    public var path: [WirePathElement]

    /// The object reached from `root` by `path`.
    public init(_ root: WireObjectRef, path: [WirePathElement] = []) {
        self.root = root
        self.path = path
    }

    /// The top-level object of class `className` with primary key `primaryKey`.
    public init(className: String, primaryKey: WirePrimaryKey) {
        self.init(WireObjectRef(className: className, primaryKey: primaryKey))
    }

    /// Whether this is an embedded object (the path is not empty).
    public var isEmbedded: Bool { !path.isEmpty }

    /// `Class[pk].prop[i]...`, for messages.
    public var description: String { root.description + path.map(\.description).joined() }
}
