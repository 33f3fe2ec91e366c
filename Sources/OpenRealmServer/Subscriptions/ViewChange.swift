import Foundation
import OpenRealmWire

/// View changes: what enters a session's view is sent whole, what leaves it is erased,
/// as a bootstrap of the view's query version (a new subscription set, or a
/// partition-based session's first view).
enum ViewChange {
    /// The largest bootstrap batch, in encoded instruction bytes.
    static let bootstrapBatchBytes = 1 << 20
    /// The most objects whose images are read at once for a bootstrap.
    static let imageBatch = 256

    /// Makes `view` the session's view and sends the bootstrap that brings the client
    /// there. Call with the app's lock held.
    ///
    /// What the client holds is known exactly once the session has had a view. For the
    /// first view of a session whose client file completed a view before (at server
    /// version `S`, recorded in `__client_files`) and has integrated at least up to `S`
    /// (the bind's `lastIntegratedServerVersion` `L`), the client holds that earlier
    /// view as of `L`: since views depend on an object's own fields only, objects no
    /// history entry after `L` touched are held exactly when they match the earlier
    /// view now, and only the touched ones are resent (whole when in the new view, as
    /// an `eraseObject` otherwise, which has no effect on a client that lacks the
    /// object). Otherwise the whole view is sent.
    ///
    /// Each view change takes a server version of its own (an empty history entry), so
    /// that a client's `lastIntegratedServerVersion` tells whether it integrated the
    /// bootstrap.
    static func apply(_ session: ServerSession, to view: SubscriptionView, metrics: ServerMetrics) throws {
        var version: UInt64 = 0
        var instructions: [WireInstruction] = []
        var viewObjects: Set<WireObjectRef> = []
        var snapshots: Set<WireObjectRef> = []
        let record = try ViewRecord(view)
        try session.app.storage.withAppWriteLock { txn in
            // Other engines' versions first (a shared store), and this one after them.
            try session.app.catchUp(in: txn)
            version = session.app.serverVersion + 1
            try session.app.recordPendingProgress(txn)
            let schema = try txn.schema()
            let objects = try view.objects(txn, schema: schema)
            viewObjects = objects
            var held: Set<WireObjectRef> = []
            var uncertain: Set<WireObjectRef> = []
            if session.hasHadView {
                held = session.viewObjects
            } else if let found = try earlierView(session, txn, current: view) {
                // What only the client's own changesets touched it holds as the server
                // does, when still in the view; the rest is sent (or erased) again.
                let ownInView = found.ownOnly.filter { objects.contains($0) }
                uncertain = found.touched.union(found.ownOnly.subtracting(ownInView))
                held = try found.view.objects(txn, schema: schema).subtracting(uncertain).union(ownInView)
            }
            // In the order of the references' text, each text made once (not once per
            // comparison); each sent whole, clearing its collections when the client's
            // copy is uncertain.
            let sent = objects.filter { uncertain.contains($0) || !held.contains($0) }
                .map { ($0.description, $0) }.sorted { $0.0 < $1.0 }.map(\.1)
            // Read a batch of images at a time: the instructions are kept, the images not.
            for start in stride(from: 0, to: sent.count, by: Self.imageBatch) {
                for image in try txn.images(Array(sent[start..<min(start + Self.imageBatch, sent.count)])) {
                    instructions += ObjectSnapshot.instructions(image, clearingEveryCollection: uncertain.contains(image.ref))
                    snapshots.insert(image.ref)
                }
            }
            for (_, ref) in held.union(uncertain).filter({ !objects.contains($0) }).map({ ($0.description, $0) }).sorted(by: { $0.0 < $1.0 }) {
                instructions.append(.eraseObject(WireObjectPath(ref)))
            }
            try txn.appendHistory(HistoryEntry(
                serverVersion: version, originFileIdent: 0, originClientVersion: 0,
                timestamp: WireHybridTimestamp(milliseconds: UInt64(max(0, StorageConventions.nowMilliseconds))),
                integratedAt: StorageConventions.nowMilliseconds, changeset: try WireChangeset([]).encoded()))
            try txn.setCompletedView(session.fileIdent, CompletedView(serverVersion: version, record: record.encoded))
            // What this bootstrap overwrote on the client, for the changesets it made
            // before and uploads later, in this session or another (``BootstrapCopies``).
            if !snapshots.isEmpty {
                var copies = try txn.bootstrapCopies(session.fileIdent)
                copies.drop(through: try txn.uploadBase(session.fileIdent))
                copies.record(version: version, sent: held.isEmpty && uncertain.isEmpty ? nil : snapshots)
                try txn.setBootstrapCopies(copies, for: session.fileIdent)
            }
        }
        session.app.didCommit(serverVersion: version)
        session.view = view
        session.viewObjects = viewObjects
        session.hasHadView = true
        metrics.syncWork.bootstrapObjects.record(snapshots.count)
        try sendBootstrap(session, instructions, serverVersion: version, metrics: metrics)
    }

