import Foundation
import Logging
import OpenRealmWire

/// The sync protocol on one connection, independent of the transport: feed it the
/// frames the client sent (``receive(frame:)``), and it answers through its output
/// closure, which the transport drains in order (a WebSocket in `HTTP/`, or a test).
///
/// A connection carries sessions (`bind` … `unbind`). Failures are scoped as
/// `docs/PROTOCOL.md` §6.2 says: a frame that does not decode, a message for an
/// unknown session, a reused session number or a server-bound message type sent by the
/// client end the connection (an `error` for session 0, then close); a refused bind, a
/// bad changeset or bad progress end that session only; a refused query version is
/// reported and the session goes on.
///
/// Threading: calls must come one at a time (the transport's read loop).
public final class SyncConnection: @unchecked Sendable {
    let auth: AuthService
    let apps: AppRegistry
    /// The app the connection's URL named, when it named one.
    let appId: String?
    let logger: Logger
    let output: @Sendable (ConnectionOutput) -> Void
    /// The server's counters.
    let metrics: ServerMetrics

    private var sessions: [UInt64: ServerSession] = [:]
    private var usedSessionNumbers: Set<UInt64> = []
    private(set) var isClosed = false
    /// Whether a `bind` was accepted on this connection (its bind timeout is then met).
    private(set) var hasBound = false
    /// The most sessions bound at once.
    let maxSessions: Int
    /// Called when a `bind` message arrives, before it is handled (which can wait for
    /// the app's lock): the transport's bind timeout stops then.
    var onBindReceived: (@Sendable () -> Void)?

    init(auth: AuthService, apps: AppRegistry, appId: String?, logger: Logger, metrics: ServerMetrics = ServerMetrics(),
         maxSessions: Int = 64, output: @escaping @Sendable (ConnectionOutput) -> Void) {
        self.metrics = metrics
        self.maxSessions = maxSessions
        self.auth = auth
        self.apps = apps
        self.appId = appId
        self.logger = logger
        self.output = output
    }

    /// Handles one frame (a WebSocket binary message).
    public func receive(frame: [UInt8]) {
        guard !isClosed else { return }
        switch Self.decode(frame: frame, metrics: metrics).item {
        case .message(let message): receive(message)
        case .failure(let error): fail(error)
        }
    }

    /// Decodes one frame (a WebSocket binary message) into its message, or the
    /// connection-level error it deserves. Needs no connection state: the transport's
    /// reader calls it for every frame as it arrives, before the frame waits its turn.
    ///
    /// - Returns: the item and what it costs in memory once decoded (the header and the
    ///   decompressed body; a refused frame costs what it took on the wire).
    static func decode(frame: [UInt8], metrics: ServerMetrics) -> (item: InboundFrameQueue.Item, decodedBytes: Int) {
        metrics.increment("openrealm_received_bytes_total", by: UInt64(frame.count))
        var decoder = WireFrameDecoder()
        do throws(WireError) {
            decoder.append(frame)
            guard let decoded = try decoder.nextMessage() else {
                throw WireError(.badMessage, field: "frame", "truncated: \(frame.count) bytes do not make a whole frame", offset: frame.count)
            }
            guard decoder.bufferedByteCount == 0 else {
                throw WireError(.badMessage, field: "frame", "\(decoder.bufferedByteCount) bytes after the frame")
            }
            return (.message(decoded), WireProtocol.headerSize + decoder.decodedBodySize)
        } catch {
            return (.failure(WireErrorMessage(error)), frame.count)
        }
    }

    /// Answers a client's `ping` at once: a pong needs no app state, so it is sent by the
    /// transport's reader without waiting behind the frames before it.
    func answerPing(_ ping: WirePing) {
        output(.message(.pong(WirePong(timestamp: ping.timestamp))))
    }

    /// Handles one decoded message.
    func receive(_ message: WireMessage) {
        guard !isClosed else { return }
        switch message {
        case .bind(let m): bind(m)
        case .query(let m): if let s = session(m.session, "query") { query(s, m) }
        case .upload(let m): if let s = session(m.session, "upload") { metrics.increment("openrealm_uploads_total"); upload(s, m) }
        case .mark(let m): if let s = session(m.session, "mark") { s.send(.mark(m)) }
        case .unbind(let m): if let s = session(m.session, "unbind") { end(s) }
        case .ping(let m): answerPing(m)
        case .pong: break
        case .error(let m):
            logger.info("client reported an error", metadata: ["session": "\(m.session)", "code": "\(m.code)",
                                                               "message": "\(ClientText.forLog(m.message))"])
            if m.isFatal {
                if m.session == 0 { close() } else if let s = sessions[m.session] { end(s) }
            }
        case .ident, .download:
            fail(WireErrorMessage(session: 0, code: .badMessageOrder,
                                  message: "badMessageOrder: a client does not send \(message.type) messages", isFatal: true))
        }
    }

