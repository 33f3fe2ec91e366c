import Foundation
import OpenRealm
import OpenRealmWire

/// Query messages: validate the new subscription set, then bootstrap what enters the
/// view and erase what leaves it.
extension SyncConnection {
    /// The largest bootstrap batch, in encoded instruction bytes.
    static let bootstrapBatchBytes = 1 << 20

    func query(_ session: SyncSession, _ m: WireQuery) {
        let store = session.app.store
        do {
            let accepted: [String: ParsedQuery]
            do {
                accepted = try store.withLock { () throws -> [String: ParsedQuery] in
                    guard m.queryVersion > session.lastQueryVersion else {
                        throw SyncFailure(.badProgress, "query version \(m.queryVersion) is not above the last one, \(session.lastQueryVersion)")
                    }
                    session.lastQueryVersion = m.queryVersion
                    let schema = try store.environment.read { try AppStore.querySchema($0) }
                    var accepted: [String: ParsedQuery] = [:]
                    for q in m.queries {
                        accepted[q.className] = try SubscriptionValidator.validate(
                            className: q.className, query: q.query, schema: schema, rules: session.app.configuration.rules)
                    }
                    return accepted
                }
            } catch let failure as SyncFailure where failure.code != .badProgress {
                session.send(.error(WireErrorMessage(session: session.number, code: failure.code,
                                                     message: "query version \(m.queryVersion) refused: \(failure.message)",
                                                     isFatal: false, queryVersion: m.queryVersion)))
                return
            }
            try store.withLock {
                try store.environment.read { txn in
                    let schema = try AppStore.querySchema(txn)
                    let view = SubscriptionView(queryVersion: m.queryVersion, queries: accepted)
                    let objects = try view.objects(txn, schema: schema)
                    var instructions: [WireInstruction] = []
                    for (ref, (cls, key)) in objects.sorted(by: { $0.key.description < $1.key.description })
                    where !session.viewObjects.contains(ref) {
                        instructions += try ObjectSnapshot.instructions(txn, cls, key: key)
                    }
                    for ref in session.viewObjects.sorted(by: { $0.description < $1.description }) where objects[ref] == nil {
                        instructions.append(.eraseObject(WireObjectPath(ref)))
                    }
                    session.view = view
                    session.viewObjects = Set(objects.keys)
                    try sendBootstrap(session, instructions, serverVersion: store.serverVersion)
                }
            }
        } catch let failure as SyncFailure {
            fail(session.number, failure)
        } catch {
            fail(session.number, SyncFailure(.otherSessionError, "query version \(m.queryVersion) failed: \(error)"))
        }
    }

    /// Sends `instructions` as a bootstrap of the session's query version, in batches
    /// of about ``bootstrapBatchBytes``; always at least one (possibly empty) last batch.
    private func sendBootstrap(_ session: SyncSession, _ instructions: [WireInstruction], serverVersion: UInt64) throws {
        var batches: [[WireInstruction]] = [[]]
        var size = 0
        for instruction in instructions {
            let bytes = try WireChangeset([instruction]).encoded().count
            if size + bytes > Self.bootstrapBatchBytes && !batches[batches.count - 1].isEmpty {
                batches.append([])
                size = 0
            }
            batches[batches.count - 1].append(instruction)
            size += bytes
        }
        let now = WireHybridTimestamp(milliseconds: UInt64(max(0, AppStore.nowMilliseconds)))
        for (i, batch) in batches.enumerated() {
            let changesets = batch.isEmpty ? [] : [WireDownloadChangeset(
                serverVersion: serverVersion, lastIntegratedClientVersion: session.lastIntegratedClientVersion,
                timestamp: now, instructions: batch)]
            session.send(session.download(changesets, serverVersion: serverVersion,
                                          bootstrap: i == batches.count - 1 ? .lastBatch : .inProgress))
        }
    }
}
