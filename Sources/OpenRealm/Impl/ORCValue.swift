import Foundation
import ORCore

extension orc_value {
    init(type: orc_type) {
        self.init()
        self.type = type
    }

    static func bool(_ v: Bool) -> orc_value { var r = orc_value(type: ORC_TYPE_BOOL); r.boolean = v; return r }
    static func int(_ v: Int64) -> orc_value { var r = orc_value(type: ORC_TYPE_INT); r.integer = v; return r }
    static func float(_ v: Float) -> orc_value { var r = orc_value(type: ORC_TYPE_FLOAT); r.fnum = v; return r }
    static func double(_ v: Double) -> orc_value { var r = orc_value(type: ORC_TYPE_DOUBLE); r.dnum = v; return r }
    static func timestamp(_ v: orc_timestamp) -> orc_value { var r = orc_value(type: ORC_TYPE_TIMESTAMP); r.timestamp = v; return r }
    static func decimal(_ v: Decimal128) -> orc_value {
        var r = orc_value(type: ORC_TYPE_DECIMAL)
        r.decimal = orc_decimal128(w: (v.bidLow, v.bidHigh))
        return r
    }
    static func objectId(_ v: ObjectId) -> orc_value { var r = orc_value(type: ORC_TYPE_OBJECT_ID); r.object_id = v.orcBytes; return r }
    static func uuid(_ v: UUID) -> orc_value { var r = orc_value(type: ORC_TYPE_UUID); r.uuid = v.uuid; return r }
    static func link(_ table: UInt32, _ key: UInt64) -> orc_value {
        var r = orc_value(type: ORC_TYPE_LINK)
        r.link.table = table
        r.link.key = key
        return r
    }
    static var null: orc_value { orc_value(type: ORC_TYPE_NULL) }
}

/// Scratch memory for the bytes of strings and binaries handed to ORCore. Chunks are
/// never moved, so pointers stay valid until `reset()`.
final class ByteArena {
    private var chunks: [UnsafeMutableRawPointer] = []
    private var current: UnsafeMutableRawPointer?
    private var used = 0
    private var capacity = 0
    private static let chunkSize = 64 * 1024

    deinit {
        for chunk in chunks { free(chunk) }
    }

    /// Forgets every allocation; keeps the first chunk for reuse, so a write of small
    /// values allocates nothing.
    func reset() {
        guard !chunks.isEmpty else { return }
        if chunks.count > 1 || capacity != Self.chunkSize {
            for chunk in chunks.dropFirst() { free(chunk) }
            chunks.removeSubrange(1...)
        }
        current = chunks[0]
        capacity = Self.chunkSize
        used = 0
    }

    private func allocate(_ size: Int) -> UnsafeMutableRawPointer {
        if size > capacity - used || current == nil {
            let chunkSize = max(size, Self.chunkSize)
            let chunk = malloc(max(chunkSize, 1))!
            if chunks.isEmpty && chunkSize != Self.chunkSize {
                // Keep the reusable first chunk at the standard size.
                chunks.append(malloc(Self.chunkSize)!)
            }
            chunks.append(chunk)
            current = chunk
            used = 0
            capacity = chunkSize
        }
        let pointer = current! + used
        used += size
        return pointer
    }

    func string(_ s: String) -> orc_value {
        var value = orc_value(type: ORC_TYPE_STRING)
        var s = s
        s.withUTF8 { bytes in
            let p = allocate(bytes.count)
            if bytes.count > 0 { p.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count) }
            value.string.data = UnsafeRawPointer(p).assumingMemoryBound(to: CChar.self)
            value.string.size = bytes.count
        }
        return value
    }

    func binary(_ d: Data) -> orc_value {
        var value = orc_value(type: ORC_TYPE_BINARY)
        let p = allocate(d.count)
        d.withUnsafeBytes { bytes in
            if bytes.count > 0 { p.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count) }
        }
        value.string.data = UnsafeRawPointer(p).assumingMemoryBound(to: CChar.self)
        value.string.size = d.count
        return value
    }

    /// A NUL-terminated copy (for names and dictionary keys).
    func cString(_ s: String) -> UnsafePointer<CChar> {
        var s = s
        return s.withUTF8 { bytes in
            let p = allocate(bytes.count + 1)
            if bytes.count > 0 { p.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count) }
            p.storeBytes(of: 0, toByteOffset: bytes.count, as: UInt8.self)
            return UnsafePointer(p.assumingMemoryBound(to: CChar.self))
        }
    }
}

/// What a value needs while being written: the realm (to add linked objects), the
/// update policy for those objects, and scratch memory for bytes.
public final class _ORWriteContext {
    /// Unowned: a realm keeps its `add` context (``Realm/addContext(_:)``), and every
    /// other context lives inside a call on its realm.
    unowned let realm: Realm?
    let policy: Realm.UpdatePolicy
    let arena: ByteArena
    /// Set by `create`: unmanaged objects given as values are copied, not added.
    var copiesObjects = false

    init(realm: Realm?, policy: Realm.UpdatePolicy, arena: ByteArena) {
        self.realm = realm
        self.policy = policy
        self.arena = arena
    }
}
