import Foundation
import ORCore

/// Links: a `@Persisted var owner: Person?` stores a link to a `Person`; an embedded
/// class is stored as the single child of its parent.
extension ObjectBase: _OptionalPersistable {
    public class var _orValueDescriptor: _ORPropertyDescriptor {
        var descriptor = _ORPropertyDescriptor(ORC_TYPE_LINK)
        descriptor.target = self
        return descriptor
    }

    public class func _orDefault() -> Self { Self() }

    public class func _orDecode(_ value: orc_value, _ realm: Realm?) -> Self {
        guard value.type == ORC_TYPE_LINK, let realm else {
            preconditionFailure("A link was read without its realm.")
        }
        if Self.self == DynamicObject.self { return DynamicObject._decodeLink(value, realm) as! Self }
        return realm._accessor(Self.self, table: value.link.table, key: value.link.key)
    }

    public func _orEncode(_ context: _ORWriteContext) throws -> orc_value {
        if let dynamic = self as? DynamicObject, dynamic._realm != nil { return try dynamic._encodeLink(context) }
        guard let realm = context.realm else {
            throw RealmError(.invalidValue, "Cannot store a link to '\(_typeInfo.className)' outside a realm.")
        }
        let bound = try realm._addForLink(self, policy: context.policy)
        return .link(bound.table, _key)
    }

    public func _orToAny() -> Any? { self }

    public class func _orFromAny(_ value: Any?, _ context: _ORWriteContext?) throws -> Self {
        if let object = value as? Self {
            // `create` copies unmanaged (or foreign) objects it is given; `add` and
            // property writes adopt them.
            guard let context, context.copiesObjects, let realm = context.realm, !(object is EmbeddedObject),
                  object._realm?._coordinator !== realm._coordinator else { return object }
            return try realm._create(Self.self, value: object, policy: context.policy)
        }
        guard let value = AnyValueConversion.unwrap(value) else {
            throw RealmError(.invalidValue, "Invalid nil value for a link to '\(className())'.")
        }
        if value is [String: Any] || value is [Any] || value is ObjectBase {
            // An embedded object is built unmanaged: its parent's write copies it into its row.
            if let realm = context?.realm, !(self is EmbeddedObject.Type) {
                return try realm._create(Self.self, value: value, policy: context!.policy)
            }
            let object = Self()
            try object._setValues(from: value, policy: context?.policy ?? .error, realm: context?.realm)
            return object
        }
        throw RealmError(.invalidValue, "Invalid value '\(value)' of type '\(type(of: value))' for a link to '\(className())'.")
    }
}
