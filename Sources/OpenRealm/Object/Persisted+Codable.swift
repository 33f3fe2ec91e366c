import Foundation

// Codable models: `class Dog: Object, Codable { @Persisted var name: String }` gets its
// coding synthesized by Swift through these conformances, as with the Realm Swift SDK.
// Only unmanaged objects encode: a managed property's value lives in the realm, out of
// reach of the property wrapper the synthesized code hands the encoder.

extension Persisted: Decodable where Value: Decodable {
    /// The property holding the decoded value (an unmanaged object's). Decoded through a
    /// single-value container, so that the decoder's strategies for `Date` and `Data`
    /// apply.
    public init(from decoder: any Decoder) throws {
        self.init(wrappedValue: try decoder.singleValueContainer().decode(Value.self))
    }
}

extension Persisted: Encodable where Value: Encodable {
    /// Encodes an unmanaged object's value.
    ///
    /// - Throws: `EncodingError.invalidValue` for a property of a managed object (give the
    ///   model its own `encode(to:)` to encode managed objects).
    public func encode(to encoder: any Encoder) throws {
        guard managedIndex == -1 else {
            throw EncodingError.invalidValue(self, EncodingError.Context(
                codingPath: encoder.codingPath,
                debugDescription: "Only unmanaged Realm objects can be encoded using automatic Codable synthesis. "
                    + "You must explicitly define encode(to:) on your model class to support managed Realm objects."))
        }
        var container = encoder.singleValueContainer()
        switch storage {
        case .unmanaged(let value): try container.encode(value)
        case .unmanagedNoDefault: try container.encode(Value._orDefault())
        }
    }
}

/// A property wrapper whose wrapped value can be nil: a missing key decodes as nil
/// rather than failing, as an optional stored property's would.
public protocol OptionalCodingWrapper {
    associatedtype WrappedType: ExpressibleByNilLiteral
    init(wrappedValue: WrappedType)
}

extension Persisted: OptionalCodingWrapper where Value: ExpressibleByNilLiteral {}

extension KeyedDecodingContainer {
    /// Decodes an optional property's wrapper, nil when the key is missing (the
    /// synthesized `init(from:)` calls this overload for `@Persisted var x: T?`).
    public func decode<T>(_ type: T.Type, forKey key: Key) throws -> T where T: Decodable, T: OptionalCodingWrapper {
        try decodeIfPresent(T.self, forKey: key) ?? T(wrappedValue: nil)
    }
}
