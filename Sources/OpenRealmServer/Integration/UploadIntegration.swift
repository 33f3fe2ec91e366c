import Foundation
import Logging
import OpenRealmQuery
import OpenRealmSyncCore
import OpenRealmWire

/// The upload path, from an app's waiting uploads to the store and out to the other
/// sessions, with group commit: the uploads waiting for an app (from one connection or
/// several) are integrated in one write transaction, durable on commit; then, in server
/// version order, each integrated changeset is fanned out to the other sessions whose
/// view it touches, and each upload is acknowledged with a progress download. Each
/// client changeset still takes a server version and a history entry of its own.
///
/// One changeset's integration (``integrateChangeset(_:_:_:refusing:copies:version:others:)``):
/// authorize its objects (``WriteAuthorizer``), transform its list edits against the
/// concurrent ones (``ConcurrentEdits``, ``ListTransform``), apply (``Integrator``),
/// authorize again what applying revealed, compensate what was refused, send back
/// whole copies owed (``WholeCopies``), record the history entry, and compute the
/// fan-out (``ChangesetFanOut``).
enum UploadIntegration {
    /// The most changesets integrated in one write transaction.
    static let groupCommitChangesets = 256
    /// The most changesets of one upload integrated in one write transaction: a larger
    /// upload (a client far behind, sending its backlog) is integrated in parts, each
    /// durable and acknowledged on its own, with the app's lock released in between —
    /// other clients' uploads go on meanwhile, and a server stopped in the middle keeps
    /// what was committed (the client resends only the rest).
    static let uploadPartChangesets = 64

    /// `upload` cut into uploads of at most ``uploadPartChangesets`` changesets, in
    /// order (an upload without changesets stays one: it still gets its acknowledgement).
    static func parts(of upload: WireUpload) -> [WireUpload] {
        guard upload.changesets.count > uploadPartChangesets else { return [upload] }
        return stride(from: 0, to: upload.changesets.count, by: uploadPartChangesets).map { start in
            var part = upload
            part.changesets = Array(upload.changesets[start..<min(start + uploadPartChangesets, upload.changesets.count)])
            return part
        }
    }

