/// What a client file's later uploads may still need of the history: its upload base
/// (the **hold**) and its own uploads integrated after it (`AppStore+Trimming.swift`
/// explains the rule). A value of the engine that each store persists as it likes: the
/// hold as a number, the uploads as ``encodedUploads()``.
package struct UploadRecord: Sendable {
    /// The upload base (nil: none recorded yet).
    package private(set) var hold: UInt64?
    /// Uploads in version order; those before `start` are at or below `hold`.
    private var uploads: [(version: UInt64, base: UInt64)]
    private var start = 0

    /// A record from its stored parts: the hold, and the uploads in any order.
    package init(hold: UInt64?, uploads: [(version: UInt64, base: UInt64)]) {
        var uploads = uploads
        if !zip(uploads, uploads.dropFirst()).allSatisfy({ $0.version < $1.version }) {
            uploads.sort { $0.version < $1.version }
        }
        self.hold = hold
        self.uploads = uploads
        if let hold { start = uploads.firstIndex { $0.version > hold } ?? uploads.count }
    }

    /// A record from the hold and ``encodedUploads()``'s bytes; nil when the bytes are
    /// not whole pairs.
    package init?(hold: UInt64?, decoding bytes: [UInt8]) {
        guard bytes.count % 16 == 0 else { return nil }
        func littleEndian(_ at: Int) -> UInt64 {
            var value: UInt64 = 0
            for i in (0..<8).reversed() { value = value << 8 | UInt64(bytes[at + i]) }
            return value
        }
        self.init(hold: hold, uploads: stride(from: 0, to: bytes.count, by: 16).map { (littleEndian($0), littleEndian($0 + 8)) })
    }

    /// The live uploads (integrated after `hold`).
    package var live: ArraySlice<(version: UInt64, base: UInt64)> { uploads[start...] }

    /// The live uploads as 16-byte pairs (version, base; little-endian).
    package func encodedUploads() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(live.count * 16)
        for upload in live {
            withUnsafeBytes(of: upload.version.littleEndian) { bytes += $0 }
            withUnsafeBytes(of: upload.base.littleEndian) { bytes += $0 }
        }
        return bytes
    }

    /// Records upload `version` based on `base`: the hold is the new base, lowered to
    /// the base of the first own upload integrated after it, repeatedly. Changesets
    /// based on nothing (0) were made on the file's own new objects and need no
    /// history; they leave the hold as it was.
    package mutating func record(base: UInt64, version: UInt64) {
        var hold = self.hold ?? base
        if base > 0 {
            uploads.append((version, base))
            hold = base
            while let first = firstAfter(hold), uploads[first].base < hold { hold = uploads[first].base }
        }
        self.hold = hold
        start = firstAfter(hold) ?? uploads.count
        if start >= 64 && start * 2 >= uploads.count {
            uploads.removeFirst(start)
            start = 0
        }
    }

    /// The index of the first live upload integrated after `version`.
    private func firstAfter(_ version: UInt64) -> Int? {
        var lo = start
        var hi = uploads.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if uploads[mid].version <= version { lo = mid + 1 } else { hi = mid }
        }
        return lo < uploads.count ? lo : nil
    }
}
