import OpenRealmSyncCore
import OpenRealmWire

/// Resolves the wire's object paths (`docs/PROTOCOL.md` §3.4) to objects of a working
/// set (``ObjectWorkingSet``): a top-level object by class and primary key, then, for an
/// embedded object, one step per property (a single link) or property and index or key
/// (a list or dictionary of embedded objects) — the walk is the one the client uses too
/// (``ObjectPathWalk``), which the store runs over its objects.
enum EmbeddedPaths {
    /// The top-level class `name` of the synced schema.
    ///
    /// - Throws: ``SyncFailure`` `badChangeset` for an unknown or reserved class, or an
    ///   embedded class (embedded objects are reached by paths from their owner).
    static func topLevelClass(_ schema: SyncSchema, _ name: String) throws -> StoredClass {
        // The schema holds no reserved class.
        guard let cls = schema.storedClass(named: name) else {
            throw SyncFailure(.badChangeset, "unknown class '\(name)'")
        }
        guard !cls.isEmbedded else {
            throw SyncFailure(.badChangeset, "class '\(name)' is embedded: its objects are reached by a path from their top-level owner")
        }
        return cls
    }

    /// The class and object `path` names in `objects`, through the walk client and server
    /// share (``ObjectPathWalk``). The object is nil when it does not exist: its owner
    /// was erased, a single link on the way is null, or a list position or dictionary
    /// key on the way is gone (then the class is the last one reached).
    ///
    /// - Throws: ``SyncFailure`` `badChangeset` for an unknown, reserved or embedded root
    ///   class, and naming the step for a path that does not fit the schema (an unknown
    ///   property, a property that does not link to an embedded class, a collection
    ///   without its index or key, a step of the wrong kind).
    static func resolve<Objects: ObjectWorkingSet>(_ path: WireObjectPath, in objects: Objects) throws
        -> (StoredClass, Objects.Object?) {
        try resolve(path, from: try topLevelClass(try objects.schema(), path.root.className), in: objects)
    }

    /// The class and object `path` names in `objects`, its root class `root` already
    /// found (``topLevelClass(_:_:)``); as ``resolve(_:in:)``.
    static func resolve<Objects: ObjectWorkingSet>(_ path: WireObjectPath, from root: StoredClass, in objects: Objects) throws
        -> (StoredClass, Objects.Object?) {
        do {
            return try objects.resolve(path, from: root)
        } catch let misfit as ObjectPathMisfit {
            throw SyncFailure(.badChangeset, misfit.description)
        }
    }

    /// The steps of an embedded object's path as text (`.lines[2].address`), the prefix
    /// of its properties' names in the owner's clocks; empty for a top-level object.
    static func clockPrefix(_ path: WireObjectPath) -> String {
        path.path.map(\.description).joined()
    }
}