    /// Integrates `jobs` and acknowledges them, marking each done. Call with the app's
    /// lock held.
    ///
    /// All of them go in one write transaction. When anything in it fails (a refused
    /// changeset, a write found refused only once applied), it is aborted, the sessions'
    /// state is put back, and each upload is integrated on its own, one transaction per
    /// changeset, as before group commit: a bad upload fails its own session only.
    static func integrate(_ jobs: [UploadJob], app: SyncApp, logger: Logger) {
        guard !jobs.isEmpty else { return }
        // One server's jobs: they share its metrics.
        let metrics = jobs[0].metrics
        let sessions = app.boundSessions
        let involved = sessions + jobs.map(\.session)
        let saved = involved.map { ($0, $0.lastIntegratedClientVersion) }
        defer { for session in involved { session.endViewJournal() } }
        var integrated: [IntegratedChangeset] = []
        var integratedAt = ContinuousClock.now
        do {
            let last = try app.storage.withAppWriteLock { txn -> UInt64 in
                // Other engines' versions first (a shared store): delivered whether or
                // not this transaction commits, so not journaled.
                try app.catchUp(in: txn)
                for session in involved { session.beginViewJournal() }
                try app.recordPendingProgress(txn)
                var version = app.serverVersion
                for job in jobs {
                    let session = job.session
                    if let file = try txn.clientFile(session.fileIdent) {
                        session.lastIntegratedClientVersion = max(session.lastIntegratedClientVersion, file.lastIntegratedClientVersion)
                    }
                    try checkOrder(job.upload)
                    var copies = WholeCopies(job.upload)
                    for changeset in job.upload.changesets where changeset.clientVersion > session.lastIntegratedClientVersion {
                        try checkBase(changeset, serverVersion: version)
                        let started = ContinuousClock.now
                        let result = try integrateChangeset(txn, session, changeset, refusing: [:], copies: &copies,
                                                            version: version + 1, others: sessions.filter { $0 !== session })
                        metrics.syncWork.integration.record(since: started)
                        version += 1
                        result.apply()
                        integrated.append(result)
                        job.metrics.increment("openrealm_changesets_integrated_total")
                    }
                    try copies.persist(txn, ident: session.fileIdent)
                }
                integratedAt = ContinuousClock.now
                return version
            }
            let committed = ContinuousClock.now
            metrics.syncWork.commit.record(integratedAt.duration(to: committed))
            app.didCommit(serverVersion: last)
            for result in integrated { result.deliver(committedAt: committed) }
        } catch {
            // The index and memos were extended over versions of the aborted transaction.
            app.historyIndex.forget(after: app.serverVersion)
            for job in jobs { job.session.concurrentMemo.clear() }
            for session in involved { session.rollBackView() }
            for (session, clientVersion) in saved { session.lastIntegratedClientVersion = clientVersion }
            for job in jobs {
                do {
                    try integrateAlone(job, app: app)
                } catch let failure as SyncFailure {
                    job.failure = failure
                } catch let failure as any StoreFailure where failure.isTransient {
                    job.failure = storeFailed(failure, job, app: app, logger: logger)
                } catch {
                    job.failure = SyncFailure(.badChangeset, "upload failed: \(error)")
                }
            }
        }
        // Trimming failing loses nothing: the history is kept and trimmed later.
        do {
            try app.trimHistoryIfDue(retentionSeconds: app.configuration.clientRetentionSeconds,
                                       interval: app.configuration.historyTrimIntervalVersions,
                                       bound: app.boundFiles)
        } catch {
            logger.error("history trimming failed", metadata: ["app": "\(app.appId)", "error": "\(error)"])
        }
        for job in jobs {
            if job.failure == nil {
                job.session.send(job.session.download([], serverVersion: app.serverVersion))
            }
            job.isDone = true
        }
    }

    /// What a session whose upload the store failed (``StoreFailure``) is told: not
    /// acknowledged, not refused as a bad changeset, but a session error after which the
    /// client binds again and uploads what was not acknowledged. The operator's log names
    /// the store and why (never its password); the client hears only that the server's
    /// store failed.
    private static func storeFailed(_ failure: any StoreFailure, _ job: UploadJob, app: SyncApp, logger: Logger) -> SyncFailure {
        logger.error("the store failed an upload: not acknowledged, the client will send it again",
                     metadata: ["app": "\(app.appId)", "file": "\(job.session.fileIdent)", "error": "\(failure)"])
        return SyncFailure(.otherSessionError, "the server's store failed; the upload was not integrated: bind again and resend it")
    }

    /// The most times one changeset's transaction is run again after the store rolled it
    /// back to break a conflict (``StoreFailure/isConflictRollback``) before the upload
    /// is failed to be retried by the client.
    static let conflictRetries = 3

    /// Integrates one upload, each changeset in its own write transaction. Call with the
    /// app's lock held.
    private static func integrateAlone(_ job: UploadJob, app: SyncApp) throws {
        let session = job.session
        // Another session of the same file (a connection the client dropped, whose
        // upload the server is still reading) may have integrated some of these
        // changesets since this session bound: the file's record decides.
        if let file = try app.storage.read({ try $0.clientFile(session.fileIdent) }) {
            session.lastIntegratedClientVersion = max(session.lastIntegratedClientVersion, file.lastIntegratedClientVersion)
        }
        try checkOrder(job.upload)
        // Each changeset commits on its own here: a copy owed to a later changeset of the
        // part could be lost with a crash in between, so none is deferred.
        var copies = WholeCopies()
        for changeset in job.upload.changesets where changeset.clientVersion > session.lastIntegratedClientVersion {
            try checkBase(changeset, serverVersion: app.serverVersion)
            try integrateAlone(session, changeset, copies: &copies, app: app, metrics: job.metrics)
            job.metrics.increment("openrealm_changesets_integrated_total")
        }
    }

