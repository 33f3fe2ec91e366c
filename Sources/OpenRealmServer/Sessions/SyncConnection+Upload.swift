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
                    try integrate(session, changeset)
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
    private func integrate(_ session: SyncSession, _ changeset: WireUploadChangeset) throws {
        var refused: [WireObjectRef: String] = [:]
        while true {
            do {
                try integrate(session, changeset, refusing: refused)
                return
            } catch let late as LateRefusals {
                refused.merge(late.writes) { first, _ in first }
            }
        }
    }

    private func integrate(_ session: SyncSession, _ changeset: WireUploadChangeset,
                           refusing alreadyRefused: [WireObjectRef: String]) throws {
        let app = session.app
        let version = app.store.serverVersion + 1
        var outgoing: [(SyncSession, [WireInstruction], Set<WireObjectRef>)] = []
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
            let allowed = changeset.instructions.filter { $0.topLevelObject.map { refused[$0] == nil } ?? true }
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
                compensation: reply.isEmpty ? [] : try WireChangeset(reply).encoded()))
            try txn.updateRow("__client_files", .int(Int64(session.fileIdent)),
                              ["lastIntegratedClientVersion": .int(Int64(changeset.clientVersion))])
            for other in others {
                let (instructions, view) = try Self.fanOut(applied, to: other, txn, schema)
                outgoing.append((other, instructions, view))
            }
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
        for (other, instructions, view) in outgoing {
            other.viewObjects = view
            guard !instructions.isEmpty else { continue }
            other.send(other.download([WireDownloadChangeset(
                serverVersion: version, lastIntegratedClientVersion: other.lastIntegratedClientVersion,
                originFileIdent: session.fileIdent, originClientVersion: changeset.clientVersion,
                timestamp: changeset.timestamp, instructions: instructions)], serverVersion: version))
        }
    }

    /// What `other` must receive of an integrated changeset, and its view afterwards:
    /// instructions on objects that stay in its view as they are; a snapshot of an
    /// object that enters it; an erase of one that leaves it. Schema instructions are
    /// not forwarded (each client declares its own schema).
    static func fanOut(_ applied: [WireInstruction], to other: SyncSession, _ txn: StoreTransaction,
                       _ schema: any QuerySchema) throws -> ([WireInstruction], Set<WireObjectRef>) {
        enum Decision { case forward, sent, none }
        var decisions: [WireObjectRef: Decision] = [:]
        var view = other.viewObjects
        var out: [WireInstruction] = []
        for instruction in applied {
            guard let ref = instruction.topLevelObject else { continue }
            if let decided = decisions[ref] {
                if decided == .forward { out.append(instruction) }
                continue
            }
            let before = view.contains(ref)
            let now = try other.view.contains(txn, schema: schema, ref)
            switch (before, now) {
            case (true, .some):
                decisions[ref] = .forward
                out.append(instruction)
            case (false, .some(let (cls, key))):
                decisions[ref] = .sent
                out += try ObjectSnapshot.instructions(txn, cls, key: key)
                view.insert(ref)
            case (true, nil):
                decisions[ref] = .sent
                out.append(.eraseObject(WireObjectPath(ref)))
                view.remove(ref)
            case (false, nil):
                decisions[ref] = Decision.none
            }
        }
        return (out, view)
    }
}
