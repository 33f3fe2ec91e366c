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

    /// Integrates one changeset and fans it out. Call with the app's lock held.
    private func integrate(_ session: SyncSession, _ changeset: WireUploadChangeset) throws {
        let app = session.app
        let version = app.store.serverVersion + 1
        var outgoing: [(SyncSession, [WireInstruction], Set<WireObjectRef>)] = []
        let others = app.sessions.values.filter { $0 !== session }
        try app.store.environment.write { txn in
            var integrator = Integrator(txn: txn, developmentMode: app.configuration.developmentMode,
                                        stamp: WriteStamp(timestamp: changeset.timestamp, originFileIdent: session.fileIdent),
                                        serverVersion: version)
            let applied = try integrator.apply(changeset.instructions)
            try AppStore.appendHistory(txn, HistoryEntry(
                serverVersion: version, originFileIdent: session.fileIdent, originClientVersion: changeset.clientVersion,
                timestamp: changeset.timestamp, integratedAt: AppStore.nowMilliseconds,
                changeset: try WireChangeset(applied).encoded()))
            try txn.updateRow("__client_files", .int(Int64(session.fileIdent)),
                              ["lastIntegratedClientVersion": .int(Int64(changeset.clientVersion))])
            let schema = try AppStore.querySchema(txn)
            for other in others {
                let (instructions, view) = try Self.fanOut(applied, to: other, txn, schema)
                outgoing.append((other, instructions, view))
            }
        }
        app.store.didCommit(serverVersion: version)
        session.lastIntegratedClientVersion = changeset.clientVersion
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