    /// Client versions must increase within an upload.
    private static func checkOrder(_ upload: WireUpload) throws {
        var previous: UInt64 = 0
        for changeset in upload.changesets {
            guard changeset.clientVersion > previous else {
                throw SyncFailure(.badProgress, "client version \(changeset.clientVersion) does not increase (after \(previous))")
            }
            previous = changeset.clientVersion
        }
    }

    /// A changeset cannot be based on a server version the server never produced.
    private static func checkBase(_ changeset: WireUploadChangeset, serverVersion: UInt64) throws {
        guard changeset.lastIntegratedServerVersion <= serverVersion else {
            throw SyncFailure(.badProgress, "changeset \(changeset.clientVersion) was made after server version \(changeset.lastIntegratedServerVersion), which the server never produced (it is at \(serverVersion))")
        }
    }

    /// Objects whose writes turned out to be refused once the changeset was applied
    /// (the transaction is aborted and the changeset integrated again without them).
    private struct LateRefusals: Error {
        var writes: [WireObjectRef: String]
    }

    /// Integrates one changeset in a transaction of its own and fans it out. Call with
    /// the app's lock held.
    ///
    /// Writes the session may not make (``WriteAuthorizer``) are left out; the origin
    /// then gets a `writeNotAllowed` error naming each object and why, and a download
    /// (origin 0) that reverts them. An object found refused only after the changeset
    /// was applied makes the integration start again without it, so each attempt
    /// refuses at least one more object and the loop ends.
    private static func integrateAlone(_ session: ServerSession, _ changeset: WireUploadChangeset,
                                       copies: inout WholeCopies, app: SyncApp, metrics: ServerMetrics) throws {
        var refused: [WireObjectRef: String] = [:]
        var conflicts = 0
        while true {
            do {
                let others = app.boundSessions.filter { $0 !== session }
                var attempt = copies
                var integratedAt = ContinuousClock.now
                let result = try app.storage.withAppWriteLock { txn in
                    try app.catchUp(in: txn)
                    try app.recordPendingProgress(txn)
                    let started = ContinuousClock.now
                    let result = try integrateChangeset(txn, session, changeset, refusing: refused, copies: &attempt,
                                                        version: app.serverVersion + 1, others: others)
                    metrics.syncWork.integration.record(since: started)
                    try attempt.persist(txn, ident: session.fileIdent)
                    integratedAt = ContinuousClock.now
                    return result
                }
                let committed = ContinuousClock.now
                metrics.syncWork.commit.record(integratedAt.duration(to: committed))
                copies = attempt
                app.didCommit(serverVersion: result.version)
                result.apply()
                result.deliver(committedAt: committed)
                return
            } catch let late as LateRefusals {
                refused.merge(late.writes) { first, _ in first }
            } catch let conflict as any StoreFailure where conflict.isConflictRollback && conflicts < conflictRetries {
                // Rolled back by the store, so nothing of it committed: run it again,
                // the index and memo forgetting what the attempt read past the app's version.
                conflicts += 1
                app.historyIndex.forget(after: app.serverVersion)
                session.concurrentMemo.clear()
            }
        }
    }

    /// What integrating one changeset leaves to do: the sessions' state to update at
    /// once (``apply()``, so that the next changeset of a group sees it) and the
    /// messages to send once the transaction is durable (``deliver()``).
    struct IntegratedChangeset {
        let session: ServerSession
        let changeset: WireUploadChangeset
        /// The server version it produced.
        let version: UInt64
        let objects: [WireObjectRef]
        let refused: [WireObjectRef: String]
        /// What goes back to the origin alone.
        let reply: [WireInstruction]
        /// The changeset's objects, each with whether it is in the origin's view after it
        /// (applied to the session's view objects in place: a far-behind client's view
        /// is large, and a copy per changeset was most of its integration).
        let originView: [(ref: WireObjectRef, inView: Bool)]
        /// What the other sessions receive.
        let fanOut: ChangesetFanOut

