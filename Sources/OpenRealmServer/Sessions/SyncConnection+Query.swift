import Foundation
import OpenRealmQuery
import OpenRealmWire

/// Query messages: validate the new subscription set (``SubscriptionValidator``), then
/// change the session's view under the app's lock (``ViewChange``).
extension SyncConnection {
    func query(_ session: ServerSession, _ m: WireQuery) {
        let storage = session.app.storage
        guard session.view.partition == nil else {
            fail(session.number, SyncFailure(.badMessageOrder, "query version \(m.queryVersion) on a partition-based session; partition sessions do not subscribe"))
            return
        }
        do {
            let accepted: [String: ParsedQuery]
            do {
                // Validation reads the committed schema, without the app's lock (the
                // session's own fields are changed by its connection alone).
                accepted = try { () throws -> [String: ParsedQuery] in
                    guard m.queryVersion > session.lastQueryVersion else {
                        throw SyncFailure(.badProgress, "query version \(m.queryVersion) is not above the last one, \(session.lastQueryVersion)")
                    }
                    session.lastQueryVersion = m.queryVersion
                    let schema = try storage.read { try $0.schema().query }
                    var accepted: [String: ParsedQuery] = [:]
                    for q in m.queries {
                        accepted[q.className] = try SubscriptionValidator.validate(
                            className: q.className, query: q.query, schema: schema, rules: session.app.configuration.rules)
                    }
                    return accepted
                }()
            } catch let failure as SyncFailure where failure.code != .badProgress {
                session.send(.error(WireErrorMessage(session: session.number, code: failure.code,
                                                     message: "query version \(m.queryVersion) refused: \(failure.message)",
                                                     isFatal: false, queryVersion: m.queryVersion)))
                return
            }
            var view = session.view
            view.queryVersion = m.queryVersion
            view.queries = accepted
            try session.app.withSyncLock { try ViewChange.apply(session, to: view, metrics: metrics) }
        } catch let failure as SyncFailure {
            fail(session.number, failure)
        } catch {
            fail(session.number, SyncFailure(.otherSessionError, "query version \(m.queryVersion) failed: \(error)"))
        }
    }
}
