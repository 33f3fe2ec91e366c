import Foundation

/// Argument binding: replaces `$n` / `%@` placeholders with constants and `%K` with key
/// paths, from the Swift values given to `filter("...", args...)`.
///
/// Accepted argument types: `nil` (`Optional.none`, `NSNull`), `Bool`, every fixed-width
/// integer (a `UInt64` above `Int64.max` is refused), `Float`, `Double`, `String`,
/// `Substring`, `Character`, `Data`, `Date`, `UUID`, `Decimal128`, `ObjectId`, anything
/// ``QueryValueConvertible`` (objects, ``QueryValue``), a value the caller's
/// ``QueryArgumentRawValue`` rule maps to one of these (enums), and arrays or sets of
/// these (for `IN`, `BETWEEN` and `==`, which reads a list as IN). A `%K` argument must
/// be a `String` holding a key path. Extra arguments are ignored.
extension ParsedQuery {
    /// The query with every placeholder replaced by its argument.
    ///
    /// - Parameter rawValue: The caller's rule for arguments of its own types (the local
    ///   API passes one for `PersistableEnum`); by default there are none.
    /// - Throws: ``QueryError`` `.badArgument` naming the argument (`$2`) when there are
    ///   too few arguments or one has a type a query cannot take; `.unsupported` when a
    ///   list argument lands where a list cannot go.
    package func binding(_ arguments: [Any],
                         rawValue: @escaping QueryArgumentRawValue = QueryArgumentBinder.noRawValue) throws -> ParsedQuery {
        let binder = QueryArgumentBinder(arguments: arguments, rawValue: rawValue)
        return ParsedQuery(predicate: try binder.bind(predicate),
                           descriptors: descriptors)
    }

    /// Whether the query still holds `$n`, `%@` or `%K` placeholders.
    package var hasPlaceholders: Bool { predicate.hasPlaceholders }
}

extension QueryPredicate {
    /// Whether the predicate still holds `$n`, `%@` or `%K` placeholders.
    package var hasPlaceholders: Bool {
        switch self {
        case .truePredicate, .falsePredicate: return false
        case .and(let ps), .or(let ps): return ps.contains { $0.hasPlaceholders }
        case .not(let p): return p.hasPlaceholders
        case .comparison(let c): return c.lhs.hasPlaceholders || c.rhs.hasPlaceholders
        case .geoWithin(let g):
            if case .argument = g.shape { return true }
            return false
        }
    }
}

extension QueryOperand {
    package var hasPlaceholders: Bool {
        switch self {
        case .argument, .keyPathArgument: return true
        case .list(let items): return items.contains { $0.hasPlaceholders }
        case .subqueryCount(let s): return s.predicate.hasPlaceholders
        case .keyPath, .value: return false
        }
    }
}

/// The value an argument of a type the query language cannot name stands for, or nil
/// when the argument is none of the caller's types. The local API maps a
/// `PersistableEnum` (which lives above this module) to its raw value.
package typealias QueryArgumentRawValue = (Any) -> Any?

