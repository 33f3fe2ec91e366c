import OpenRealmServer
import OpenRealmWire

/// An object of the PostgreSQL store in memory, top-level or embedded: what the working
/// set (``PostgresWorkingSet``) changes between loading a changeset's rows and writing
/// them back. A top-level object's row holds its image (``ObjectImage``); the image is
/// decoded into nodes, an embedded object into a node of its own that its parent holds,
/// so that a handle to it stays valid while the list it is in shifts.
///
/// A property the node does not hold reads as its default (``PostgresObjectValues``):
/// an object made before the class gained a property, or created without it, as ORCore
/// reads a row that lacks the column.
final class PostgresObjectNode {
    /// The object's class.
    let className: String
    /// The top-level object it is part of (itself, for a top-level object).
    let owner: WireObjectRef
    /// The values it holds, by property name.
    var values: [String: Value] = [:]
    /// The object holding it (nil for a top-level object), through property `parentProperty`.
    weak var parent: PostgresObjectNode?
    var parentProperty = ""
    /// False once erased (with its owner, by a replacement, or alone): its handles are dead.
    private(set) var isAlive = true

    init(className: String, owner: WireObjectRef) {
        self.className = className
        self.owner = owner
    }

    /// What a property holds.
    enum Value {
        case single(WireValue)
        /// A single link to an embedded object; nil when null.
        case embedded(PostgresObjectNode?)
        case list([Element])
        /// Elements in ORCore's value order (``PostgresObjectValues/compare(_:_:)``).
        case set([WireValue])
        /// Entries in key byte order.
        case dictionary([Entry])
    }

    /// An element of a list or dictionary: a value or an embedded object.
    enum Element {
        case value(WireValue)
        case embedded(PostgresObjectNode)

        var node: PostgresObjectNode? {
            if case .embedded(let node) = self { return node }
            return nil
        }
    }

    struct Entry {
        var key: String
        var element: Element
    }

    /// Marks this object and every embedded object inside it erased.
    func kill() {
        guard isAlive else { return }
        isAlive = false
        for value in values.values {
            switch value {
            case .embedded(let child?): child.kill()
            case .list(let elements): for element in elements { element.node?.kill() }
            case .dictionary(let entries): for entry in entries { entry.element.node?.kill() }
            case .single, .embedded(nil), .set: break
            }
        }
    }

    /// Adopts `child` as held through `property`.
    func adopt(_ child: PostgresObjectNode, as property: String) {
        child.parent = self
        child.parentProperty = property
    }

    /// Every embedded object this object holds, directly or not, then itself.
    func forEachNode(_ body: (PostgresObjectNode) -> Void) {
        for value in values.values {
            switch value {
            case .embedded(let child?): child.forEachNode(body)
            case .list(let elements): for element in elements { element.node?.forEachNode(body) }
            case .dictionary(let entries): for entry in entries { entry.element.node?.forEachNode(body) }
            case .single, .embedded(nil), .set: break
            }
        }
        body(self)
    }
}

extension PostgresObjectNode {
    /// The nodes of an image's `properties`, for an object of `className` owned by
    /// `owner`; embedded objects take the class their property links to in `schema`.
    static func decoding(_ properties: [ObjectImage.Property], className: String, owner: WireObjectRef,
                         schema: SyncSchema) -> PostgresObjectNode {
        let node = PostgresObjectNode(className: className, owner: owner)
        let cls = schema.storedClass(named: className)
        for property in properties {
            let target = cls?.property(named: property.name).flatMap { schema.embeddedTarget(of: $0) }?.name ?? ""
            func child(_ embedded: ObjectImage.Embedded) -> PostgresObjectNode {
                let made = decoding(embedded.properties, className: target, owner: owner, schema: schema)
                node.adopt(made, as: property.name)
                return made
            }
            func element(_ element: ObjectImage.Element) -> Element {
                switch element {
                case .value(let value): return .value(value)
                case .embedded(let embedded): return .embedded(child(embedded))
                }
            }
            switch property.value {
            case .single(let value): node.values[property.name] = .single(value)
            case .embedded(let embedded): node.values[property.name] = .embedded(embedded.map(child))
            case .list(let elements): node.values[property.name] = .list(elements.map(element))
            case .set(let values): node.values[property.name] = .set(values)
            case .dictionary(let entries):
                node.values[property.name] = .dictionary(entries.map { Entry(key: $0.key, element: element($0.element)) })
            }
        }
        return node
    }

