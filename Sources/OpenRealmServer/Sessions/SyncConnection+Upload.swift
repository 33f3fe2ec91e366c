import Foundation
import OpenRealm
import OpenRealmWire

/// Upload messages: integrate each changeset in its own write transaction (durable on
/// commit), fan the result out to the other sessions whose view it touches, then
/// acknowledge the upload with a progress download.
extension SyncConnection {
    func upload(_ session: SyncSession, _ m: WireUpload) {
        let app = session.app
        let store = app.store
        do {
            try store.withLock {
                // Another session of the same file (a connection the client dropped,
                // whose upload the server is still reading) may have integrated some of
                // these changesets since this session bound: the file's record decides.
                if let file = try store.clientFile(ident: session.fileIdent) {
                    session.lastIntegratedClientVersion = max(session.lastIntegratedClientVersion, file.lastIntegratedClientVersion)
                }
                let memo = ConcurrentMemo()
                var previous: UInt64 = 0
                for changeset in m.changesets {
                    guard changeset.clientVersion > previous else {
                        throw SyncFailure(.badProgress, "client version \(changeset.clientVersion) does not increase (after \(previous))")
                    }
                    previous = changeset.clientVersion
                    // Already integrated (a re-upload after a reconnect): skip.
                    if changeset.clientVersion <= session.lastIntegratedClientVersion { continue }
                    guard changeset.lastIntegratedServerVersion <= store.serverVersion else {
                        throw SyncFailure(.badProgress, "changeset \(changeset.clientVersion) was made after server version \(changeset.lastIntegratedServerVersion), which the server never produced (it is at \(store.serverVersion))")
                    }
                    try integrate(session, changeset, memo: memo)
                    metrics.increment("openrealm_changesets_integrated_total")
                }
                // Trimming failing loses nothing: the history is kept and trimmed later.
                do {
                    try store.trimHistoryIfDue(retentionSeconds: app.configuration.clientRetentionSeconds,
                                               interval: app.configuration.historyTrimIntervalVersions,
                                               bound: Set(app.sessions.values.map(\.fileIdent)))
                } catch {
                    logger.error("history trimming failed", metadata: ["app": "\(store.appId)", "error": "\(error)"])
                }
                session.send(session.download([], serverVersion: store.serverVersion))
            }
        } catch let failure as SyncFailure {
            fail(session.number, failure)
        } catch {
            fail(session.number, SyncFailure(.badChangeset, "upload failed: \(error)"))
        }
    }

    /// Objects whose writes turned out to be refused once the changeset was applied
    /// (the transaction is aborted and the changeset integrated again without them).
    private struct LateRefusals: Error {
        var writes: [WireObjectRef: String]
    }

    /// Integrates one changeset and fans it out. Call with the app's lock held.
    ///
    /// Writes the session may not make (``WriteAuthorizer``) are left out; the origin
    /// then gets a `writeNotAllowed` error naming each object and why, and a download
    /// (origin 0) that reverts them. An object found refused only after the changeset
    /// was applied makes the integration start again without it, so each attempt
    /// refuses at least one more object and the loop ends.
    private func integrate(_ session: SyncSession, _ changeset: WireUploadChangeset, memo: ConcurrentMemo) throws {
        var refused: [WireObjectRef: String] = [:]
        while true {
            do {
                try integrate(session, changeset, refusing: refused, memo: memo)
                return
            } catch let late as LateRefusals {
                refused.merge(late.writes) { first, _ in first }
            }
        }
    }

