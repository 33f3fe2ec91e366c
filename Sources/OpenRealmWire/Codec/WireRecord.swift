/// The protocol's primitive encodings for records a server keeps of its own (the
/// post-images stored with a history entry), so that a stored value has the same bytes
/// as on the wire and one codec reads both. The layouts are `WireReader.swift`'s and
/// `Values+Codec.swift`'s; a record's own shape (what follows what) is its owner's.
///
/// ```swift
/// var writer = WireRecordWriter()
/// writer.varint(1)
/// try writer.value(.string("a"))
/// var reader = WireRecordReader(writer.bytes)
/// _ = try reader.varint("count")          // 1
/// _ = try reader.value()                  // .string("a")
/// try reader.expectEnd()
/// ```
package struct WireRecordWriter: Sendable {
    private var writer = WireWriter(limits: WireLimits())

    package init() {}

    /// The bytes written so far.
    package var bytes: [UInt8] { writer.bytes }

    package mutating func u8(_ value: UInt8) { writer.u8(value) }

    package mutating func varint(_ value: UInt64) { writer.varint(value) }

    /// A string of any content (empty included).
    package mutating func string(_ value: String) { writer.string(value) }

    /// A value as `docs/PROTOCOL.md` §3.2 encodes it.
    ///
    /// - Throws: ``WireError`` for a value that cannot travel (an invalid timestamp, a
    ///   link with an empty class name).
    package mutating func value(_ value: WireValue) throws(WireError) { try writer.value(value) }

    /// An object reference: its class and primary key.
    ///
    /// - Throws: ``WireError`` for an empty class name.
    package mutating func objectRef(_ ref: WireObjectRef) throws(WireError) { try writer.objectRef(ref) }
}

/// Reads what a ``WireRecordWriter`` wrote; every failure names the field and the
/// offset, as the protocol's decoder does.
package struct WireRecordReader: Sendable {
    private var reader: WireReader

    /// A reader over all of `bytes`.
    package init(_ bytes: [UInt8]) {
        reader = WireReader(bytes, limits: WireLimits())
    }

    /// Bytes left to read.
    package var remaining: Int { reader.remaining }

    package mutating func u8(_ field: StaticString) throws(WireError) -> UInt8 { try reader.u8(field) }

    package mutating func varint(_ field: StaticString) throws(WireError) -> UInt64 { try reader.varint(field) }

    /// An element count that the bytes left can hold, each element at least
    /// `minimumElementSize` bytes: a damaged count fails here rather than reserving
    /// memory for it.
    package mutating func count(_ field: StaticString, minimumElementSize: Int = 1) throws(WireError) -> Int {
        try reader.count(field, minimumElementSize: minimumElementSize)
    }

    package mutating func string(_ field: StaticString) throws(WireError) -> String { try reader.string(field) }

    package mutating func value() throws(WireError) -> WireValue { try reader.value() }

    package mutating func objectRef() throws(WireError) -> WireObjectRef { try reader.objectRef() }

    /// Fails unless every byte was read.
    package func expectEnd() throws(WireError) { try reader.expectEnd() }
}
