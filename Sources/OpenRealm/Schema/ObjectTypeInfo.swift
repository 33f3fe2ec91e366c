@_spi(Reflection) import Swift
import Foundation
import ORCore
import Synchronization

/// What OpenRealm knows about one model class, read once from the Swift runtime:
/// its stored `@Persisted` fields (name, byte offset in the instance, value type) and
/// the options each declaration gives (indexed, primary key, origin property).
///
/// There is no runtime class list on Linux: a class is known once its `ObjectTypeInfo`
/// exists, which happens the first time the class is used with OpenRealm (named in
/// `objectTypes`, added, queried, linked from a known class). `knownTypes` lists them;
/// it is the schema of a realm opened without `objectTypes`.
final class ObjectTypeInfo: @unchecked Sendable {
    /// One `@Persisted` field. A class, so that walking the properties copies nothing.
    final class PropertyInfo {
        /// The Swift name: what the API, queries, key paths and notifications use.
        let name: String
        /// The name stored in the file and synced: the class's `propertiesMapping()`
        /// entry for `name`, else `name`. Only the storage layer (binding columns,
        /// schema changes, migrations) and what crosses to sync use it.
        let columnName: String
        let offset: Int
        /// Where the field's managed index lives in an instance (`offset` plus its place in the wrapper).
        let indexOffset: Int
        /// Whether the field is stored as one value (not a collection, not an embedded object).
        let isSingleValue: Bool
        let field: any PersistedField.Type
        let valueType: any _Persistable.Type
        let descriptor: _ORPropertyDescriptor
        let isIndexed: Bool
        let isPrimaryKey: Bool
        /// For `LinkingObjects`: the linking class's property.
        let originProperty: String?
        /// For the scalar types: reads and encodes an unmanaged object's value with code
        /// specialized for the type (see ``UnmanagedEncoder``); nil for other types.
        let unmanagedEncoder: UnmanagedEncoder?

        init(name: String, columnName: String, offset: Int, field: any PersistedField.Type, valueType: any _Persistable.Type,
             descriptor: _ORPropertyDescriptor, isIndexed: Bool, isPrimaryKey: Bool, originProperty: String?) {
            self.name = name
            self.columnName = columnName
            self.offset = offset
            indexOffset = offset + field.managedIndexOffset
            self.field = field
            self.valueType = valueType
            self.descriptor = descriptor
            self.isIndexed = isIndexed
            self.isPrimaryKey = isPrimaryKey
            self.originProperty = originProperty
            isSingleValue = descriptor.collection == ORC_COLL_NONE && !descriptor.isLinkingObjects
            unmanagedEncoder = descriptor.type == ORC_TYPE_LINK || !isSingleValue ? nil : UnmanagedEncoder(field, offset: offset)
        }

        /// The value an unmanaged `object` holds in this (single-valued, not link)
        /// property, encoded for ORCore.
        @inline(__always)
        func encodeUnmanaged(_ object: ObjectBase, _ context: _ORWriteContext) throws -> orc_value {
            if let unmanagedEncoder { return try unmanagedEncoder(object, context) }
            return try field.unmanagedValue(object, offset)._orEncodeIfValue(context)!
        }

        /// Makes the field of `object` read and write the realm as property `index`.
        @inline(__always)
        func makeManaged(_ object: ObjectBase, _ index: Int) {
            storeManagedIndex(object, Int32(index))
        }

        /// Makes the field of `object` record its reads as property `index` (``_KeyPathRecorder``).
        func makeRecording(_ object: ObjectBase, _ index: Int) {
            storeManagedIndex(object, Int32(-2 - index))
        }

        @inline(__always)
        private func storeManagedIndex(_ object: ObjectBase, _ value: Int32) {
            (Unmanaged.passUnretained(object).toOpaque() + indexOffset).storeBytes(of: value, as: Int32.self)
        }

        var isLinkingObjects: Bool { descriptor.isLinkingObjects }
        /// Stored in a column (everything but `LinkingObjects`).
        var isStored: Bool { !descriptor.isLinkingObjects }
        /// A single link to an embedded object (not a collection of them).
        var isEmbeddedLink: Bool {
            descriptor.type == ORC_TYPE_LINK && descriptor.collection == ORC_COLL_NONE
                && (descriptor.target.map { $0 is EmbeddedObject.Type } ?? false)
        }
    }

    let type: ObjectBase.Type
    let className: String
    let kind: orc_class_kind
    let properties: [PropertyInfo]
    /// Whether an accessor of the class holds nothing but its row and its `@Persisted`
    /// fields (no stored property of the model's own, which would carry a value from
    /// one row to the next): then iterating `Results` may re-point an accessor nobody
    /// else holds at the next row instead of making a new one.
    let recyclesAccessors: Bool
    let primaryKeyIndex: Int?
    private let indexByName: [String: Int]
    private let indexByColumnName: [String: Int]
    /// A declaration the schema cannot hold (a non-optional link, two primary keys).
    let invalidReason: String?