    private func integrate(_ session: SyncSession, _ changeset: WireUploadChangeset,
                           refusing alreadyRefused: [WireObjectRef: String], memo: ConcurrentMemo) throws {
        let app = session.app
        let version = app.store.serverVersion + 1
        var fanOut: ChangesetFanOut?
        let others = app.sessions.values.filter { $0 !== session }
        let authorizer = WriteAuthorizer(view: session.view)
        var refused = alreadyRefused
        var reply: [WireInstruction] = []
        var originView = session.viewObjects
        var objects: [WireObjectRef] = []
        var seen: Set<WireObjectRef> = []
        for instruction in changeset.instructions {
            if let ref = instruction.topLevelObject, seen.insert(ref).inserted { objects.append(ref) }
        }
        try app.store.environment.write { txn in
            let schemaBefore = try AppStore.querySchema(txn)
            for ref in objects where refused[ref] == nil {
                if let why = try authorizer.refusal(txn, schema: schemaBefore, ref, at: .before) { refused[ref] = why }
            }
            var allowed = changeset.instructions.filter { $0.topLevelObject.map { refused[$0] == nil } ?? true }
            let listEdits = allowed.filter { ListTransform.list(of: $0) != nil }
            var resentSince: Set<WireObjectRef> = []
            if !listEdits.isEmpty {
                allowed = ListTransform.transform(allowed, against: try Self.concurrentInstructions(
                    txn, origin: session.fileIdent, after: changeset.lastIntegratedServerVersion, through: version - 1, memo: memo))
                resentSince = try Self.resentWhole(txn, to: session.fileIdent, after: changeset.lastIntegratedServerVersion,
                                                   through: version - 1)
            }
            var integrator = Integrator(txn: txn, developmentMode: app.configuration.developmentMode,
                                        stamp: WriteStamp(timestamp: changeset.timestamp, originFileIdent: session.fileIdent),
                                        serverVersion: version)
            integrator.partition = session.view.partition
            let applied = try integrator.apply(allowed)
            let schema = try AppStore.querySchema(txn)
            var late: [WireObjectRef: String] = [:]
            for ref in objects where refused[ref] == nil {
                if let why = try authorizer.refusal(txn, schema: schema, ref, at: .after) { late[ref] = why }
            }
            if !late.isEmpty { throw LateRefusals(writes: late) }
            // What the origin gets back: refused objects as the server has them (or
            // erased when it may not hold them), and the partition values stamped.
            for ref in objects where refused[ref] != nil {
                if let (cls, key) = try session.view.contains(txn, schema: schema, ref) {
                    reply += try ObjectSnapshot.instructions(txn, cls, key: key, clearingEveryCollection: true)
                } else {
                    reply.append(.eraseObject(WireObjectPath(ref)))
                }
            }
            // A changeset made before the origin's last bootstrap, which was computed
            // without it: the objects it touches that the bootstrap sent whole lack it
            // there (their collections' resets won over its list edits on the client),
            // so they go back whole as the server now has them.
            // Likewise an object the origin got back whole (a compensation) after the
            // changeset was made: that copy's cleared collections won over the
            // changeset's list edits there, which the server has.
            let beforeBootstrap = changeset.lastIntegratedServerVersion < session.viewServerVersion
            if beforeBootstrap || !resentSince.isEmpty {
                for ref in objects where refused[ref] == nil
                    && ((beforeBootstrap && session.viewSnapshots.contains(ref)) || resentSince.contains(ref)) {
                    if let (cls, key) = try session.view.contains(txn, schema: schema, ref) {
                        reply += try ObjectSnapshot.instructions(txn, cls, key: key, clearingEveryCollection: true)
                    }
                }
            }
            if let partition = session.view.partition {
                for ref in integrator.stamped where refused[ref] == nil {
                    reply.append(.set(object: WireObjectPath(ref), property: partition.field, value: partition.value.value))
                }
            }
            for ref in objects {
                if try session.view.contains(txn, schema: schema, ref) != nil { originView.insert(ref) } else { originView.remove(ref) }
            }
            try AppStore.appendHistory(txn, HistoryEntry(
                serverVersion: version, originFileIdent: session.fileIdent, originClientVersion: changeset.clientVersion,
                timestamp: changeset.timestamp, integratedAt: AppStore.nowMilliseconds,
                changeset: try WireChangeset(applied).encoded(),
                compensation: reply.isEmpty ? [] : try WireChangeset(reply).encoded(),
                uploadedListEdits: listEdits.isEmpty ? [] : try WireChangeset(listEdits).encoded(),
                originServerVersion: changeset.lastIntegratedServerVersion))
            try txn.updateRow("__client_files", .int(Int64(session.fileIdent)),
                              ["lastIntegratedClientVersion": .int(Int64(changeset.clientVersion))])
            try AppStore.recordUpload(txn, ident: session.fileIdent, base: changeset.lastIntegratedServerVersion, version: version)
            fanOut = try ChangesetFanOut(applied, to: others, txn, schema)
        }
        app.store.didCommit(serverVersion: version)
        session.lastIntegratedClientVersion = changeset.clientVersion
        session.viewObjects = originView
        if !refused.isEmpty {
            let writes = objects.compactMap { ref in refused[ref].map { WireRejectedWrite(object: ref, reason: $0) } }
            session.send(.error(WireErrorMessage(
                session: session.number, code: .writeNotAllowed,
                message: "client version \(changeset.clientVersion): \(writes.count) write(s) reverted: "
                    + writes.map(\.reason).joined(separator: "; "),
                isFatal: false, compensatingWrite: WireCompensatingWrite(serverVersion: version, writes: writes))))
        }
        if !reply.isEmpty {
            session.send(session.download([WireDownloadChangeset(
                serverVersion: version, lastIntegratedClientVersion: changeset.clientVersion,
                timestamp: changeset.timestamp.advanced(to: UInt64(max(0, AppStore.nowMilliseconds))),
                instructions: reply)], serverVersion: version))
        }
        fanOut?.send(serverVersion: version, originFileIdent: session.fileIdent, originClientVersion: changeset.clientVersion,
                     timestamp: changeset.timestamp)
    }

