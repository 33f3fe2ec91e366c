import Foundation

/// A constant in a query: a literal written in an RQL string, or an argument after
/// binding. Each case maps to one ORCore value type (`orc_type`).
///
/// ```swift
/// let v: QueryValue = .int(42)
/// let when = QueryValue(date: Date())          // .timestamp(seconds:nanoseconds:)
/// ```
package enum QueryValue: Hashable, Sendable {
    /// `nil` / `NULL`: equals only null; ordering comparisons with it are refused.
    case null
    /// `true` / `false`.
    case bool(Bool)
    /// A 64-bit integer literal (`42`, `-7`, `0x1F`).
    case int(Int64)
    /// A 32-bit float literal (`1.5f`) or a `Float` argument.
    case float(Float)
    /// A 64-bit double literal (`1.5`, `2e10`, `infinity`, `nan`) or a `Double` argument.
    case double(Double)
    /// A UTF-8 string literal (`'abc'`, `"abc"`).
    case string(String)
    /// Bytes (`B64"AAEC"`, or a `Data` argument).
    case binary(Data)
    /// A point in time as ORCore stores it: seconds and nanoseconds since 1970 UTC, the
    /// nanoseconds having the sign of the seconds (`T12:5`, `2024-01-31@10:00:00`).
    case timestamp(seconds: Int64, nanoseconds: Int32)
    /// A decimal128 (`decimal128(1.25)`, a number too long for a double, or an argument).
    case decimal(Decimal128)
    /// An ObjectId (`oid(507f1f77bcf86cd799439011)`).
    case objectId(ObjectId)
    /// A UUID (`uuid(d1b186e1-e9e0-4768-a1a7-c492519d47ee)`).
    case uuid(UUID)
    /// An object: the table id of its class and its object key (`L3:17`, or an object argument).
    case link(table: UInt32, key: UInt64)

    /// The timestamp ORCore stores for `date`: whole seconds toward zero and the rest in
    /// nanoseconds with the same sign (rounded to the nearest nanosecond).
    package init(date: Date) {
        // One conversion for stored values and query constants, so that they compare equal.
        let t = date.orcTimestamp
        self = .timestamp(seconds: t.seconds, nanoseconds: t.nanoseconds)
    }

    /// The value's type, as a property would hold it (nil for null).
    package var propertyType: QueryPropertyType? {
        switch self {
        case .null: return nil
        case .bool: return .bool
        case .int: return .int
        case .float: return .float
        case .double: return .double
        case .string: return .string
        case .binary: return .binary
        case .timestamp: return .timestamp
        case .decimal: return .decimal
        case .objectId: return .objectId
        case .uuid: return .uuid
        case .link: return .link
        }
    }

    /// A short name of the value's type for messages ("int", "string", "ObjectId", ...):
    /// the property type's name (``QueryPropertyType/name``), or "null".
    package var typeName: String { propertyType?.name ?? "null" }

    /// Whether the value is a number ORCore compares across types (int, float, double, decimal).
    package var isNumeric: Bool { propertyType?.isNumeric ?? false }
}

/// A Swift value that a query argument may be: the local API adopts it for `Object`
/// (giving `.link`) and `AnyRealmValue`. ``QueryValue`` itself conforms, so a bound value
/// can be passed back as an argument.
package protocol QueryValueConvertible {
    /// The constant the value stands for in a query.
    var queryValue: QueryValue { get }
}

extension QueryValue: QueryValueConvertible {
    package var queryValue: QueryValue { self }
}
