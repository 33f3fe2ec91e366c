/// A changeset as a list of wire instructions, with its own encoding outside any
/// message: the bytes a server can keep in its history and a client can size before
/// batching an upload.
///
/// The encoding is the `instructions` field of upload and download changesets
/// (`docs/PROTOCOL.md` §5): a varint count followed by the instructions.
///
/// ```swift
/// let bytes = try WireChangeset(instructions).encoded()
/// let back = try WireChangeset(decoding: bytes)
/// ```
public struct WireChangeset: Sendable, Hashable {
    /// The instructions, in the order they were performed.
    public var instructions: [WireInstruction]

    /// A changeset of `instructions`.
    public init(_ instructions: [WireInstruction] = []) {
        self.instructions = instructions
    }

    /// The changeset's bytes.
    ///
    /// - Parameter limits: the path depth bound (the size bound applies to messages, not here).
    /// - Throws: ``WireError`` (`badMessage`) for an instruction that cannot travel: an
    ///   empty class or property name, a path deeper than `limits.maxPathDepth`, an
    ///   invalid timestamp, a primary key schema of a type that cannot be a key.
    public func encoded(limits: WireLimits = WireLimits()) throws(WireError) -> [UInt8] {
        var writer = WireWriter(limits: limits)
        try writer.writeInstructions(instructions)
        return writer.bytes
    }

    /// Decodes a changeset from exactly `bytes`.
    ///
    /// - Parameters:
    ///   - bytes: an encoding made by ``encoded(limits:)``.
    ///   - limits: the path depth bound; `bytes` itself may be of any size.
    /// - Throws: ``WireError`` naming the bad field and its offset (`badMessage` for
    ///   malformed or trailing bytes, `limitsExceeded` for a path too deep).
    public init(decoding bytes: [UInt8], limits: WireLimits = WireLimits()) throws(WireError) {
        var reader = WireReader(bytes, limits: limits)
        do throws(WireError) {
            instructions = try reader.readInstructions()
            try reader.expectEnd()
        } catch {
            throw error.within("changeset")
        }
    }
}
