import Foundation
import OpenRealm
import OpenRealmWire

extension WirePrimaryKey {
    /// The key as the value a user reads (a compensating write's `primaryKey`).
    var anyRealmValue: AnyRealmValue {
        switch self {
        case .null: return .none
        case .int(let value): return .int(Int(value))
        case .string(let value): return .string(value)
        case .objectId(let value): return (try? ObjectId(string: value.description)).map(AnyRealmValue.objectId) ?? .string(value.description)
        case .uuid(let value): return .uuid(value.uuid)
        }
    }
}