    private(set) lazy var objectSchema: ObjectSchema = ObjectSchema(self)

    func index(ofProperty name: String) -> Int? { indexByName[name] }

    /// The property stored under `columnName` (its Swift name unless `propertiesMapping()` renames it).
    func index(ofColumnNamed columnName: String) -> Int? { indexByColumnName[columnName] }

    /// The name `name` (a Swift property name of the class) is stored under; `name`
    /// itself for a name the class does not declare.
    func columnName(ofProperty name: String) -> String {
        indexByName[name].map { properties[$0].columnName } ?? name
    }

    /// The Swift name of the property stored under `columnName`, or nil when no
    /// property of the class is stored there.
    func propertyName(ofColumnNamed columnName: String) -> String? {
        indexByColumnName[columnName].map { properties[$0].name }
    }

    var primaryKey: PropertyInfo? { primaryKeyIndex.map { properties[$0] } }

    private init(_ type: ObjectBase.Type) {
        self.type = type
        className = type.className()
        if type is EmbeddedObject.Type {
            kind = ORC_CLASS_EMBEDDED
        } else if type is AsymmetricObject.Type {
            kind = ORC_CLASS_ASYMMETRIC
        } else {
            kind = ORC_CLASS_TOP_LEVEL
        }

        var fields: [(name: String, offset: Int, field: any PersistedField.Type)] = []
        var otherFields = 0
        _ = _forEachField(of: type, options: Self.fieldOptions) { name, offset, fieldType, _ in
            if let field = fieldType as? any PersistedField.Type {
                var label = String(cString: name)
                if label.hasPrefix("_") { label.removeFirst() }
                fields.append((label, offset, field))
            } else {
                otherFields += 1
            }
            return true
        }
        recyclesAccessors = otherFields == Self.objectBaseFieldCount

        // A probe instance tells what each declaration says (options, origin properties).
        let probe = type.init()
        let mapping = type.propertiesMapping()
        var properties: [PropertyInfo] = []
        var problems: [String] = []
        var primaryKeyIndex: Int?
        for (name, offset, field) in fields {
            let options = field.options(probe, offset)
            var descriptor = field.valueType._orDescriptor
            if field.valueType is any _CustomPersistable.Type && descriptor.type == ORC_TYPE_LINK {
                // A custom type stored as an embedded object is stored nullable even where
                // it is not optional (null reads as its default), as in the Realm Swift SDK.
                descriptor.optional = true
            }
            var origin: String?
            if descriptor.isLinkingObjects {
                origin = (field.declaredValue(probe, offset) as? any _LinkingObjectsProtocol)?._originPropertyName
                if origin == nil || origin!.isEmpty {
                    problems.append("'\(name)' is a LinkingObjects property without an origin property: declare it with @Persisted(originProperty:).")
                }
            }
            if descriptor.type == ORC_TYPE_LINK && descriptor.collection == ORC_COLL_NONE && !descriptor.optional && !descriptor.isLinkingObjects {
                problems.append("Property '\(name)' links to '\(descriptor.target.map { $0.className() } ?? "?")' and must be declared optional.")
            }
            if options.contains(.primaryKey) {
                if primaryKeyIndex != nil {
                    problems.append("Properties '\(properties[primaryKeyIndex!].name)' and '\(name)' are both declared the primary key.")
                }
                primaryKeyIndex = properties.count
            }
            properties.append(PropertyInfo(
                name: name, columnName: mapping[name] ?? name, offset: offset, field: field, valueType: field.valueType, descriptor: descriptor,
                isIndexed: options.contains(.indexed), isPrimaryKey: options.contains(.primaryKey),
                originProperty: origin))
        }
        if kind == ORC_CLASS_EMBEDDED, let pk = primaryKeyIndex {
            problems.append("Embedded class cannot have a primary key ('\(properties[pk].name)').")
        }
        self.properties = properties
        self.primaryKeyIndex = primaryKeyIndex
        var byName: [String: Int] = [:], byColumnName: [String: Int] = [:]
        for (i, p) in properties.enumerated() {
            byName[p.name] = i
            guard p.isStored else { continue }
            if let other = byColumnName[p.columnName] {
                problems.append("Properties '\(properties[other].name)' and '\(p.name)' are both stored as '\(p.columnName)' (see propertiesMapping()).")
            }
            byColumnName[p.columnName] = i
        }
        indexByName = byName
        indexByColumnName = byColumnName
        invalidReason = problems.isEmpty ? nil : "Class '\(className)': " + problems.joined(separator: " ")
    }

