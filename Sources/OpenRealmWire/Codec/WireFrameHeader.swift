/*
 * The frame header (docs/PROTOCOL.md §2.1). Its layout is the same in every protocol
 * version, so that any peer can read a frame's length and version.
 *
 *   offset  size  field
 *   0       4     magic "ORWP" (4F 52 57 50)
 *   4       2     u16 protocol version
 *   6       1     u8 message type (WireMessageType)
 *   7       1     u8 flags: 0x01 the body is one zstd frame; other bits 0
 *   8       4     u32 body length on the wire (after compression)
 *   12            body
 */

/// A parsed, validated frame header.
struct WireFrameHeader {
    /// The protocol version of the frame.
    let version: UInt16
    /// The message type.
    let type: WireMessageType
    /// Whether the body is compressed.
    let isCompressed: Bool
    /// The body's length on the wire.
    let bodyLength: Int

    /// Parses the 12 header bytes at `bytes[start...]`.
    ///
    /// - Parameters:
    ///   - acceptedVersions: versions whose frames are decoded; an `error` frame of a
    ///     later version is accepted too (its first fields never change).
    /// - Throws: `badMessage` (magic, flags), `unsupportedVersion`, `unknownMessage`,
    ///   `limitsExceeded` (body length over the limit, checked before the body is read).
    init(_ bytes: [UInt8], at start: Int, acceptedVersions: ClosedRange<UInt16>, limits: WireLimits) throws(WireError) {
        for i in 0..<4 where bytes[start + i] != WireProtocol.magic[i] {
            let found = hexString(Array(bytes[start..<start + 4]))
            throw WireError(.badMessage, field: "header.magic", "expected 4f525750 (\"ORWP\"), found \(found)", offset: i)
        }
        let version = UInt16(bytes[start + 4]) | UInt16(bytes[start + 5]) << 8
        let rawType = bytes[start + 6]
        guard let type = WireMessageType(rawValue: rawType) else {
            throw WireError(.unknownMessage, field: "header.type", "unknown message type \(rawType)", offset: 6)
        }
        let isLaterError = type == .error && version > acceptedVersions.upperBound
        guard acceptedVersions.contains(version) || isLaterError else {
            throw WireError(.unsupportedVersion, field: "header.version",
                            "protocol version \(version) is not supported (this peer speaks \(acceptedVersions.lowerBound)...\(acceptedVersions.upperBound))",
                            offset: 4)
        }
        let flags = bytes[start + 7]
        guard flags & ~WireProtocol.compressedFlag == 0 else {
            throw WireError(.badMessage, field: "header.flags", "unknown flag bits 0x\(String(flags & ~WireProtocol.compressedFlag, radix: 16))", offset: 7)
        }
        var length = 0
        for i in 0..<4 { length |= Int(bytes[start + 8 + i]) << (8 * i) }
        // A body is compressed only when that makes it smaller, so a compressed body
        // over the limit has content over the limit too.
        let limit = limits.effectiveMaxMessageSize
        guard length <= limit else {
            throw WireError(.limitsExceeded, field: "header.length", "body of \(length) bytes, over the limit of \(limit)", offset: 8)
        }
        self.version = version
        self.type = type
        self.isCompressed = flags & WireProtocol.compressedFlag != 0
        self.bodyLength = length
    }
}