    /// Ends every session (the transport calls it when the connection is gone).
    public func close() {
        for s in sessions.values { unregister(s) }
        sessions.removeAll()
        if !isClosed {
            isClosed = true
            output(.close)
        }
    }

    // MARK: Failures

    /// A connection-level failure: the error for session 0, then close.
    func fail(_ error: WireErrorMessage) {
        logger.info("closing sync connection", metadata: ["code": "\(error.code)", "message": "\(error.message)"])
        output(.message(.error(error)))
        close()
    }

    /// A fatal session error: the error, then the session ends.
    func fail(_ session: UInt64, _ failure: SyncFailure) {
        logger.info("ending sync session", metadata: ["session": "\(session)", "code": "\(failure.code)", "message": "\(failure.message)"])
        // The session ends before the client hears of it (its counters and its file's
        // last-seen time are current by then).
        if let s = sessions[session] { end(s) }
        output(.message(.error(WireErrorMessage(session: session, code: failure.code, message: failure.message, isFatal: true))))
    }

    private func session(_ number: UInt64, _ what: String) -> ServerSession? {
        if let s = sessions[number] { return s }
        fail(WireErrorMessage(session: 0, code: .unknownSession,
                              message: "unknownSession: \(what) for session \(number), which is not bound on this connection", isFatal: true))
        return nil
    }

    private func end(_ session: ServerSession) {
        sessions[session.number] = nil
        unregister(session)
    }

    private func unregister(_ session: ServerSession) {
        let storage = session.app.storage
        let removed = session.app.withSyncLock {
            guard session.app.unregister(session) else { return false }
            // The retention period of its file counts from the end of the session.
            do {
                try storage.write { unit in try unit.recordSeen([session.fileIdent], now: StorageConventions.nowMilliseconds) }
            } catch {
                logger.error("recording a client file as seen failed", metadata: ["file": "\(session.fileIdent)", "error": "\(error)"])
            }
            return true
        }
        if removed { metrics.adjust("openrealm_sessions_active", by: -1) }
    }

    // MARK: Bind

    private func bind(_ m: WireBind) {
        onBindReceived?()
        guard !usedSessionNumbers.contains(m.session) else {
            fail(WireErrorMessage(session: 0, code: .sessionReused,
                                  message: "sessionReused: session number \(m.session) was already used on this connection", isFatal: true))
            return
        }
        usedSessionNumbers.insert(m.session)
        do {
            guard sessions.count < maxSessions else {
                throw SyncFailure(.limitsExceeded, "this connection already has \(maxSessions) sessions bound, the most it may; unbind one first")
            }
            if let appId, m.appId != appId {
                throw SyncFailure(.badAuthentication, "the bind names app '\(m.appId)' but the connection is for app '\(appId)'")
            }
            let user: UserRecord
            do {
                (_, user) = try auth.verifyAccess(m.accessToken, appId: m.appId)
            } catch {
                throw SyncFailure(error.code == "TokenExpired" ? .tokenExpired : .badAuthentication, error.message)
            }
            let app = try apps.app(m.appId)
            var view = SubscriptionView()
            view.permissions = app.rules.bound(userId: user.id, email: user.verifiedEmail)
            let (partitionField, decided) = try app.partitionField(forBindIn: m.syncMode)
            if decided {
                logger.notice("a development app's sync mode follows its first client",
                              metadata: ["app": "\(m.appId)",
                                         "mode": "\(partitionField.map { "partition-based (field '\($0)')" } ?? "flexible")"])
            }
            switch (m.syncMode, partitionField) {
            case (.flexible, nil):
                break
            case (.partition(let value), let field?):
                view.partition = SubscriptionView.Partition(field: field, value: value)
            case (.partition, nil):
                throw SyncFailure(.wrongSyncMode, "app '\(m.appId)' uses flexible sync; bind without a partition value and subscribe")
            case (.flexible, let field?):
                throw SyncFailure(.wrongSyncMode, "app '\(m.appId)' is partition-based (partition field '\(field)'); bind with a partition value")
            }
            let file: ClientFileRecord
            if let identity = m.fileIdentity {
                guard let record = try app.storage.read({ try $0.clientFile(identity.ident) }), record.salt == identity.salt else {
                    throw SyncFailure(.clientResetRequired, "client file \(identity.ident) is unknown to the server (or its salt differs); reset the file")
                }
                guard record.userId == user.id else {
                    throw SyncFailure(.permissionDenied, "client file \(identity.ident) belongs to another user")
                }
                try admitRestored(identity.ident, lastIntegratedServerVersion: m.lastIntegratedServerVersion, app: app)
                file = record
            } else {
                // Each new file is a permanent record: a user makes them at a bounded rate.
                if let wait = try app.loginLimiter.take("client-files:" + user.id, limit: app.configuration.clientFileRateLimit) {
                    throw SyncFailure(.limitsExceeded, "user '\(user.id)' made too many new client files; retry in \(wait) s")
                }
                file = try app.storage.write { try $0.createClientFile(userId: user.id) }
            }
            let session = ServerSession(number: m.session, app: app, userId: user.id, file: file,
                                      bindServerVersion: m.lastIntegratedServerVersion, output: output)
            session.view = view
            if view.partition != nil {
                // A partition session's view is known at once: its bootstrap follows the
                // ident, and it is a write, so the whole bind takes the app's lock.
                try app.withSyncLock {
                    try app.catchUp()
                    try checkBind(m, file: file, app: app, serverVersion: app.serverVersion)
                    try app.storage.write { unit in
                        try unit.recordProgress(file.ident, serverVersion: m.lastIntegratedServerVersion)
                    }
                    app.register(session)
                    session.send(.ident(WireIdent(session: m.session, fileIdentity: WireFileIdentity(ident: file.ident, salt: file.salt),
                                                  serverVersion: app.serverVersion,
                                                  lastIntegratedClientVersion: file.lastIntegratedClientVersion)))
                    do {
                        try ViewChange.apply(session, to: view, metrics: metrics)
                    } catch {
                        app.unregister(session)
                        throw error
                    }
                }
            } else {
                // A flexible session gets nothing before its first query: the bind only
                // reads (a committed snapshot, not waiting behind integrations) and
                // registers the session; its progress is recorded with the next write.
                let committed = try app.storage.read { unit in try unit.serverVersion() }
                try checkBind(m, file: file, app: app, serverVersion: committed)
                app.register(session, progress: m.lastIntegratedServerVersion) {
                    session.send(.ident(WireIdent(session: m.session, fileIdentity: WireFileIdentity(ident: file.ident, salt: file.salt),
                                                  serverVersion: committed,
                                                  lastIntegratedClientVersion: file.lastIntegratedClientVersion)))
                }
            }
            sessions[m.session] = session
            hasBound = true
            metrics.increment("openrealm_sessions_total")
            metrics.adjust("openrealm_sessions_active", by: 1)
        } catch let failure as SyncFailure {
            fail(m.session, failure)
        } catch let error as AuthError {
            fail(m.session, SyncFailure(.badAuthentication, error.message))
        } catch {
            fail(m.session, SyncFailure(.otherSessionError, "bind failed: \(error)"))
        }
    }