/// Converts Swift argument values into query constants.
package struct QueryArgumentBinder {
    let arguments: [Any]
    let rawValue: QueryArgumentRawValue

    /// The rule of callers with no types of their own (the server, the fuzz targets).
    package static func noRawValue(_ argument: Any) -> Any? { nil }

    func bind(_ predicate: QueryPredicate) throws -> QueryPredicate {
        switch predicate {
        case .truePredicate, .falsePredicate: return predicate
        case .and(let ps): return .and(try ps.map(bind))
        case .or(let ps): return .or(try ps.map(bind))
        case .not(let p): return .not(try bind(p))
        case .geoWithin(var g):
            guard case .argument(let i) = g.shape else { return predicate }
            let raw = try argument(i)
            guard let shape = Self.unwrap(raw) as? any RLMGeospatial else {
                throw QueryError(.badArgument, "Invalid query: GEOWITHIN needs a GeoBox, GeoPolygon or GeoCircle, but argument $\(i) is \(Self.typeName(raw))")
            }
            g.shape = .shape(shape._queryGeoShape)
            return .geoWithin(g)
        case .comparison(var c):
            // `location IN %@` with a shape argument is GEOWITHIN, as the SDK reads it.
            if c.op == .in, case .keyPath(let path) = c.lhs, case .argument(let i) = c.rhs, c.quantifier == .implicit,
               i < arguments.count, let shape = Self.unwrap(arguments[i]) as? any RLMGeospatial {
                return .geoWithin(QueryGeoWithin(path, .shape(shape._queryGeoShape)))
            }
            let lhsArgument = c.lhs.argumentIndex
            let rhsArgument = c.rhs.argumentIndex
            c.lhs = try bind(c.lhs)
            c.rhs = try bind(c.rhs)
            if case .list = c.lhs, let i = lhsArgument {
                throw QueryError(.unsupported, "Invalid query: argument $\(i) is a list, which cannot be on the left of '\(c.op.token)'")
            }
            if case .list(let items) = c.rhs, let i = rhsArgument {
                switch c.op {
                case .equal, .in: break
                case .between where items.count == 2: break
                case .between:
                    throw QueryError(.badArgument, "Invalid query: BETWEEN needs 2 values, but argument $\(i) has \(items.count)")
                default:
                    throw QueryError(.unsupported, "Invalid query: argument $\(i) is a list, but '\(c.op.token)' cannot take a list (only ==, IN and BETWEEN can)")
                }
            } else if c.op == .between, let i = rhsArgument {
                throw QueryError(.badArgument, "Invalid query: BETWEEN needs a list of 2 values, but argument $\(i) is one \(QueryArgumentBinder.typeName(arguments[i]))")
            }
            return .comparison(c)
        }
    }

    private func bind(_ operand: QueryOperand) throws -> QueryOperand {
        switch operand {
        case .keyPath, .value:
            return operand
        case .argument(let i):
            return try Self.operand(for: try argument(i), index: i, rawValue: rawValue)
        case .keyPathArgument(let i):
            let raw = try argument(i)
            guard let text = Self.unwrap(raw) as? String else {
                throw QueryError(.badArgument, "Invalid query: argument %K at $\(i) must be a String key path, not \(Self.typeName(raw))")
            }
            do {
                return .keyPath(try QueryParser.parseKeyPath(text))
            } catch let e as QueryError {
                throw QueryError(.badArgument, "Invalid query: argument %K at $\(i) ('\(text)') is not a key path: \(e.message)")
            }
        case .list(let items):
            return .list(try items.map { item in
                guard case .argument(let i) = item else { return try bind(item) }
                let raw = try argument(i)
                return .value(try Self.value(for: raw, index: i, rawValue: rawValue))
            })
        case .subqueryCount(var s):
            s.predicate = try bind(s.predicate)
            return .subqueryCount(s)
        }
    }

    private func argument(_ i: Int) throws -> Any {
        guard i < arguments.count else {
            let given = arguments.count == 1 ? "1 argument was" : "\(arguments.count) arguments were"
            throw QueryError(.badArgument, "Invalid query: the query uses argument $\(i), but only \(given) given")
        }
        return arguments[i]
    }

    // MARK: - Conversions

    /// The operand for one argument: a `.list` for an array or set, else a `.value`.
    static func operand(for raw: Any, index: Int, rawValue: QueryArgumentRawValue) throws -> QueryOperand {
        if let elements = sequenceElements(raw) {
            return .list(try elements.map { element in
                if sequenceElements(element) != nil {
                    throw QueryError(.badArgument, "Invalid query: argument $\(index) is a list of lists (\(typeName(raw))), which a query cannot take")
                }
                return .value(try value(for: element, index: index, rawValue: rawValue))
            })
        }
        return .value(try value(for: raw, index: index, rawValue: rawValue))
    }

    /// The constant for one scalar argument.
    package static func value(for raw: Any, index: Int,
                              rawValue: QueryArgumentRawValue = noRawValue) throws -> QueryValue {
        guard let x = unwrap(raw) else { return .null }
        if x is NSNull { return .null }
        if let convertible = x as? QueryValueConvertible { return convertible.queryValue }
        if let standIn = rawValue(x) { return try value(for: standIn, index: index, rawValue: rawValue) }
        switch x {
        case let v as Bool: return .bool(v)
        case let v as Int: return .int(Int64(v))
        case let v as Int8: return .int(Int64(v))
        case let v as Int16: return .int(Int64(v))
        case let v as Int32: return .int(Int64(v))
        case let v as Int64: return .int(v)
        case let v as UInt: return try unsigned(UInt64(v), index)
        case let v as UInt8: return .int(Int64(v))
        case let v as UInt16: return .int(Int64(v))
        case let v as UInt32: return .int(Int64(v))
        case let v as UInt64: return try unsigned(v, index)
        case let v as Float: return .float(v)
        case let v as Double: return .double(v)
        case let v as String: return .string(v)
        case let v as Substring: return .string(String(v))
        case let v as Character: return .string(String(v))
        case let v as Data: return .binary(v)
        case let v as Date: return QueryValue(date: v)
        case let v as UUID: return .uuid(v)
        case let v as Decimal128: return .decimal(v)
        case let v as ObjectId: return .objectId(v)
        default:
            if sequenceElements(x) != nil {
                throw QueryError(.badArgument, "Invalid query: argument $\(index) is a list (\(typeName(raw))), which cannot be used here")
            }
            throw QueryError(.badArgument, "Invalid query: argument $\(index) has type \(typeName(raw)), which a query cannot take")
        }
    }

    private static func unsigned(_ v: UInt64, _ index: Int) throws -> QueryValue {
        guard v <= UInt64(Int64.max) else {
            throw QueryError(.badArgument, "Invalid query: argument $\(index) (\(v)) does not fit in a 64-bit signed integer")
        }
        return .int(Int64(v))
    }

    /// The wrapped value of an optional (nested optionals too), nil for `.none`.
    static func unwrap(_ x: Any) -> Any? {
        let mirror = Mirror(reflecting: x)
        guard mirror.displayStyle == .optional else { return x }
        guard let child = mirror.children.first else { return nil }
        return unwrap(child.value)
    }

    /// The elements of an array or set argument; nil for scalars (strings and `Data`
    /// are scalars) and for values that are ``QueryValueConvertible``.
    static func sequenceElements(_ raw: Any) -> [Any]? {
        guard let x = unwrap(raw) else { return nil }
        if x is String || x is Substring || x is Data || x is QueryValueConvertible { return nil }
        let style = Mirror(reflecting: x).displayStyle
        guard style == .collection || style == .set else { return nil }
        guard let sequence = x as? any Sequence else { return nil }
        return elements(of: sequence)
    }

    private static func elements<S: Sequence>(of sequence: S) -> [Any] {
        sequence.map { $0 as Any }
    }

    /// The Swift type name of an argument, for messages.
    static func typeName(_ x: Any) -> String {
        String(describing: type(of: x))
    }
}

private extension QueryOperand {
    /// The argument index of a placeholder operand.
    var argumentIndex: Int? {
        if case .argument(let i) = self { return i }
        return nil
    }
}