    /// The instructions other clients' changesets integrated after server version `after`
    /// (which the origin had not seen when it made its changeset), in server order, as
    /// they apply on the origin's copy: where the origin's own changesets were integrated
    /// in between, the others' list instructions before them are carried past them (they
    /// are transformed against the origin's list edits as it uploaded them, since its
    /// next changeset was made after those).
    ///
    /// Only instructions that can move list indices are returned (list edits, object
    /// erases, instructions on embedded objects); sets of top-level fields cannot.
    static func concurrentInstructions(_ txn: StoreTransaction, origin: UInt64, after: UInt64,
                                       through last: UInt64, memo: ConcurrentMemo = ConcurrentMemo()) throws -> [WireInstruction] {
        try concurrentRange(txn, origin: origin, after: after, through: last, memo: memo.forOrigin(origin))
    }

    /// What ``concurrentInstructions(_:origin:after:through:memo:)`` computed, by the
    /// origin and the version it starts after: the instructions through a version. Used
    /// within one app lock (one upload), during which the history only grows: the
    /// changesets of an upload made at one server version each need that range, one
    /// version longer each time, and the ranges the origin's own earlier changesets need
    /// nest inside, so computing each from scratch would take time growing with the
    /// square (or worse) of how far the origin lags.
    final class ConcurrentMemo {
        fileprivate var ranges: [UInt64: [UInt64: (last: UInt64, out: [WireInstruction])]] = [:]
        fileprivate var origin: UInt64 = 0

        init() {}

        fileprivate func forOrigin(_ origin: UInt64) -> ConcurrentMemo {
            self.origin = origin
            return self
        }
    }

    /// Whether a concurrent instruction can move the index of a list instruction.
    private static func movesListIndices(_ instruction: WireInstruction) -> Bool {
        if ListTransform.list(of: instruction) != nil { return true }
        if case .eraseObject = instruction { return true }
        return !(instruction.objectPath?.path.isEmpty ?? true)
    }

    private static func concurrentRange(_ txn: StoreTransaction, origin: UInt64, after: UInt64, through last: UInt64,
                                        memo: ConcurrentMemo) throws -> [WireInstruction] {
        let known = memo.ranges[origin]?[after]
        if let known, known.last == last { return known.out }
        let floor = try AppStore.historyFloor(txn)
        if after > 0 && after < floor {
            throw SyncFailure(.clientResetRequired, "the changeset was made after server version \(after), but the history after it was trimmed up to version \(floor); reset the file")
        }
        // A file that had integrated nothing (after 0) made its changes on its own new objects.
        var first = max(after, floor) + 1
        var out: [WireInstruction] = []
        if let known, known.last < last {
            first = known.last + 1
            out = known.out
        }
        guard first <= last else { return out }
        for version in first...last {
            guard let entry = try AppStore.historyEntry(txn, version) else {
                throw SyncFailure(.clientResetRequired, "the history after server version \(after) was trimmed; reset the file")
            }
            guard entry.originFileIdent != origin else {
                if !entry.uploadedListEdits.isEmpty, !out.isEmpty {
                    // The origin's edits as it held them once it had integrated `after`:
                    // made earlier, they were carried past what it integrated since.
                    var edits = try WireChangeset(decoding: entry.uploadedListEdits).instructions
                    if let madeAt = entry.originServerVersion, madeAt < after {
                        edits = ListTransform.transform(edits, against: try concurrentRange(
                            txn, origin: origin, after: madeAt, through: after, memo: memo))
                    }
                    out = ListTransform.transform(out, against: edits, incomingWinsTies: true)
                }
                continue
            }
            out += try WireChangeset(decoding: entry.changeset).instructions.filter(movesListIndices)
        }
        memo.ranges[origin, default: [:]][after] = (last, out)
        return out
    }

    /// The objects the server sent back whole to client file `origin` (compensations of
    /// its own changesets, every collection cleared first) in server versions
    /// `after + 1 ... last`. Pending list edits of the origin made before such a copy
    /// arrived lost to its clears there (`docs/CONFLICTS.md`, "Lists").
    static func resentWhole(_ txn: StoreTransaction, to origin: UInt64, after: UInt64,
                            through last: UInt64) throws -> Set<WireObjectRef> {
        let first = max(after, try AppStore.historyFloor(txn)) + 1
        guard first <= last else { return [] }
        var out: Set<WireObjectRef> = []
        for version in first...last {
            guard let entry = try AppStore.historyEntry(txn, version), entry.originFileIdent == origin,
                  !entry.compensation.isEmpty else { continue }
            for instruction in try WireChangeset(decoding: entry.compensation).instructions {
                if case .clearCollection = instruction, let ref = instruction.topLevelObject { out.insert(ref) }
            }
        }
        return out
    }
}
