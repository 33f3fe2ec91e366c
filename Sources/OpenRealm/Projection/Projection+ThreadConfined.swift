import Foundation

/// A projection belongs where its root object belongs: its realm, thread and version.
extension Projection {
    /// The realm of the root object (nil when the root object is unmanaged).
    public var realm: Realm? { rootObject.realm }

    /// Whether the root object was deleted, or its realm invalidated.
    public var isInvalidated: Bool { rootObject.isInvalidated }

    /// Whether the root object belongs to a frozen realm.
    public var isFrozen: Bool { realm?.isFrozen ?? false }

    /// A projection of a frozen copy of the root object: it never changes and can be
    /// read on any thread. A frozen projection freezes to one equal to itself.
    public func freeze() -> Self {
        if rootObject.realm != nil, !rootObject.isFrozen, rootObject.isInvalidated {
            preconditionFailure("Object has been deleted or invalidated. (The root '\(Root.className())' of this \(Self.self) cannot be frozen.)")
        }
        return Self(projecting: rootObject.freeze())
    }

    /// A projection of the live root object on the current thread, or nil when it was
    /// deleted since the projection was frozen.
    public func thaw() -> Self? {
        rootObject.thaw().map { Self(projecting: $0) }
    }

    /// A `ThreadSafeReference` to a projection carries its root object.
    public var _threadConfinedPayload: ThreadConfinedPayload { rootObject._threadConfinedPayload }

    public static func _resolve(_ payload: ThreadConfinedPayload, in realm: Realm) -> Self? {
        Root._resolve(payload, in: realm).map { Self(projecting: $0) }
    }
}
