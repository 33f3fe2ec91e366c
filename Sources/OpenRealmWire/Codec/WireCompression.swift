import CZstd

/// zstd compression of message bodies (docs/PROTOCOL.md §2.2).
///
/// A compressed body is exactly one zstd frame whose header declares the content size
/// (the simple `ZSTD_compress` API always writes it). Decompression checks that size
/// against the message size limit and the compression ratio bound before allocating,
/// and decompresses into a buffer of exactly that size, so zstd can never write more
/// (a frame that would is a zstd error), whatever the frame's blocks claim.
enum WireCompression {
    /// `ZSTD_CONTENTSIZE_UNKNOWN`: the frame does not declare its content size.
    private static let contentSizeUnknown: UInt64 = UInt64.max
    /// `ZSTD_CONTENTSIZE_ERROR`: not a zstd frame, or a header too short to tell.
    private static let contentSizeError: UInt64 = UInt64.max - 1

    /// `bytes[range]` compressed at `level`, or nil when zstd fails (it does not on
    /// valid input and memory) or the result is not smaller than the input.
    static func compress(_ bytes: [UInt8], range: Range<Int>, level: Int32) -> [UInt8]? {
        guard !range.isEmpty else { return nil }
        let bound = ZSTD_compressBound(range.count)
        guard ZSTD_isError(bound) == 0, bound > 0 else { return nil }
        var out = [UInt8](repeating: 0, count: bound)
        let written = bytes.withUnsafeBytes { source in
            out.withUnsafeMutableBytes { destination in
                ZSTD_compress(destination.baseAddress, destination.count,
                              source.baseAddress! + range.lowerBound, range.count, level)
            }
        }
        guard ZSTD_isError(written) == 0, written < range.count else { return nil }
        out.removeSubrange(written...)
        return out
    }

    /// The content size the zstd frame `bytes[range]` declares, checked against `limits`
    /// (the message size and the compression ratio) without decompressing anything.
    ///
    /// - Throws: ``WireError`` `badCompression` (empty, not a zstd frame, no declared
    ///   size, a declared size of 0), `limitsExceeded` (over the message size limit, or
    ///   more than ``WireLimits/maxCompressionRatio`` times the compressed size).
    static func declaredSize(_ bytes: [UInt8], range: Range<Int>, limits: WireLimits) throws(WireError) -> Int {
        guard !range.isEmpty else {
            throw WireError(.badCompression, field: "body", "a compressed body must not be empty", offset: 0)
        }
        let declared = bytes.withUnsafeBytes { raw in
            ZSTD_getFrameContentSize(raw.baseAddress! + range.lowerBound, range.count)
        }
        let maxSize = limits.effectiveMaxMessageSize
        switch UInt64(declared) {
        case contentSizeError:
            throw WireError(.badCompression, field: "body", "not a zstd frame", offset: 0)
        case contentSizeUnknown:
            throw WireError(.badCompression, field: "body", "the zstd frame does not declare its content size", offset: 0)
        case let size where size > UInt64(maxSize):
            throw WireError(.limitsExceeded, field: "body", "declares \(size) bytes uncompressed, over the limit of \(maxSize)", offset: 0)
        case let size where size > UInt64(limits.maxDecompressedSize(compressedSize: range.count)):
            throw WireError(.limitsExceeded, field: "body",
                            "\(range.count) compressed bytes declare \(size) bytes uncompressed, more than \(limits.maxCompressionRatio) times their size (the compression ratio limit)",
                            offset: 0)
        case 0:
            // An empty body never needs compressing, and ZSTD_decompress wants a buffer.
            throw WireError(.badCompression, field: "body", "a compressed body must not be empty", offset: 0)
        default:
            return Int(declared)
        }
    }

    /// Decompresses `bytes[range]`, one zstd frame within `limits` (its declared size
    /// checked by ``declaredSize(_:range:limits:)`` before anything is allocated).
    ///
    /// - Throws: ``WireError`` `badCompression` (not one valid frame, no declared size,
    ///   another size than declared), `limitsExceeded` (declared size over the message
    ///   size limit or the compression ratio).
    static func decompress(_ bytes: [UInt8], range: Range<Int>, limits: WireLimits) throws(WireError) -> [UInt8] {
        let size = try declaredSize(bytes, range: range, limits: limits)
        var out = [UInt8](repeating: 0, count: size)
        let produced = bytes.withUnsafeBytes { source in
            out.withUnsafeMutableBytes { destination in
                ZSTD_decompress(destination.baseAddress, destination.count,
                                source.baseAddress! + range.lowerBound, range.count)
            }
        }
        if ZSTD_isError(produced) != 0 {
            let name = String(cString: ZSTD_getErrorName(produced))
            throw WireError(.badCompression, field: "body", "zstd: \(name)", offset: 0)
        }
        guard produced == size else {
            throw WireError(.badCompression, field: "body", "decompresses to \(produced) bytes, not the \(size) it declares", offset: 0)
        }
        return out
    }
}