    /// Why the class cannot be stored: its own declarations (`invalidReason`), or a
    /// `LinkingObjects` property whose origin property does not exist or does not link
    /// to this class. Nil when it can.
    var schemaProblem: String? {
        if let invalidReason { return invalidReason }
        for property in properties where property.isLinkingObjects {
            guard let origin = property.originProperty, let target = property.descriptor.target else { continue }
            let targetInfo = ObjectTypeInfo.of(target)
            guard let index = targetInfo.index(ofProperty: origin) else {
                return "Class '\(className)': property '\(property.name)' follows '\(targetInfo.className).\(origin)', which does not exist."
            }
            let originDescriptor = targetInfo.properties[index].descriptor
            if originDescriptor.type != ORC_TYPE_LINK || originDescriptor.isLinkingObjects
                || originDescriptor.target?.className() != className {
                return "Class '\(className)': property '\(property.name)' follows '\(targetInfo.className).\(origin)', which does not link to '\(className)'."
            }
        }
        return nil
    }

    private static let fieldOptions = _EachFieldOptions(rawValue: 1 << 0)  // .classType

    /// The stored fields `ObjectBase` itself declares, as `_forEachField` counts them
    /// for a subclass (zero if it does not walk superclasses: recycling is then never on).
    private static let objectBaseFieldCount: Int = {
        var count = 0
        _ = _forEachField(of: ObjectBase.self, options: fieldOptions) { _, _, _, _ in
            count += 1
            return true
        }
        return count
    }()

    // MARK: The process-wide registry

    private static let registry = Mutex<[ObjectIdentifier: ObjectTypeInfo]>([:])
    private static let registrationOrder = Mutex<[ObjectTypeInfo]>([])

    /// The class name of `type`: from its info when that was read already (`className()`
    /// formats the type's name anew on every call, which costs more than an indexed query
    /// on a small table), else from `className()`.
    static func className(of type: ObjectBase.Type) -> String {
        registry.withLock { $0[ObjectIdentifier(type)] }?.className ?? type.className()
    }

    static func of(_ type: ObjectBase.Type) -> ObjectTypeInfo {
        let id = ObjectIdentifier(type)
        if let info = registry.withLock({ $0[id] }) { return info }
        let built = ObjectTypeInfo(type)   // outside the lock: the probe runs user code
        let (info, inserted) = registry.withLock { table -> (ObjectTypeInfo, Bool) in
            if let existing = table[id] { return (existing, false) }
            table[id] = built
            return (built, true)
        }
        if inserted {
            registrationOrder.withLock { $0.append(info) }
            for property in info.properties { if let target = property.descriptor.target { _ = of(target) } }
        }
        return info
    }

    /// Every model class this process has used so far, in the order first used.
    static var knownTypes: [ObjectTypeInfo] { registrationOrder.withLock { $0 } }

    /// The known class stored under `name`.
    static func named(_ name: String) -> ObjectTypeInfo? {
        registrationOrder.withLock { list in list.first { $0.className == name } }
    }

    /// The classes `types` name and every class they link to, transitively.
    static func closure(of types: [ObjectBase.Type]) -> [ObjectTypeInfo] {
        var result: [ObjectTypeInfo] = []
        var seen = Set<ObjectIdentifier>()
        var queue = types
        while let next = queue.first {
            queue.removeFirst()
            guard seen.insert(ObjectIdentifier(next)).inserted else { continue }
            let info = of(next)
            result.append(info)
            for property in info.properties { if let target = property.descriptor.target { queue.append(target) } }
        }
        return result
    }
}

/// Collects the property names a typed key path reads (`\Task.owner?.name` gives
/// `owner.name`), by reading it on instances whose properties only record.
public final class _KeyPathRecorder {
    var names: [String] = []
    var objects: [ObjectBase] = []

    func append(_ object: ObjectBase, _ index: Int) {
        names.append(object._typeInfo.properties[index].name)
    }

    func makeRecordingObject(_ type: ObjectBase.Type) -> ObjectBase {
        let info = ObjectTypeInfo.of(type)
        let object = type.init()
        for (i, property) in info.properties.enumerated() {
            property.makeRecording(object, i)
        }
        object._recorder = self
        objects.append(object)
        return object
    }

    /// The dotted property path a key path of `T` reads.
    static func names<T: ObjectBase>(of keyPath: PartialKeyPath<T>) -> [String] {
        let recorder = _KeyPathRecorder()
        let object = recorder.makeRecordingObject(T.self) as! T
        _ = object[keyPath: keyPath]
        precondition(!recorder.names.isEmpty, "Key path \(keyPath) does not read a @Persisted property of '\(T.className())'.")
        return recorder.names
    }
}
