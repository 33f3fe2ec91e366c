import OpenRealmQuery
import OpenRealmWire

/// The embedded store's object reads (``ObjectReading``). The key of each object named
/// by a reference is looked up once per transaction and remembered
/// (``StoreUnitCache/objectKeys``), so that a view's query, its membership checks and
/// its images read each object's key once, as when the engine held the keys itself.
extension StoreTransaction: ObjectReading {
    package func existing(_ refs: [WireObjectRef]) throws -> Set<WireObjectRef> {
        let schema = try schema()
        let known = unitCache.objectKeys
        var out: Set<WireObjectRef> = []
        out.reserveCapacity(refs.count)
        // Runs of one class are the rule (a changeset's objects): look the class up per run.
        var last: StoredClass?
        for ref in refs {
            if last?.name != ref.className { last = schema.storedClass(named: ref.className) }
            guard let cls = last else { continue }
            // Whether it exists, not its key: nothing is remembered (the objects of an
            // upload's changeset are rarely read again in its transaction).
            if !known.isEmpty, known[ref] != nil {
                out.insert(ref)
            } else if try findObject(cls, ref.primaryKey) != nil {
                out.insert(ref)
            }
        }
        return out
    }

    package func matching(_ predicate: QueryPredicate, in className: String, among refs: [WireObjectRef]?) throws -> [WireObjectRef] {
        let schema = try schema()
        guard let cls = schema.topLevelClass(named: className) else { return [] }
        guard let refs else {
            let keys = try keys(matching: predicate, in: className)
            var out: [WireObjectRef] = []
            out.reserveCapacity(keys.count)
            unitCache.objectKeys.reserveCapacity(unitCache.objectKeys.count + keys.count)
            for key in keys {
                let ref = try objectRef(cls, key)
                unitCache.objectKeys[ref] = key
                out.append(ref)
            }
            return out
        }
        var domain: [UInt64] = []
        var named: [(ref: WireObjectRef, key: UInt64)] = []
        for ref in refs where ref.className == className {
            guard let key = try key(of: ref, cls) else { continue }
            domain.append(key)
            named.append((ref, key))
        }
        guard !domain.isEmpty else { return [] }
        let matched = Set(try keys(matching: predicate, in: className, among: domain))
        return named.compactMap { matched.contains($0.key) ? $0.ref : nil }
    }

    package func images(_ refs: [WireObjectRef]) throws -> [ObjectImage] {
        let schema = try schema()
        var out: [ObjectImage] = []
        out.reserveCapacity(refs.count)
        // Runs of one class are the rule (a view's objects, sorted): look the class up per run.
        var last: StoredClass?
        for ref in refs {
            if last?.name != ref.className { last = schema.topLevelClass(named: ref.className) }
            guard let cls = last, let key = try key(of: ref, cls) else { continue }
            out.append(ObjectImage(ref: ref, properties: try imageProperties(schema, cls, key)))
        }
        return out
    }

    /// The key of the object `ref` names, of class `cls`: remembered for the
    /// transaction once found (an erase forgets every key).
    private func key(of ref: WireObjectRef, _ cls: StoredClass) throws -> UInt64? {
        let cache = unitCache
        if let known = cache.objectKeys[ref] { return known }
        guard let key = try findObject(cls, ref.primaryKey) else { return nil }
        cache.objectKeys[ref] = key
        return key
    }

    /// The properties of object `key` of `cls` but its primary key, as values; embedded
    /// objects with theirs.
    private func imageProperties(_ schema: SyncSchema, _ cls: StoredClass, _ key: UInt64) throws -> [ObjectImage.Property] {
        var out: [ObjectImage.Property] = []
        out.reserveCapacity(cls.properties.count)
        // The server's own columns (the hidden partition and clocks) are not among the properties.
        for prop in cls.properties where !prop.isPrimaryKey {
            let embedded = schema.embeddedTarget(of: prop)
            switch prop.collection {
            case .none:
                if let embedded {
                    let child = try embeddedObject(cls, key, prop)
                    out.append(ObjectImage.Property(prop.name, .embedded(try child.map {
                        ObjectImage.Embedded(properties: try imageProperties(schema, embedded, $0))
                    })))
                } else {
                    out.append(ObjectImage.Property(prop.name, .single(try value(cls, key, prop))))
                }
            case .list:
                let size = try collectionSize(cls, key, prop)
                var elements: [ObjectImage.Element] = []
                elements.reserveCapacity(size)
                for i in 0..<size {
                    if let embedded, let child = try embeddedObject(cls, key, prop, at: i) {
                        elements.append(.embedded(ObjectImage.Embedded(properties: try imageProperties(schema, embedded, child))))
                    } else {
                        elements.append(.value(try collectionElement(cls, key, prop, i)))
                    }
                }
                out.append(ObjectImage.Property(prop.name, .list(elements)))
            case .set:
                let size = try collectionSize(cls, key, prop)
                var elements: [WireValue] = []
                elements.reserveCapacity(size)
                for i in 0..<size { elements.append(try collectionElement(cls, key, prop, i)) }
                out.append(ObjectImage.Property(prop.name, .set(elements)))
            case .dictionary:
                let size = try collectionSize(cls, key, prop)
                var entries: [ObjectImage.Entry] = []
                entries.reserveCapacity(size)
                for i in 0..<size {
                    let dkey = try dictionaryKey(cls, key, prop, i)
                    if let embedded, let child = try embeddedObject(cls, key, prop, at: i) {
                        entries.append(ObjectImage.Entry(dkey, .embedded(ObjectImage.Embedded(
                            properties: try imageProperties(schema, embedded, child)))))
                    } else {
                        // A null link to an embedded object is the value null.
                        entries.append(ObjectImage.Entry(dkey, .value(embedded != nil ? .null : try collectionElement(cls, key, prop, i))))
                    }
                }
                out.append(ObjectImage.Property(prop.name, .dictionary(entries)))
            }
        }
        return out
    }
}
