/// Turns a byte stream into messages: feed it bytes as they arrive, in chunks of any
/// size, and take the complete messages out. Partial frames wait for their remaining
/// bytes.
///
/// ```swift
/// var decoder = WireFrameDecoder()
/// for await chunk in connection.bytes {
///     decoder.append(chunk)
///     while let message = try decoder.nextMessage() {
///         handle(message)
///     }
/// }
/// ```
///
/// Over a WebSocket, where each binary message carries exactly one frame,
/// ``decode(frame:limits:)`` does the same for one message.
///
/// Hostile input gets a ``WireError``, never a crash: the header is checked as soon as
/// its 12 bytes are there (magic, version, type, flags, and the body length against
/// ``WireLimits/maxMessageSize``) so a bad or oversized frame is refused before its body
/// is awaited or allocated, a compressed body's declared size is checked against the
/// size limit and ``WireLimits/maxCompressionRatio`` before it is decompressed, and the
/// body is decoded with every length bounds-checked.
/// After an error the decoder stays failed (the stream can no longer be trusted):
/// every later call throws the same error. The peer then sends the error back
/// (``WireErrorMessage/init(_:session:)``) and closes the connection.
///
/// Versions: the first frame decoded fixes the connection's protocol version
/// (``version``); a later frame of another version is `unsupportedVersion`. An `error`
/// frame of a newer version than this build speaks is still decoded (its first fields
/// never change; the fields it adds are skipped), so a peer always learns why the
/// other side refused it.
///
/// A decoder is a value with no shared state; use one per connection, from one task at
/// a time.
public struct WireFrameDecoder: Sendable {
    /// The size and depth bounds.
    public let limits: WireLimits
    /// The protocol version of the connection: that of the first frame decoded, or nil
    /// before it.
    public private(set) var version: UInt16?

    /// Bytes received and not consumed yet, from `readIndex` on.
    private var buffer: [UInt8] = []
    private var readIndex = 0
    /// The header of the frame at `readIndex`, once parsed.
    private var pendingHeader: WireFrameHeader?
    /// The error that stopped the decoder.
    private var failure: WireError?

    /// The body size, decompressed, of the last message ``nextMessage()`` returned (0
    /// before the first): what the message costs once decoded, whatever it took on the
    /// wire. A receiver that queues decoded messages charges them by this.
    public private(set) var decodedBodySize = 0

    /// A decoder enforcing `limits`.
    public init(limits: WireLimits = WireLimits()) {
        self.limits = limits
    }

    /// The number of bytes received and not yet returned as messages: at most one
    /// partial frame (12 + ``WireLimits/maxMessageSize`` bytes) plus the last chunk
    /// appended, when ``nextMessage()`` is called until it returns nil after each append.
    public var bufferedByteCount: Int { buffer.count - readIndex }

    /// Adds received bytes. Decoding happens in ``nextMessage()``.
    public mutating func append(_ bytes: some Collection<UInt8>) {
        guard failure == nil else { return }
        if readIndex > 0 && readIndex >= buffer.count / 2 {
            buffer.removeSubrange(0..<readIndex)
            readIndex = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete message, or nil when the bytes received so far do not finish
    /// a frame.
    ///
    /// - Throws: ``WireError`` for a bad frame: `badMessage` (magic, reserved flags, a
    ///   malformed body), `unknownMessage`, `unsupportedVersion`, `limitsExceeded`,
    ///   `badCompression`. The error names the field and its offset. Once thrown, it is
    ///   thrown again by every later call.
    public mutating func nextMessage() throws(WireError) -> WireMessage? {
        if let failure { throw failure }
        do throws(WireError) {
            return try decodeNext()
        } catch {
            failure = error
            buffer = []
            readIndex = 0
            throw error
        }
    }

    /// Appends `bytes` and returns every message they complete.
    ///
    /// - Throws: as ``nextMessage()``. Messages completed by the same chunk before the
    ///   bad frame are not returned; use ``append(_:)`` and ``nextMessage()`` to get them.
    public mutating func feed(_ bytes: some Collection<UInt8>) throws(WireError) -> [WireMessage] {
        append(bytes)
        var messages: [WireMessage] = []
        while let message = try nextMessage() {
            messages.append(message)
        }
        return messages
    }

    /// Decodes exactly one frame (a WebSocket binary message, a stored frame).
    ///
    /// - Parameters:
    ///   - frame: the frame's bytes, header included, and nothing after it.
    ///   - limits: the size and depth bounds.
    /// - Throws: ``WireError`` as ``nextMessage()``, and `badMessage` when `frame` is
    ///   shorter than the frame it starts or has bytes after it.
    public static func decode(frame: [UInt8], limits: WireLimits = WireLimits()) throws(WireError) -> WireMessage {
        var decoder = WireFrameDecoder(limits: limits)
        decoder.append(frame)
        guard let message = try decoder.nextMessage() else {
            throw WireError(.badMessage, field: "frame", "truncated: \(frame.count) bytes do not make a whole frame", offset: frame.count)
        }
        if decoder.bufferedByteCount > 0 {
            throw WireError(.badMessage, field: "frame", "\(decoder.bufferedByteCount) bytes after the frame",
                            offset: frame.count - decoder.bufferedByteCount)
        }
        return message
    }

    private mutating func decodeNext() throws(WireError) -> WireMessage? {
        let available = buffer.count - readIndex
        if pendingHeader == nil {
            guard available >= WireProtocol.headerSize else { return nil }
            let accepted = version.map { $0...$0 } ?? WireProtocol.supportedVersions
            pendingHeader = try WireFrameHeader(buffer, at: readIndex, acceptedVersions: accepted, limits: limits)
        }
        guard let header = pendingHeader else { return nil }
        guard available >= WireProtocol.headerSize + header.bodyLength else { return nil }

        let bodyStart = readIndex + WireProtocol.headerSize
        let bodyRange = bodyStart..<bodyStart + header.bodyLength
        let acceptedUpper = version ?? WireProtocol.supportedVersions.upperBound
        let isLaterError = header.type == .error && header.version > acceptedUpper
        var reader: WireReader
        if header.isCompressed {
            let body = try WireCompression.decompress(buffer, range: bodyRange, limits: limits)
            reader = WireReader(body, limits: limits)
            decodedBodySize = body.count
        } else {
            reader = WireReader(buffer, range: bodyRange, limits: limits)
            decodedBodySize = header.bodyLength
        }
        let message = try reader.body(header.type, lenientError: isLaterError)

        readIndex = bodyRange.upperBound
        pendingHeader = nil
        if readIndex == buffer.count {
            // Keep a small buffer's storage for the next frame; give a large one back.
            buffer.removeAll(keepingCapacity: buffer.capacity <= 64 << 10)
            readIndex = 0
        }
        if version == nil && !isLaterError { version = header.version }
        return message
    }
}
