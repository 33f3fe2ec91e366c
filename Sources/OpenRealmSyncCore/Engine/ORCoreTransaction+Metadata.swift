import Foundation
import ORCore

/// Named metadata values of the file (`orc_meta_*`): small values outside the tables,
/// not logged. Both sides keep their state here: the server its versions and
/// per-client records, the client its identity, progress, stamps and subscriptions.
/// An absent value reads as nil (or empty); a present one of the wrong size throws.
extension ORCoreTransaction {
    /// A value's bytes, or nil when absent.
    public func metaBytes(_ name: String) throws(ORCoreError) -> [UInt8]? {
        var data: UnsafeRawPointer?
        var size = 0
        let status = orc_meta_get(handle, name, &data, &size)
        if status == ORC_ERR_NOT_FOUND { return nil }
        try ORCoreError.check(status, "read metadata '\(name)'")
        guard size > 0, let data else { return [] }
        return Array(UnsafeRawBufferPointer(start: data, count: size))
    }

    /// Stores a value's bytes; empty bytes delete it.
    public func setMeta(_ name: String, bytes: [UInt8]) throws(ORCoreError) {
        guard !bytes.isEmpty else { return try deleteMeta(name) }
        let status = bytes.withUnsafeBytes { orc_meta_set(handle, name, $0.baseAddress, $0.count) }
        try ORCoreError.check(status, "write metadata '\(name)'")
    }

    /// Removes a value (nothing happens when it is absent).
    public func deleteMeta(_ name: String) throws(ORCoreError) {
        let status = orc_meta_delete(handle, name)
        if status != ORC_ERR_NOT_FOUND { try ORCoreError.check(status, "delete metadata '\(name)'") }
    }

    /// A value that is one little-endian UInt64, or nil when absent.
    public func metaUInt64(_ name: String) throws(ORCoreError) -> UInt64? {
        guard let bytes = try metaBytes(name) else { return nil }
        guard bytes.count == 8 else { throw ORCoreError(status: 0, "metadata '\(name)' holds \(bytes.count) bytes, not 8") }
        return bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
    }

    /// Stores a value as one little-endian UInt64.
    public func setMeta(_ name: String, _ value: UInt64) throws(ORCoreError) {
        try setMeta(name, uint64s: [value])
    }

    /// A value that is a list of little-endian UInt64s; empty when absent.
    ///
    /// Read with one unaligned load each: the client's lists (commit stamps,
    /// integrations) are read at every upload and grow with the unacknowledged commits.
    public func metaUInt64s(_ name: String) throws(ORCoreError) -> [UInt64] {
        var data: UnsafeRawPointer?
        var size = 0
        let status = orc_meta_get(handle, name, &data, &size)
        if status == ORC_ERR_NOT_FOUND { return [] }
        try ORCoreError.check(status, "read metadata '\(name)'")
        guard size > 0, let data else { return [] }
        guard size % 8 == 0 else { throw ORCoreError(status: 0, "metadata '\(name)' holds \(size) bytes, not a multiple of 8") }
        return (0..<size / 8).map { UInt64(littleEndian: data.loadUnaligned(fromByteOffset: $0 * 8, as: UInt64.self)) }
    }

    /// Stores a list of little-endian UInt64s; an empty list deletes the value.
    public func setMeta(_ name: String, uint64s values: [UInt64]) throws(ORCoreError) {
        try setMeta(name, bytes: values.map(\.littleEndian).withUnsafeBytes { Array($0) })
    }

    /// A JSON value decoded as `T`, or nil when absent or empty.
    ///
    /// - Throws: ``ORCoreError`` when it cannot be read; a `DecodingError` when it is
    ///   not a `T`.
    public func metaJSON<T: Decodable>(_ name: String, as type: T.Type) throws -> T? {
        guard let bytes = try metaBytes(name), !bytes.isEmpty else { return nil }
        return try JSONDecoder().decode(T.self, from: Data(bytes))
    }

    /// Stores `value` as JSON.
    public func setMeta<T: Encodable>(_ name: String, json value: T) throws {
        try setMeta(name, bytes: Array(try JSONEncoder().encode(value)))
    }
}
