import Foundation

/// Memory for the bytes of ORCore values built from Swift values (strings, binary
/// data, dictionary keys): ORCore reads them during a call and keeps no pointer, so the
/// copies live until ``reset()`` or the scratch's end.
///
/// Not thread-safe: one scratch per transaction or per call.
public final class ValueScratch {
    private var blocks: [UnsafeMutableRawPointer] = []

    public init() {}

    deinit { reset() }

    /// Frees every copy made so far.
    public func reset() {
        for block in blocks { free(block) }
        blocks.removeAll(keepingCapacity: true)
    }

    /// A copy of `bytes` followed by a NUL (so that it also reads as a C string).
    public func copy(_ bytes: UnsafeRawBufferPointer) -> UnsafePointer<CChar> {
        let block = malloc(bytes.count + 1)!
        if bytes.count > 0 { block.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count) }
        block.storeBytes(of: 0, toByteOffset: bytes.count, as: UInt8.self)
        blocks.append(block)
        return UnsafePointer(block.assumingMemoryBound(to: CChar.self))
    }

    /// A copy of `bytes`, NUL-terminated.
    public func copy(_ bytes: [UInt8]) -> UnsafePointer<CChar> {
        bytes.withUnsafeBytes { copy($0) }
    }

    /// A copy of a string's UTF-8 bytes, NUL-terminated, and their count (without the NUL).
    public func copy(_ string: String) -> (UnsafePointer<CChar>, Int) {
        var s = string
        return s.withUTF8 { (copy(UnsafeRawBufferPointer($0)), $0.count) }
    }
}
