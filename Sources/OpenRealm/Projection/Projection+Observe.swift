import Foundation

extension ProjectionObservable {
    /// Registers a block called after every write that deletes the root object or
    /// changes a property a `@Projected` property reads. There is no first call.
    ///
    /// ```swift
    /// let token = personProjection.observe(keyPaths: ["firstName"]) { (change: ObjectChange<PersonProjection>) in
    ///     if case .change(_, let properties) = change { print(properties.map(\.name)) }  // ["firstName"]
    /// }
    /// ```
    ///
    /// Each change names the projection's properties (their labels), with their values
    /// read through their key paths. A change of a root property reports every projected
    /// property reading it (`\Person.address?.city` and `\Person.address?.country` both
    /// report when `address` changes, even when one of their values did not).
    /// `oldValue` is the projected property read on a copy of the root holding the
    /// changed properties' previous values: available when the change came from another
    /// thread, realm instance or process, nil otherwise.
    ///
    /// - Parameters:
    ///   - keyPaths: the root property paths to watch, as the projected properties
    ///     read them (`"address.city"`, or `"friends"` for a `projectTo` property);
    ///     nil or empty for every projected property.
    ///   - queue: a serial queue to deliver on; nil for the projection's own thread.
    ///   - block: called with each change; `.deleted` is the last call.
    /// - Returns: a token; delivery stops when it is invalidated or released.
    public func observe(keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
                        _ block: @escaping (ObjectChange<Self>) -> Void) -> NotificationToken {
        observeProjection(keyPaths: keyPaths, queue: queue, actor: nil, block)
    }

    /// Registers a block for changes of the given projected properties
    /// (`[\PersonProjection.homeCity]`): each key path watches the root property path
    /// its `@Projected` property reads.
    public func observe(keyPaths: [PartialKeyPath<Self>], on queue: DispatchQueue? = nil,
                        _ block: @escaping (ObjectChange<Self>) -> Void) -> NotificationToken {
        observe(keyPaths: Self.rootPaths(of: keyPaths), on: queue, block)
    }

    /// Registers a block called on `actor` with a projection of a copy of the root
    /// object confined to it (see `observe(keyPaths:on:_:)`).
    @preconcurrency
    public func observe<A: Actor>(keyPaths: [String]? = nil, on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, ObjectChange<Self>) -> Void) async -> NotificationToken {
        observeProjection(keyPaths: keyPaths, queue: nil, actor: actor, Observation.onActor(actor, block))
    }

    /// Registers a block called on `actor`, for changes of the given projected properties.
    @preconcurrency
    public func observe<A: Actor>(keyPaths: [PartialKeyPath<Self>], on actor: A,
                                  _isolation: isolated (any Actor)? = #isolation,
                                  _ block: @Sendable @escaping (isolated A, ObjectChange<Self>) -> Void) async -> NotificationToken {
        observeProjection(keyPaths: Self.rootPaths(of: keyPaths), queue: nil, actor: actor, Observation.onActor(actor, block))
    }

    private func observeProjection(keyPaths: [String]?, queue: DispatchQueue?, actor: (any Actor)?,
                                   _ block: @escaping (ObjectChange<Self>) -> Void) -> NotificationToken {
        let schema = ProjectionSchema.properties(of: self)
        var watched = schema.map(\.originPropertyKeyPathString)
        if let keyPaths, !keyPaths.isEmpty {
            watched = watched.filter { keyPaths.contains($0) }
        }
        // Delivered on another queue or actor, the root object is a copy confined to it:
        // the projection handed to the block is made from it at the first delivery.
        var projection: Self? = queue == nil && actor == nil ? self : nil
        return rootObject._observeObject(keyPaths: watched, queue: queue, actor: actor) { (change: ObjectChange<Root>) in
            switch change {
            case .deleted:
                block(.deleted)
            case .error(let error):
                block(.error(error))
            case .change(let object, let properties):
                if projection == nil { projection = Self(projecting: object) }
                let changes = Self.projectedChanges(properties, of: object, schema: schema, keyPaths: keyPaths)
                if !changes.isEmpty { block(.change(projection!, changes)) }
            }
        }
    }

    /// The root property paths projection key paths read (nil for none: every property).
    static func rootPaths(of keyPaths: [PartialKeyPath<Self>]) -> [String]? {
        if keyPaths.isEmpty { return nil }
        let recorder = _KeyPathRecorder()
        let projection = Self(projecting: recorder.makeRecordingObject(Root.self) as! Root)
        return keyPaths.map { keyPath in
            recorder.names.removeAll()
            _ = projection[keyPath: keyPath]
            return recorder.names.joined(separator: ".")
        }
    }

    /// The root's property changes as changes of the projected properties reading them.
    private static func projectedChanges(_ properties: [PropertyChange], of object: Root, schema: [ProjectionProperty],
                                         keyPaths: [String]?) -> [PropertyChange] {
        // The previous values are read through the projected key paths of an unmanaged
        // copy holding them; without any (a change made by this realm), there are none.
        var previousRoot: Root?
        if properties.contains(where: { $0.oldValue != nil }) {
            let root = Root()
            for property in properties {
                if let oldValue = property.oldValue { root.setValue(oldValue, forKey: property.name) }
            }
            previousRoot = root
        }
        var changes: [PropertyChange] = []
        for property in properties {
            for projected in schema {
                guard projected.originPropertyKeyPathString.split(separator: ".").first.map(String.init) == property.name else { continue }
                if let keyPaths, !keyPaths.isEmpty, !keyPaths.contains(projected.originPropertyKeyPathString) { continue }
                let oldValue = previousRoot.flatMap { $0[keyPath: projected.projectedKeyPath] }
                let newValue = object[keyPath: projected.projectedKeyPath]
                changes.append(PropertyChange(name: projected.label, oldValue: AnyValueConversion.unwrap(oldValue),
                                              newValue: AnyValueConversion.unwrap(newValue)))
            }
        }
        return changes
    }
}
