/// Why a query string, its arguments or a query tree was refused. The public API maps
/// it to `RealmError(.invalidQuery, message)`.
///
/// Every message names the offending input: the token and its offset for syntax errors,
/// the property and class for unknown properties, both types for mismatches, the
/// argument index and type for bad arguments.
package struct QueryError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The class of failure.
    package enum Kind: Sendable, Equatable {
        /// The string is not valid RQL: an unexpected token, a malformed literal,
        /// an unterminated string. `offset` says where.
        case syntax
        /// A key path names a property (or class) the schema does not have.
        case unknownProperty
        /// A constant, operator or aggregate does not fit the property's type.
        case typeMismatch
        /// An argument is missing, of a type a query cannot take, or unbound at compile time.
        case badArgument
        /// Valid RQL that OpenRealm does not run (arithmetic, `@type`, list indexes, ...).
        case unsupported
    }

    /// The class of failure.
    package let kind: Kind
    /// The whole message, naming the offending input.
    package let message: String
    /// The character offset (0-based, in Unicode scalars) in the query string, when known.
    package let offset: Int?

    package init(_ kind: Kind, _ message: String, offset: Int? = nil) {
        self.kind = kind
        self.message = message
        self.offset = offset
    }

    package var description: String { message }
}
