import Foundation
import OpenRealmSyncCore
import OpenRealmWire

/// Per top-level object, the stamp of the last write each property received (and each
/// property of its embedded objects, under their paths): the state of the integrator's
/// last-writer-wins (``Integrator``), a value of the engine that each store persists
/// beside the object (``ObjectWorkingSet/clocks(of:)``). Encoded (``encoded()``) as:
/// u32 count, then per property u32 name length, the name's UTF-8 bytes, u64
/// milliseconds, u32 counter, u64 origin ident (little-endian), in name order.
///
/// Every uploaded write reads, changes and writes back its object's clocks, so they are
/// kept as they are stored: a short array sorted by name, searched by bisection (an
/// object has a handful of properties; a dictionary cost more in hashing than the
/// search it saved), decoded and encoded without sorting or intermediate copies.
package struct PropertyClocks: Sendable, Hashable {
    package struct Entry: Sendable, Hashable {
        package var name: String
        package var stamp: WriteStamp
    }

    /// The stamps, by name, in ascending name order, each name once.
    package private(set) var entries: [Entry] = []

    /// The stamps by name (for tests and messages).
    package var stamps: [String: WriteStamp] {
        Dictionary(uniqueKeysWithValues: entries.map { ($0.name, $0.stamp) })
    }

    /// The position of `name`, or where it would be inserted.
    private func position(_ name: String) -> (index: Int, found: Bool) {
        var low = 0, high = entries.count
        while low < high {
            let mid = (low + high) / 2
            let other = entries[mid].name
            if other == name { return (mid, true) }
            if other < name { low = mid + 1 } else { high = mid }
        }
        return (low, false)
    }

    /// The stamp of the last write of `name`; setting nil forgets it.
    package subscript(name: String) -> WriteStamp? {
        get {
            let (i, found) = position(name)
            return found ? entries[i].stamp : nil
        }
        set {
            let (i, found) = position(name)
            switch (found, newValue) {
            case (true, let stamp?): entries[i].stamp = stamp
            case (true, nil): entries.remove(at: i)
            case (false, let stamp?): entries.insert(Entry(name: name, stamp: stamp), at: i)
            case (false, nil): break
            }
        }
    }

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

    package func encoded() -> [UInt8] {
        var size = 4
        for entry in entries { size += 4 + entry.name.utf8.count + 20 }
        return [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            var at = 0
            func put<T: FixedWidthInteger>(_ v: T) {
                raw.storeBytes(of: v.littleEndian, toByteOffset: at, as: T.self)
                at += MemoryLayout<T>.size
            }
            put(UInt32(entries.count))
            for entry in entries {
                var name = entry.name
                name.withUTF8 { bytes in
                    put(UInt32(bytes.count))
                    if let source = bytes.baseAddress, bytes.count > 0 {
                        raw.baseAddress!.advanced(by: at).copyMemory(from: source, byteCount: bytes.count)
                        at += bytes.count
                    }
                }
                put(entry.stamp.timestamp.milliseconds)
                put(entry.stamp.timestamp.counter)
                put(entry.stamp.originFileIdent)
            }
            count = at
        }
    }

    /// Decodes ``encoded()``; malformed bytes give no clocks (every write then wins once).
    /// Names out of order or repeated (never written so) are put in order, the later
    /// of a repeated name's stamps kept.
    package init(decoding bytes: [UInt8]) {
        let decoded: [Entry]? = bytes.withUnsafeBytes { raw in
            var i = 0
            func u32() -> UInt32? {
                guard raw.count - i >= 4 else { return nil }
                defer { i += 4 }
                return UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt32.self))
            }
            func u64() -> UInt64? {
                guard raw.count - i >= 8 else { return nil }
                defer { i += 8 }
                return UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            }
            guard let count = u32(), Int(count) <= raw.count / 24 else { return nil }
            var entries: [Entry] = []
            entries.reserveCapacity(Int(count))
            for _ in 0..<count {
                guard let n = u32(), Int(n) <= raw.count - i else { return nil }
                let name = String(decoding: UnsafeRawBufferPointer(rebasing: raw[i..<i + Int(n)]), as: UTF8.self)
                i += Int(n)
                guard let ms = u64(), let counter = u32(), let ident = u64() else { return nil }
                entries.append(Entry(name: name, stamp: WriteStamp(
                    timestamp: WireHybridTimestamp(milliseconds: ms, counter: counter), originFileIdent: ident)))
            }
            return entries
        }
        guard let decoded else { return }
        if zip(decoded, decoded.dropFirst()).allSatisfy({ $0.name < $1.name }) {
            entries = decoded
        } else {
            for entry in decoded { self[entry.name] = entry.stamp }
        }
    }

    package init() {}

    /// Forgets the stamps of an embedded object and of everything inside it (`prefix`
    /// is its path, ``EmbeddedPaths/clockPrefix(_:)``): a new object at that place
    /// starts with no history.
    package mutating func removeStamps(under prefix: String) {
        let dot = prefix + ".", bracket = prefix + "["
        entries.removeAll { $0.name.hasPrefix(dot) || $0.name.hasPrefix(bracket) }
    }
}
