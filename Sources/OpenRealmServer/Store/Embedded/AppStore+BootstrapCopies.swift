import Foundation
import OpenRealmWire

/// What the server sent a client file whole — in bootstraps, and back with its uploads
/// (compensations) — kept across sessions and restarts.
///
/// An object sent whole overwrites, on the client, the edits of its changesets not
/// uploaded yet; when the server later integrates such a changeset it sends the object
/// back whole as the server then holds it (`docs/SERVER.md`, "View changes and
/// re-binds"). The changeset may be integrated in a later session than the copy (the
/// connection dropped, the server restarted), so what was sent is stored with the file,
/// not kept by the session.
///
/// A changeset based on server version `b` was overwritten on object `o` when a copy
/// after `b` sent `o` whole. So per object only the version of the last bootstrap that
/// sent it matters, and a bootstrap of the whole view (a new file, changed read rules)
/// stands for every object. Versions at or below the file's upload base are dropped: no
/// later changeset of the file is based below it (`AppStore+Trimming.swift`).
///
/// Stored as the metadata value `server.copies.<file>`: the whole-view version (u64),
/// the number of objects (u32), their versions (u64 each), then the objects as an
/// encoded changeset of one `eraseObject` per object (the store's one encoding of object
/// references); integers little-endian.
package struct BootstrapCopies: Equatable, Sendable {
    /// The server version of the file's last bootstrap of its whole view; 0 for none.
    private(set) var wholeViewVersion: UInt64 = 0
    /// Per object, the server version of the last bootstrap that sent it whole, when
    /// later than ``wholeViewVersion``.
    private(set) var objects: [WireObjectRef: UInt64] = [:]
    /// The version of the last copy recorded; 0 for none.
    private(set) var lastVersion: UInt64 = 0

    static func metaName(_ ident: UInt64) -> String { "server.copies.\(ident)" }

    /// Whether a changeset based on `base` was overwritten on `ref` by a bootstrap.
    func sentWhole(_ ref: WireObjectRef, after base: UInt64) -> Bool {
        wholeViewVersion > base || (objects[ref] ?? 0) > base
    }


    /// Records what server version `version` sent whole: `sent`, or the whole view when
    /// nil.
    mutating func record(version: UInt64, sent: Set<WireObjectRef>?) {
        lastVersion = max(lastVersion, version)
        guard let sent else {
            wholeViewVersion = version
            objects = [:]
            return
        }
        for ref in sent { objects[ref] = version }
    }

    /// Forgets what no changeset based at or above `base` can need.
    mutating func drop(through base: UInt64) {
        if wholeViewVersion <= base { wholeViewVersion = 0 }
        objects = objects.filter { $0.value > base }
        lastVersion = max(wholeViewVersion, objects.values.max() ?? 0)
    }

    /// The file's record, empty when it has none.
    ///
    /// - Throws: `StoreError` when the stored value is damaged.
    static func read(_ txn: StoreTransaction, ident: UInt64) throws -> BootstrapCopies {
        guard let bytes = try txn.metaBytes(metaName(ident)), !bytes.isEmpty else { return BootstrapCopies() }
        guard let copies = BootstrapCopies(decoding: bytes) else {
            throw StoreError(status: 0, "metadata '\(metaName(ident))' is damaged")
        }
        return copies
    }

    /// Stores the record (deletes it when empty).
    func write(_ txn: StoreTransaction, ident: UInt64) throws {
        try txn.setMeta(Self.metaName(ident), bytes: self == BootstrapCopies() ? [] : try encoded())
    }

    package func encoded() throws -> [UInt8] {
        let ordered = objects.sorted { $0.key.description < $1.key.description }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(12 + 8 * ordered.count)
        func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }
        append(wholeViewVersion)
        append(UInt32(ordered.count))
        for (_, version) in ordered { append(version) }
        bytes += try WireChangeset(ordered.map { .eraseObject(WireObjectPath($0.key)) }).encoded()
        return bytes
    }

    package init() {}

    /// Decodes a stored record; nil when the bytes are not one.
    package init?(decoding bytes: [UInt8]) {
        func integer<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T? {
            let size = MemoryLayout<T>.size
            guard offset >= 0, offset + size <= bytes.count else { return nil }
            var value: T = 0
            for i in 0..<size { value |= T(bytes[offset + i]) << (8 * i) }
            return value
        }
        guard let whole = integer(UInt64.self, at: 0), let count = integer(UInt32.self, at: 8),
              12 + 8 * Int(count) <= bytes.count else { return nil }
        var versions: [UInt64] = []
        versions.reserveCapacity(Int(count))
        for i in 0..<Int(count) {
            guard let version = integer(UInt64.self, at: 12 + 8 * i) else { return nil }
            versions.append(version)
        }
        guard let changeset = try? WireChangeset(decoding: Array(bytes[(12 + 8 * Int(count))...])),
              changeset.instructions.count == versions.count else { return nil }
        var objects: [WireObjectRef: UInt64] = [:]
        for (instruction, version) in zip(changeset.instructions, versions) {
            guard case .eraseObject = instruction, let ref = instruction.topLevelObject else { return nil }
            objects[ref] = version
        }
        wholeViewVersion = whole
        self.objects = objects
        lastVersion = max(whole, objects.values.max() ?? 0)
    }
}
