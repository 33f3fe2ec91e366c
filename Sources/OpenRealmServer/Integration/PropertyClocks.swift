import Foundation
import OpenRealmWire

/// The stamp of a write for last-writer-wins: the origin's hybrid logical clock, then
/// its client file identity to break ties. Greater stamps win.
struct WriteStamp: Sendable, Hashable, Comparable {
    var timestamp: WireHybridTimestamp
    var originFileIdent: UInt64

    static func < (a: WriteStamp, b: WriteStamp) -> Bool {
        (a.timestamp, a.originFileIdent) < (b.timestamp, b.originFileIdent)
    }
}

/// Per object, the stamp of the last write each property received. Stored in
/// `__clocks` (key `Class␟pk`) as: u32 count, then per property u32 name length, the
/// name's UTF-8 bytes, u64 milliseconds, u32 counter, u64 origin ident (little-endian).
struct PropertyClocks: Sendable, Hashable {
    var stamps: [String: WriteStamp] = [:]

    /// The `__clocks` key of an object: the class name, U+001F, then the primary key's
    /// text (``WirePrimaryKey/description``). An ObjectId key, the usual kind, is
    /// written byte by byte (the integration of every uploaded object needs its key).
    static func key(_ ref: WireObjectRef) -> String {
        switch ref.primaryKey {
        case .objectId(let id):
            var out: [UInt8] = []
            out.reserveCapacity(ref.className.utf8.count + 30)
            out.append(contentsOf: ref.className.utf8)
            out.append(contentsOf: [0x1F, UInt8(ascii: "o"), UInt8(ascii: "i"), UInt8(ascii: "d"), UInt8(ascii: "(")])
            id.appendHexDigits(to: &out)
            out.append(UInt8(ascii: ")"))
            return String(decoding: out, as: UTF8.self)
        case .int(let v):
            return ref.className + "\u{1F}" + String(v)
        default:
            return ref.className + "\u{1F}" + ref.primaryKey.description
        }
    }

    func encoded() -> [UInt8] {
        var out: [UInt8] = []
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
        func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
        u32(UInt32(stamps.count))
        for (name, stamp) in stamps.sorted(by: { $0.key < $1.key }) {
            let bytes = Array(name.utf8)
            u32(UInt32(bytes.count))
            out.append(contentsOf: bytes)
            u64(stamp.timestamp.milliseconds)
            u32(stamp.timestamp.counter)
            u64(stamp.originFileIdent)
        }
        return out
    }

    /// Decodes ``encoded()``; malformed bytes give no clocks (every write then wins once).
    init(decoding bytes: [UInt8]) {
        var i = 0
        func take(_ n: Int) -> ArraySlice<UInt8>? {
            guard n >= 0, i + n <= bytes.count else { return nil }
            defer { i += n }
            return bytes[i..<i + n]
        }
        func u32() -> UInt32? { take(4).map { $0.reversed().reduce(0) { $0 << 8 | UInt32($1) } } }
        func u64() -> UInt64? { take(8).map { $0.reversed().reduce(0) { $0 << 8 | UInt64($1) } } }
        guard let count = u32() else { return }
        var stamps: [String: WriteStamp] = [:]
        for _ in 0..<count {
            guard let n = u32(), let name = take(Int(n)), let ms = u64(), let counter = u32(), let ident = u64() else { return }
            stamps[String(decoding: name, as: UTF8.self)] = WriteStamp(
                timestamp: WireHybridTimestamp(milliseconds: ms, counter: counter), originFileIdent: ident)
        }
        self.stamps = stamps
    }

    init() {}

    /// Forgets the stamps of an embedded object and of everything inside it (`prefix`
    /// is its path, ``EmbeddedPaths/clockPrefix(_:)``): a new object at that place
    /// starts with no history.
    mutating func removeStamps(under prefix: String) {
        stamps = stamps.filter { name, _ in
            !(name.hasPrefix(prefix + ".") || name.hasPrefix(prefix + "["))
        }
    }
}