    /// Admits a bind of client file `ident` reporting `lastIntegratedServerVersion`
    /// against its restore mark, if it has one (``RestoreMarkReading``, a store restored
    /// from a backup): above the ceiling it must reset; at or below, the mark is removed.
    ///
    /// - Throws: ``SyncFailure`` `clientResetRequired` naming the versions.
    private func admitRestored(_ ident: UInt64, lastIntegratedServerVersion: UInt64, app: SyncApp) throws {
        guard let ceiling = try app.storage.read({ try $0.restoreCeiling(ident) }) else { return }
        guard lastIntegratedServerVersion <= ceiling else {
            throw SyncFailure(.clientResetRequired, "client file \(ident) integrated server version \(lastIntegratedServerVersion), but the server was restored from a backup at version \(ceiling); reset the file")
        }
        try app.storage.write { try $0.removeRestoreMark(ident) }
    }

    /// The checks of a bind against the store as of `serverVersion` (the latest committed
    /// version): the file cannot be ahead of the server, and the history its unuploaded
    /// changesets need is still there.
    ///
    /// Read from a snapshot, without the app's lock: a trim that commits meanwhile can
    /// only raise the floor past the file's upload base when the file was away longer
    /// than the retention period (a bound or recently seen file holds the history), and
    /// then its first upload that needs the trimmed history gets `clientResetRequired`.
    private func checkBind(_ m: WireBind, file: ClientFileRecord, app: SyncApp, serverVersion: UInt64) throws {
        guard m.lastIntegratedServerVersion <= serverVersion else {
            throw SyncFailure(.clientResetRequired, "the file integrated server version \(m.lastIntegratedServerVersion), but the server is at \(serverVersion)")
        }
        guard m.fileIdentity != nil else { return }
        // Its unuploaded changesets may be based as low as its upload base (below what
        // it downloaded); the history above it is kept while the file is seen within the
        // retention period.
        let (floor, base) = try app.storage.read { unit in
            (try unit.historyFloor(), try unit.uploadBase(file.ident))
        }
        guard base >= floor else {
            throw SyncFailure(.clientResetRequired, "client file \(file.ident) may upload changes made at server version \(base), but the history after it was trimmed up to version \(floor) (the file was not seen for longer than the retention period); reset the file")
        }
    }
}
