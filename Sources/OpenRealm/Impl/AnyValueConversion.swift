import Foundation

/// Conversions for values given untyped: `Object(value:)`, `object["name"] = value`,
/// `create(_:value:)`. Numbers convert between widths when the value fits.
enum AnyValueConversion {
    /// The value with every level of optional removed; nil for nil and `NSNull`.
    static func unwrap(_ value: Any?) -> Any? {
        guard let value else { return nil }
        if let optional = value as? OptionalProtocol { return optional.unwrapped.flatMap { unwrap($0) } }
        if value is NSNull { return nil }
        return value
    }

    /// The embedded object a value stands for: the object itself, or the object a
    /// `CustomPersistable` value is stored as; nil for nil.
    static func embeddedObject(_ value: Any?) -> ObjectBase? {
        guard let value = unwrap(value) else { return nil }
        if let custom = value as? any _CustomPersistable { return custom.persistableValue as? ObjectBase }
        return value as? ObjectBase
    }

    /// The elements of a sequence given untyped (an array, a set, a `List`), each converted
    /// to `Element`, for a property of type `collection` (named in the error); none for nil.
    static func elements<Element: _Persistable>(of value: Any?, as _: Element.Type, for collection: String,
                                                 _ context: _ORWriteContext?) throws -> [Element] {
        guard let unwrapped = unwrap(value) else { return [] }
        guard let sequence = unwrapped as? any Sequence else {
            throw RealmError(.invalidValue, "Invalid value '\(unwrapped)' for a \(collection): expected a sequence.")
        }
        var result: [Element] = []
        for element in sequence { result.append(try Element._orFromAny(element, context)) }
        return result
    }

    static func convert<T>(_ value: Any?, to type: T.Type, _ context: _ORWriteContext?) throws -> T? {
        guard let value = unwrap(value) else { return nil }
        if let typed = value as? T { return typed }
        if let any = value as? AnyRealmValue, let inner = anyRealmValuePayload(any) { return inner as? T }
        switch type {
        case is Int.Type: return integer(value).flatMap { Int(exactly: $0) } as? T
        case is Int8.Type: return integer(value).flatMap { Int8(exactly: $0) } as? T
        case is Int16.Type: return integer(value).flatMap { Int16(exactly: $0) } as? T
        case is Int32.Type: return integer(value).flatMap { Int32(exactly: $0) } as? T
        case is Int64.Type: return integer(value) as? T
        case is Double.Type: return floating(value) as? T
        case is Float.Type: return floating(value).map { Float($0) } as? T
        case is Decimal128.Type:
            if let i = integer(value) { return Decimal128(bidInteger: i) as? T }
            if let s = value as? String { return try Decimal128(string: s) as? T }
            if let d = floating(value) { return (try? Decimal128(string: "\(d)")) as? T }
            return nil
        case is ObjectId.Type:
            if let s = value as? String { return try ObjectId(string: s) as? T }
            return nil
        case is UUID.Type:
            if let s = value as? String { return UUID(uuidString: s) as? T }
            return nil
        case is Data.Type:
            if let bytes = value as? [UInt8] { return Data(bytes) as? T }
            return nil
        default:
            return nil
        }
    }

    /// The value an `AnyRealmValue` holds (nil for `.none`).
    static func anyRealmValuePayload(_ value: AnyRealmValue) -> Any? {
        switch value {
        case .none: return nil
        case .int(let v): return v
        case .bool(let v): return v
        case .float(let v): return v
        case .double(let v): return v
        case .string(let v): return v
        case .data(let v): return v
        case .date(let v): return v
        case .object(let v): return v
        case .objectId(let v): return v
        case .decimal128(let v): return v
        case .uuid(let v): return v
        }
    }

    static func integer(_ value: Any) -> Int64? {
        switch value {
        case let v as Int: return Int64(v)
        case let v as Int8: return Int64(v)
        case let v as Int16: return Int64(v)
        case let v as Int32: return Int64(v)
        case let v as Int64: return v
        case let v as UInt8: return Int64(v)
        case let v as UInt16: return Int64(v)
        case let v as UInt32: return Int64(v)
        case let v as UInt: return Int64(exactly: v)
        case let v as UInt64: return Int64(exactly: v)
        case let v as Double: return Int64(exactly: v)
        case let v as Float: return Int64(exactly: v)
        case let v as NSNumber where !(value is Bool): return v.int64Value
        default: return nil
        }
    }

    static func floating(_ value: Any) -> Double? {
        switch value {
        case let v as Double: return v
        case let v as Float: return Double(v)
        case is Bool: return nil
        default: return integer(value).map { Double($0) }
        }
    }
}

protocol OptionalProtocol {
    var unwrapped: Any? { get }
}

extension Optional: OptionalProtocol {
    var unwrapped: Any? { self.map { $0 as Any } }
}

extension Decimal128 {
    init(bidInteger value: Int64) {
        // An integer is the coefficient with exponent 0 (biased 6176): BID high word
        // holds the sign and the exponent; coefficients below 2^63 fit the low word.
        let magnitude = value.magnitude
        let sign: UInt64 = value < 0 ? 1 << 63 : 0
        self.init(bidLow: magnitude, bidHigh: sign | (6176 << 49))
    }
}