        func apply() {
            session.lastIntegratedClientVersion = changeset.clientVersion
            for (ref, inView) in originView {
                if inView { session.enterView(ref) } else { session.leaveView(ref) }
            }
            fanOut.applyViews()
        }

        /// Sends what the changeset owes, once its transaction committed at `committedAt`.
        func deliver(committedAt: ContinuousClock.Instant) {
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
                    timestamp: changeset.timestamp.advanced(to: UInt64(max(0, StorageConventions.nowMilliseconds))),
                    instructions: reply)], serverVersion: version, acknowledging: changeset.clientVersion))
            }
            fanOut.send(serverVersion: version, originFileIdent: session.fileIdent,
                        originClientVersion: changeset.clientVersion, timestamp: changeset.timestamp, committedAt: committedAt)
        }
    }

    /// Integrates one changeset of `session` in `txn` as server version `version` and
    /// computes its fan-out to `others`. Sends nothing and changes no session.
    private static func integrateChangeset(_ txn: some AppLockedUnit, _ session: ServerSession, _ changeset: WireUploadChangeset,
                                           refusing alreadyRefused: [WireObjectRef: String], copies: inout WholeCopies,
                                           version: UInt64, others: [ServerSession]) throws -> IntegratedChangeset {
        let app = session.app
        let authorizer = WriteAuthorizer(view: session.view)
        var refused = alreadyRefused
        var reply: [WireInstruction] = []
        var originView: [(ref: WireObjectRef, inView: Bool)] = []
        var objects: [WireObjectRef] = []
        var seen: Set<WireObjectRef> = []
        seen.reserveCapacity(changeset.instructions.count)
        for instruction in changeset.instructions {
            if let ref = instruction.topLevelObject, seen.insert(ref).inserted { objects.append(ref) }
        }
        // Refusals are rare: with none, nothing is looked up per object or instruction.
        func unrefused(_ refs: [WireObjectRef]) -> [WireObjectRef] { refused.isEmpty ? refs : refs.filter { refused[$0] == nil } }
        let schemaBefore = try txn.schema()
        var creating: Set<WireObjectRef> = []
        for case .createObject(let className, let primaryKey, _) in changeset.instructions {
            creating.insert(WireObjectRef(className: className, primaryKey: primaryKey))
        }
        refused.merge(try authorizer.refusals(txn, schema: schemaBefore, unrefused(objects), at: .before,
                                              creating: creating)) { old, _ in old }
        var allowed = refused.isEmpty ? changeset.instructions
            : changeset.instructions.filter { $0.topLevelObject.map { refused[$0] == nil } ?? true }
        let listEdits = allowed.filter { ListTransform.list(of: $0) != nil }
        if !listEdits.isEmpty {
            allowed = ListTransform.transform(allowed, against: try ConcurrentEdits.instructions(
                txn, origin: session.fileIdent, after: changeset.lastIntegratedServerVersion, through: version - 1,
                on: Set(objects), index: app.historyIndex, memo: session.concurrentMemo))
        }
        // Copies of objects with collections, from the history index the transform has
        // read anyway; every copy is in the file's record too (below), which is what a
        // changeset without list edits is checked against.
        let resentSince = listEdits.isEmpty ? [] : try ConcurrentEdits.resentWhole(
            txn, to: session.fileIdent, after: changeset.lastIntegratedServerVersion, through: version - 1,
            index: app.historyIndex)
        let integrated = try txn.integrate(allowed, IntegrationSettings(
            developmentMode: app.configuration.developmentMode,
            stamp: WriteStamp(timestamp: changeset.timestamp, originFileIdent: session.fileIdent),
            partition: session.view.partition))
        let applied = integrated.applied
        let schema = try txn.schema()
        var late = try authorizer.refusals(txn, schema: schema, unrefused(objects), at: .after)
        late.merge(try authorizer.linkRefusals(txn, schema: schema, applied)) { first, _ in first }
        if !late.isEmpty { throw LateRefusals(writes: late) }
        // What the server had sent the file whole before this changeset.
        let bootstrapped = try copies.bootstrapCopies(txn, ident: session.fileIdent)
        // What the origin gets back: refused objects as the server has them (or
        // erased when it may not hold them), and the partition values stamped.
        for ref in refused.isEmpty ? [] : objects where refused[ref] != nil {
            copies.sent(ref)
            if try session.view.contains(txn, schema: schema, ref), let image = try txn.images([ref]).first {
                reply += ObjectSnapshot.instructions(image, clearingEveryCollection: true)
                copies.recordWhole(ref, version: version)
            } else {
                reply.append(.eraseObject(WireObjectPath(ref)))
            }
        }
        // A changeset made before a bootstrap of the origin's (in this session or an
        // earlier one: the connection may have dropped, the server restarted), which
        // was computed without it: the objects it touches that the bootstrap sent whole
        // lack it there (their values and their collections' resets won over its edits
        // on the client), so they go back whole as the server now has them.
        // Likewise an object the origin got back whole (a compensation) after the
        // changeset was made: that copy's values and cleared collections won over the
        // changeset's edits there, which the server has.
        // One copy covers every changeset of the upload part before it: an object goes
        // back with the part's last changeset that touches it (``WholeCopies``).
        let base = changeset.lastIntegratedServerVersion
        if bootstrapped.lastVersion > base || !resentSince.isEmpty || copies.anyOwed {
            for ref in objects where refused[ref] == nil
                && (bootstrapped.sentWhole(ref, after: base) || resentSince.contains(ref) || copies.isOwed(ref))
                && copies.sendsNow(ref, in: changeset.clientVersion) {
                if try session.view.contains(txn, schema: schema, ref), let image = try txn.images([ref]).first {
                    reply += ObjectSnapshot.instructions(image, clearingEveryCollection: true)
                    copies.recordWhole(ref, version: version)
                }
            }
        }
        if let partition = session.view.partition {
            for ref in integrated.stamped where refused[ref] == nil {
                reply.append(.set(object: WireObjectPath(ref), property: partition.field, value: partition.value.value))
            }
        }
        let inView = try session.view.containing(txn, schema: schema, objects)
        for ref in objects {
            originView.append((ref, inView.contains(ref)))
        }
        try txn.appendHistory(HistoryEntry(
            serverVersion: version, originFileIdent: session.fileIdent, originClientVersion: changeset.clientVersion,
            timestamp: changeset.timestamp, integratedAt: StorageConventions.nowMilliseconds,
            changeset: try WireChangeset(applied).encoded(),
            compensation: reply.isEmpty ? [] : try WireChangeset(reply).encoded(),
            uploadedListEdits: listEdits.isEmpty ? [] : try WireChangeset(listEdits).encoded(),
            originServerVersion: changeset.lastIntegratedServerVersion))
        if app.topology == .shared {
            // What other engines' fan-outs of this version decide from (``RecordedMembership``).
            try txn.recordPostImages(of: ChangesetFanOut.objects(of: applied), serverVersion: version)
        }
        try txn.recordIntegrated(session.fileIdent, clientVersion: changeset.clientVersion)
        try txn.recordUpload(session.fileIdent, base: changeset.lastIntegratedServerVersion, version: version)
        let fanOut = try ChangesetFanOut(applied, to: others, objects: UnitImages(unit: txn),
                                         membership: LiveMembership(txn, schema: schema))
        return IntegratedChangeset(session: session, changeset: changeset, version: version, objects: objects,
                                   refused: refused, reply: reply, originView: originView, fanOut: fanOut)
    }
}

/// A unit's object images for a fan-out, behind a concrete type: the fan-out's loop over
/// sessions and objects is then compiled for it and for ``LiveMembership`` (a unit the
/// engine holds as an existential would leave that loop generic, each membership
/// question a dynamic call); each entering object's image is one call to the unit, as
/// each store question of ``LiveMembership`` is.
private struct UnitImages: ObjectImageReading {
    let unit: any ObjectImageReading

    func images(_ refs: [WireObjectRef]) throws -> [ObjectImage] {
        try unit.images(refs)
    }
}
