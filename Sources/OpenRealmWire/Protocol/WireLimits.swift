/// The bounds a peer enforces on what it encodes and decodes, and when it compresses.
///
/// Both sides of a connection should use the same limits: a peer that sends a message
/// larger than the other accepts gets a ``SyncErrorCode/limitsExceeded`` error back.
///
/// ```swift
/// var limits = WireLimits()
/// limits.maxMessageSize = 64 << 20   // a server that sends large bootstrap batches
/// let encoder = WireEncoder(limits: limits)
/// ```
public struct WireLimits: Sendable, Hashable {
    /// The largest message body, in bytes, before compression and after decompression.
    /// A frame that declares more is refused before anything is allocated for it.
    /// Default 16 MiB, the size every peer of protocol version 1 must accept. Values
    /// above `UInt32.max` are treated as `UInt32.max` (the frame's length field is 32 bits).
    ///
    /// Memory: a decoding buffers at most one body of this size (plus its compressed
    /// form), and the decoded message takes at most about 25 bytes of memory per body
    /// byte (a `WireInstruction` is 120 bytes in memory and at least 5 on the wire), so
    /// 16 MiB bounds one decoded message at roughly 400 MB in the worst case. Lowering
    /// the limit on one side only makes it refuse (`limitsExceeded`) what the other side
    /// may legally send; change it on both sides together.
    public var maxMessageSize: Int = 16 << 20

    /// The largest number of steps in a path to an embedded object
    /// (``WireObjectPath/path``): the nesting bound of the format. Default 64.
    public var maxPathDepth: Int = 64

    /// Bodies of at least this many bytes are compressed with zstd when that makes them
    /// smaller. Default 16 KiB. `Int.max` turns compression off for sending; compressed
    /// frames are always accepted.
    public var compressionThreshold: Int = 16 << 10

    /// The zstd compression level used for large bodies. Default 1: fast, and within a
    /// few percent of the higher levels on changesets.
    public var compressionLevel: Int32 = 1

    /// The most a compressed body may expand: a frame whose declared content size is more
    /// than this many times its compressed size is refused (`limitsExceeded`) before
    /// anything is allocated for it. Default 256.
    ///
    /// Without it a few hundred bytes on the wire (zstd reaches ratios of tens of
    /// thousands on repeated bytes) make the receiver allocate and decode a 16 MiB body,
    /// so a peer's memory and CPU no longer follow what it receives. Real changesets
    /// compress 3 to 20 times; the encoder sends a body that would compress beyond the
    /// ratio uncompressed, so peers with the same limits never refuse each other.
    public var maxCompressionRatio: Int = 256

    /// The default limits: 16 MiB messages, paths of 64 steps, compression from 16 KiB,
    /// at most 256-fold.
    public init() {}

    /// Limits with the given values; the others keep their defaults.
    ///
    /// - Parameters:
    ///   - maxMessageSize: the largest body in bytes (uncompressed).
    ///   - maxPathDepth: the most steps in an embedded-object path.
    ///   - compressionThreshold: the body size from which bodies are compressed.
    public init(maxMessageSize: Int = 16 << 20, maxPathDepth: Int = 64, compressionThreshold: Int = 16 << 10) {
        self.maxMessageSize = maxMessageSize
        self.maxPathDepth = maxPathDepth
        self.compressionThreshold = compressionThreshold
    }

    /// `maxMessageSize` clamped to what a frame can carry (0 ... `UInt32.max`).
    var effectiveMaxMessageSize: Int {
        Swift.max(0, Swift.min(maxMessageSize, Int(UInt32.max)))
    }

    /// The largest content a compressed body of `compressedSize` bytes may declare: the
    /// ratio bound, within the message size limit.
    func maxDecompressedSize(compressedSize: Int) -> Int {
        let ratio = Swift.max(1, maxCompressionRatio)
        let (bound, overflow) = compressedSize.multipliedReportingOverflow(by: ratio)
        return overflow ? effectiveMaxMessageSize : Swift.min(bound, effectiveMaxMessageSize)
    }
}
