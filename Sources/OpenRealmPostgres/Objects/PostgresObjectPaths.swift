import OpenRealmServer
import OpenRealmSyncCore
import OpenRealmWire

/// Wire object paths (`docs/PROTOCOL.md` §3.4) walked over the PostgreSQL working set's
/// nodes: the owner by reference, then one step per single link to an embedded object,
/// or per list index or dictionary key of a collection of them.
///
/// The same walk as ``ObjectPathWalk``, which the client and the embedded store share,
/// with the same refusals word for word; it is not reused because its store protocol
/// speaks ORCore's collection kinds and object keys, which this module does not import
/// (`StorageFenceTests`). `PostgresObjectContractTests` holds the two to the same answers.
enum PostgresObjectPaths {
    /// The class and object `path` names, from its owner of class `root` (nil when the
    /// object does not exist; the class is then the last one reached).
    ///
    /// - Throws: ``ObjectPathMisfit`` for a path that does not fit the schema.
    static func resolve(_ path: WireObjectPath, from root: StoredClass, schema: SyncSchema,
                        owner: (WireObjectRef) throws -> PostgresObjectNode?)
        throws -> (StoredClass, PostgresWorkingSet.Object?) {
        var cls = root
        guard var node = try owner(path.root) else { return (cls, nil) }
        let steps = path.path
        var i = 0
        while i < steps.count {
            guard case .property(let name) = steps[i] else {
                throw ObjectPathMisfit(description: "path \(path): step \(i) must name a property")
            }
            guard let prop = cls.column(named: name) else {
                throw ObjectPathMisfit(description: "path \(path): class '\(cls.name)' has no property '\(name)'")
            }
            guard let child = schema.embeddedTarget(of: prop) else {
                throw ObjectPathMisfit(description: "path \(path): property '\(cls.name).\(name)' does not link to an embedded class")
            }
            let target: PostgresObjectNode?
            switch prop.collection {
            case .none:
                if case .embedded(let held?) = node.values[name] { target = held } else { target = nil }
                i += 1
            case .list:
                guard i + 1 < steps.count, case .index(let index) = steps[i + 1] else {
                    throw ObjectPathMisfit(description: "path \(path): list '\(cls.name).\(name)' must be followed by an index")
                }
                if case .list(let elements) = node.values[name], index < UInt64(elements.count) {
                    target = elements[Int(index)].node
                } else {
                    target = nil
                }
                i += 2
            case .dictionary:
                guard i + 1 < steps.count, case .key(let key) = steps[i + 1] else {
                    throw ObjectPathMisfit(description: "path \(path): dictionary '\(cls.name).\(name)' must be followed by a key")
                }
                if case .dictionary(let entries) = node.values[name] {
                    target = entries.first { $0.key == key }?.element.node
                } else {
                    target = nil
                }
                i += 2
            case .set:
                throw ObjectPathMisfit(description: "path \(path): property '\(cls.name).\(name)' is a set; sets cannot hold embedded objects")
            }
            cls = child
            guard let target else { return (cls, nil) }
            node = target
        }
        return (cls, PostgresWorkingSet.Object(node: node))
    }
}