    /// The view the session's client file completed before this session, with the
    /// objects history entries touched since the bind's `lastIntegratedServerVersion`;
    /// nil when it is unknown (no earlier view, not integrated, or the user's read
    /// rules or the partition changed since).
    ///
    /// `touched` holds what other origins' changesets and view changes touched, and what
    /// the server sent this file back whole; `ownOnly` what only the file's own
    /// changesets touched. The client holds those as the server does: it made them, and
    /// each was merged with what others did before it exactly as during a session, where
    /// the server sends a client's own changesets nothing back
    /// (`docs/SERVER.md`, "View changes and re-binds").
    private static func earlierView(_ session: ServerSession, _ txn: some ClientFileReading & HistoryReading,
                                    current: SubscriptionView) throws
        -> (view: SubscriptionView, touched: Set<WireObjectRef>, ownOnly: Set<WireObjectRef>)? {
        let since = session.bindServerVersion
        guard since > 0, let completed = try txn.completedView(session.fileIdent), since >= completed.serverVersion,
              let record = ViewRecord(decoding: completed.record),
              let earlier = record.view(like: current) else { return nil }
        var touched: Set<WireObjectRef> = []
        var own: Set<WireObjectRef> = []
        var version = since + 1
        while version <= session.app.serverVersion {
            defer { version += 1 }
            guard let entry = try txn.historyEntry(version) else { return nil }
            let isOwn = entry.originFileIdent == session.fileIdent
            for instruction in try WireChangeset(decoding: entry.changeset).instructions {
                if let ref = instruction.topLevelObject {
                    if isOwn { own.insert(ref) } else { touched.insert(ref) }
                }
            }
            if isOwn, !entry.compensation.isEmpty {
                for instruction in try WireChangeset(decoding: entry.compensation).instructions {
                    if let ref = instruction.topLevelObject { touched.insert(ref) }
                }
            }
        }
        return (earlier, touched, own.subtracting(touched))
    }

    /// Sends `instructions` as a bootstrap of the session's query version, in batches
    /// of about ``bootstrapBatchBytes``; always at least one (possibly empty) last batch.
    /// Each batch's `downloadableBytes` is the encoded size of the batches after it
    /// (their changesets' `instructions` fields, `docs/PROTOCOL.md` §5.1), so that the
    /// client can report the bootstrap's progress.
    ///
    /// The batches go out as one ``BootstrapStream``: the transport makes each download
    /// when it is ready to write it (``OutboundFrameQueue``), so a bootstrap larger than
    /// the outgoing queue's bound streams to a client that reads it.
    private static func sendBootstrap(_ session: ServerSession, _ instructions: [WireInstruction], serverVersion: UInt64,
                                      metrics: ServerMetrics) throws {
        var batches: [[WireInstruction]] = [[]]
        // Per batch: the instructions' bytes without the one-byte count each lone encoding has.
        var instructionBytes: [Int] = [0]
        var size = 0
        for instruction in instructions {
            let bytes = try WireChangeset([instruction]).encoded().count
            if size + bytes > Self.bootstrapBatchBytes && !batches[batches.count - 1].isEmpty {
                batches.append([])
                instructionBytes.append(0)
                size = 0
            }
            batches[batches.count - 1].append(instruction)
            instructionBytes[instructionBytes.count - 1] += bytes - 1
            size += bytes
        }
        // A batch is sent as one changeset: a varint count, then its instructions.
        let batchBytes = zip(batches, instructionBytes).map { batch, bytes in
            batch.isEmpty ? 0 : bytes + Self.varintSize(UInt64(batch.count))
        }
        var remaining = UInt64(batchBytes.reduce(0, +))
        metrics.syncWork.bootstrapBytes.record(remaining)
        let now = WireHybridTimestamp(milliseconds: UInt64(max(0, StorageConventions.nowMilliseconds)))
        let after = batchBytes.map { bytes -> UInt64 in
            remaining -= UInt64(bytes)
            return remaining
        }
        session.output(.stream(BootstrapStream(
            batches: batches, remaining: after, session: session.number, queryVersion: session.view.queryVersion,
            serverVersion: serverVersion, lastIntegratedClientVersion: session.lastIntegratedClientVersion, timestamp: now)))
    }

    /// The bytes of `value` as a protocol varint (`docs/PROTOCOL.md` §3.1).
    static func varintSize(_ value: UInt64) -> Int {
        var v = value
        var n = 1
        while v >= 0x80 { v >>= 7; n += 1 }
        return n
    }
}
