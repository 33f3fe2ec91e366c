import Foundation
import ORCore

/// The schema a query compiles against: the file's stored classes, plus the
/// `LinkingObjects` properties the model classes declare (they have no column).
/// Properties go by their Swift names: a column a model class renames with
/// `propertiesMapping()` is presented under the Swift name it maps to, so queries,
/// sorts and aggregates name properties as the code does.
struct RealmQuerySchema: QuerySchema {
    let stored: StoredSchema
    /// The file's bindings: which model class a table is read as here (two classes may
    /// store under one name with different mappings); the first known class of the
    /// name otherwise.
    var coordinator: RealmCoordinator?

    func queryClass(named name: String) -> QuerySchemaClass? {
        guard let entry = stored[name] else { return nil }
        let info = coordinator?.binding(table: entry.table)?.info ?? ObjectTypeInfo.named(name)
        var properties = entry.properties.compactMap { p -> QuerySchemaProperty? in
            guard let type = QueryPropertyType(rawValue: UInt8(p.type.rawValue)) else { return nil }
            var queryName = p.name
            if let info {
                if let swiftName = info.propertyName(ofColumnNamed: p.name) {
                    queryName = swiftName
                } else if info.index(ofProperty: p.name) != nil {
                    return nil   // a column the model no longer uses, under a name a property now answers to
                }
            }
            return QuerySchemaProperty(name: queryName, column: p.column, type: type,
                                       collection: QueryCollectionKind(rawValue: UInt8(p.collection.rawValue)) ?? .none,
                                       isOptional: p.isOptional,
                                       linkTargetClass: p.type == ORC_TYPE_LINK ? stored.className(ofTable: p.linkTable) : nil)
        }
        if let info = ObjectTypeInfo.named(name) {
            for property in info.properties where property.isLinkingObjects {
                guard let origin = property.descriptor.target?.className(), let originProperty = property.originProperty else { continue }
                properties.append(.linkingObjects(name: property.name, originClass: origin, originProperty: originProperty))
            }
        }
        return QuerySchemaClass(name: entry.name, table: entry.table, isEmbedded: entry.kind == ORC_CLASS_EMBEDDED, properties: properties)
    }
}

extension QueryError {
    /// The `Realm.Error` a failing query is thrown as.
    var realmError: RealmError { RealmError(.invalidQuery, message) }
}

extension QueryArgumentBinder {
    /// The local API's rule for query arguments of its own types: a `PersistableEnum`
    /// stands for its raw value, a `CustomPersistable` value for its persisted value.
    /// OpenRealmQuery cannot name those protocols, so the callers that bind a user's
    /// arguments (`filter`, subscriptions) hand it this.
    package static func persistedStandIn(_ argument: Any) -> Any? {
        if let enumValue = argument as? any PersistableEnum { return enumValue.rawValue }
        return (argument as? any _CustomPersistable)?.persistableValue
    }
}

extension ObjectBase: QueryValueConvertible {
    package var queryValue: QueryValue {
        guard _realm != nil else {
            // An unmanaged object is in no table: the compiler refuses the comparison (as
            // Realm does), since this table number is no class's.
            return .link(table: UInt32.max, key: UInt64.max)
        }
        return .link(table: _table!, key: _key)
    }
}

extension AnyRealmValue: QueryValueConvertible {
    package var queryValue: QueryValue {
        switch self {
        case .none: return .null
        case .int(let v): return .int(Int64(v))
        case .bool(let v): return .bool(v)
        case .float(let v): return .float(v)
        case .double(let v): return .double(v)
        case .string(let v): return .string(v)
        case .data(let v): return .binary(v)
        case .date(let v): return QueryValue(date: v)
        case .object(let v): return v.queryValue
        case .objectId(let v): return .objectId(v)
        case .decimal128(let v): return .decimal(v)
        case .uuid(let v): return .uuid(v)
        }
    }
}

