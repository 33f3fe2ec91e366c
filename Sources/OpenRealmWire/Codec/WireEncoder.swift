/// Turns messages into frames: the 12-byte header, then the body, compressed with zstd
/// when it is at least ``WireLimits/compressionThreshold`` bytes and compression makes
/// it smaller, but not more than ``WireLimits/maxCompressionRatio`` times smaller (such
/// a body travels plain, since the receiver refuses it compressed).
///
/// ```swift
/// let encoder = WireEncoder()
/// let frame = try encoder.encode(.mark(WireMark(session: 1, requestId: 7)))
/// webSocket.send(frame)   // one frame per WebSocket binary message
/// ```
///
/// An encoder is a value; it may be used from any thread.
public struct WireEncoder: Sendable {
    /// The size, depth and compression settings.
    public var limits: WireLimits
    /// The protocol version written into frames: the version negotiated for the
    /// connection (``WireProtocol/currentVersion`` unless the peer asked for another).
    public var version: UInt16

    /// An encoder with `limits`, writing frames of `version`.
    public init(limits: WireLimits = WireLimits(), version: UInt16 = WireProtocol.currentVersion) {
        self.limits = limits
        self.version = version
    }

    /// Encodes `message` as one frame.
    ///
    /// - Returns: the frame's bytes, header included.
    /// - Throws: ``WireError`` — `unsupportedVersion` when ``version`` is not one this
    ///   build speaks; `limitsExceeded` when the body is over
    ///   ``WireLimits/maxMessageSize`` (split the changesets over several messages) or a
    ///   path is deeper than ``WireLimits/maxPathDepth``; `badMessage` for a field that
    ///   cannot travel (session 0, an empty name, an invalid timestamp, a duplicate class
    ///   in a query, an impossible schema declaration). The error names the field.
    public func encode(_ message: WireMessage) throws(WireError) -> [UInt8] {
        guard WireProtocol.supportedVersions.contains(version) else {
            throw WireError(.unsupportedVersion, field: "header.version", "this build cannot write protocol version \(version)")
        }
        var writer = WireWriter(limits: limits, reserving: 64)
        writer.bytes.append(contentsOf: repeatElement(0, count: WireProtocol.headerSize))
        try writer.body(message)
        return try frame(writer.bytes, type: message.type)
    }

    /// Finishes a frame whose body follows a zeroed header in `frame`: checks the body's
    /// size, compresses it when worthwhile, and writes the header.
    ///
    /// The frame returned holds little more memory than its size (its capacity is within
    /// an eighth of its count, or 4 KiB): a sender that bounds what it queues by frame
    /// size would otherwise hold the growth room of the writer's buffer, or the whole
    /// uncompressed body behind a compressed one, uncounted.
    func frame(_ frame: [UInt8], type: WireMessageType) throws(WireError) -> [UInt8] {
        var frame = frame
        let bodySize = frame.count - WireProtocol.headerSize
        let limit = limits.effectiveMaxMessageSize
        guard bodySize <= limit else {
            throw WireError(.limitsExceeded, field: type.description,
                            "body of \(bodySize) bytes, over the limit of \(limit); split it over several messages")
        }
        var flags: UInt8 = 0
        // A body that would compress beyond the ratio bound travels plain: the receiver
        // would refuse it.
        if bodySize >= limits.compressionThreshold,
           let compressed = WireCompression.compress(frame, range: WireProtocol.headerSize..<frame.count, level: limits.compressionLevel),
           bodySize <= limits.maxDecompressedSize(compressedSize: compressed.count) {
            frame = Self.exactly(frame[..<WireProtocol.headerSize], compressed[...])
            flags = WireProtocol.compressedFlag
        } else if frame.capacity - frame.count > max(4096, frame.count / 8) {
            frame = Self.exactly(frame[...], [])
        }
        let wireLength = UInt32(frame.count - WireProtocol.headerSize)
        frame.replaceSubrange(0..<4, with: WireProtocol.magic)
        frame[4] = UInt8(truncatingIfNeeded: version)
        frame[5] = UInt8(truncatingIfNeeded: version >> 8)
        frame[6] = type.rawValue
        frame[7] = flags
        for i in 0..<4 { frame[8 + i] = UInt8(truncatingIfNeeded: wireLength >> UInt32(8 * i)) }
        return frame
    }

    /// `first` then `second` in a new array of exactly their size.
    private static func exactly(_ first: ArraySlice<UInt8>, _ second: ArraySlice<UInt8>) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: first.count + second.count) { buffer, count in
            _ = buffer.initialize(from: first)
            _ = UnsafeMutableBufferPointer(rebasing: buffer[first.count...]).initialize(from: second)
            count = first.count + second.count
        }
    }
}