    /// The object's properties as an image: its class's properties in `schema` but the
    /// primary key, in the schema's order, each with what the object holds or the
    /// property's default; embedded objects with theirs.
    func imageProperties(_ schema: SyncSchema) -> [ObjectImage.Property] {
        guard let cls = schema.storedClass(named: className) else { return [] }
        var out: [ObjectImage.Property] = []
        out.reserveCapacity(cls.properties.count)
        for property in cls.properties where !property.isPrimaryKey {
            let value: ObjectImage.Value
            switch values[property.name] ?? PostgresObjectValues.defaultValue(property, schema) {
            case .single(let v): value = .single(v)
            case .embedded(let child): value = .embedded(child.map { ObjectImage.Embedded(properties: $0.imageProperties(schema)) })
            case .list(let elements): value = .list(elements.map { $0.image(schema) })
            case .set(let values): value = .set(values)
            case .dictionary(let entries): value = .dictionary(entries.map { ObjectImage.Entry($0.key, $0.element.image(schema)) })
            }
            out.append(ObjectImage.Property(property.name, value))
        }
        return out
    }

    /// The top-level objects this object and its embedded objects link to, each once,
    /// in the order found.
    func linkedObjects() -> [WireObjectRef] {
        var seen: Set<WireObjectRef> = []
        var out: [WireObjectRef] = []
        func visit(_ value: WireValue) {
            if case .link(let ref) = value, seen.insert(ref).inserted { out.append(ref) }
        }
        forEachNode { node in
            for value in node.values.values {
                switch value {
                case .single(let v): visit(v)
                case .list(let elements): for case .value(let v) in elements { visit(v) }
                case .set(let values): values.forEach(visit)
                case .dictionary(let entries): for entry in entries { if case .value(let v) = entry.element { visit(v) } }
                case .embedded: break
                }
            }
        }
        return out
    }

    /// Nulls this object's links to `ref` (and its embedded objects'), as ORCore does
    /// when the object they name is erased: a single link or mixed value becomes null,
    /// list and set elements go, dictionary values become null. Returns whether
    /// anything changed.
    @discardableResult
    func removeLinks(to ref: WireObjectRef) -> Bool {
        var changed = false
        let link = WireValue.link(ref)
        forEachNode { node in
            for (name, value) in node.values {
                switch value {
                case .single(let v) where v == link:
                    node.values[name] = .single(.null)
                    changed = true
                case .list(var elements):
                    let before = elements.count
                    elements.removeAll { if case .value(let v) = $0 { return v == link } else { return false } }
                    if elements.count != before { node.values[name] = .list(elements); changed = true }
                case .set(var values):
                    let before = values.count
                    values.removeAll { $0 == link }
                    if values.count != before { node.values[name] = .set(values); changed = true }
                case .dictionary(var entries):
                    var hit = false
                    for i in entries.indices {
                        if case .value(let v) = entries[i].element, v == link { entries[i].element = .value(.null); hit = true }
                    }
                    if hit { node.values[name] = .dictionary(entries); changed = true }
                case .single, .embedded:
                    break
                }
            }
        }
        return changed
    }
}

private extension PostgresObjectNode.Element {
    func image(_ schema: SyncSchema) -> ObjectImage.Element {
        switch self {
        case .value(let v): return .value(v)
        case .embedded(let node): return .embedded(ObjectImage.Embedded(properties: node.imageProperties(schema)))
        }
    }
}
