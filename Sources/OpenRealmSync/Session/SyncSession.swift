import Foundation
import ORCore
import OpenRealm
import OpenRealmWire
import Synchronization

/// The sync of one realm file with the server: a WebSocket, the session on it, upload of
/// local commits, download and integration of the server's changes, and the
/// subscription sets of a flexible sync realm.
///
/// ```swift
/// let session = realm.syncSession!
/// try await session.wait(for: .upload)
/// session.suspend()   // offline: writes stay local
/// session.resume()    // they upload when the connection is back
/// ```
///
/// There is one session per file in a process, started when a synced realm is opened
/// and stopped when its user logs out. It reconnects by itself after a lost connection,
/// with a backoff from half a second doubling to a minute. Its methods may be called
/// from any thread.
///
/// State machine (all of it runs on `queue`):
///
/// ```
///  disconnected ──connect()──▶ connecting ──.opened: bind (+ query)──▶ bound on ident ──▶ syncing
///       ▲                          │                                        │
///       └── connectionLost ◀───────┴── handshake deadline, closed, ping ────┘
/// ```
///
/// Invariants that keep waits from being lost:
/// 1. Every wait is stored before anything that could answer it is sent, and is only
///    removed by its answer, by a fatal error, by `stop()` or by cancellation of the
///    waiting task. A lost connection keeps waits: on the next `ident` every pending
///    mark is sent again (the new session answers them), and the ident's upload
///    acknowledgement answers upload waits the server had already satisfied.
/// 2. A `query` or `mark` goes out only after this connection's `bind` (protocol §6.2
///    rule 1); before that it would name a session the server does not know.
/// 3. A connection that does not reach `ident` within ``handshakeTimeout``, or that stays
///    silent past the keepalive, is dropped and the session reconnects, so no wait
///    depends on a connection that can no longer answer.
///
/// Invariants that keep the session from ever stopping to reconnect:
/// 4. While the session wants a connection, exactly one of these holds: an access-token
///    fetch is in flight (at most one, abandoned past ``tokenTimeout``), a WebSocket is
///    open or opening (TCP and upgrade bounded by ``socketOpenTimeout``, `ident` by
///    ``handshakeTimeout``), or a reconnect is scheduled. `reconnect()` replaces a
///    scheduled reconnect by an immediate one and never restarts a fetch in flight.
/// 5. The `bind` is the first frame written once the WebSocket is open; if it cannot be
///    written the connection is dropped at once (the server would wait 30 s for it).
public final class SyncSession: @unchecked Sendable {
    /// Whether the session syncs.
    public enum State: Sendable, Equatable {
        /// Syncing, or trying to connect.
        case active
        /// Ending.
        case dying
        /// Stopped: the user logged out, or the server refused the session for good.
        case inactive
        /// Waiting for a fresh access token.
        case waitingForAccessToken
        /// Suspended with `suspend()`.
        case paused
    }

    /// The state of the session's connection.
    public enum ConnectionState: Sendable, Equatable {
        case disconnected
        case connecting
        case connected
    }

    /// Upload or download, for `wait(for:)` and progress notifications.
    public enum ProgressDirection: Sendable {
        case upload
        case download
    }

    /// Whether a progress notification follows all future transfers or only those
    /// outstanding when it was registered.
    public enum ProgressMode: Sendable {
        case reportIndefinitely
        case forCurrentlyOutstandingWork
    }

    /// How long a new connection may take to reach `ident` (TCP, WebSocket upgrade,
    /// bind) before it is dropped and tried again.
    static let handshakeTimeout: TimeInterval = 60
    /// How long the TCP connect and the WebSocket upgrade together may take: a server
    /// that accepts the connection but never answers the upgrade is left after this.
    static let socketOpenTimeout: TimeInterval = 15
    /// The most a reconnect waits (the backoff doubles from half a second up to this).
    static let maxBackoff: TimeInterval = 60
    /// After this long without a message from the server the session sends a ping.
    static let keepaliveInterval: TimeInterval = 60
    /// After this long more without any message, the connection is dropped.
    static let keepaliveTimeout: TimeInterval = 60

    let file: FileAccess
    let configuration: SyncConfiguration
    /// The configuration the realm was opened with (its schema), for the client reset
    /// callbacks' realms.
    let realmConfiguration: Realm.Configuration?
    let subscriptionStore: SubscriptionStore?
    let user: User
    let queue: DispatchQueue

    private struct Published {
        var state: State = .active
        var connectionState: ConnectionState = .disconnected
    }
    private let published = Mutex(Published())
    /// Ids of progress notifications, handed out on the caller's thread.
    let progressTokenIds = Mutex<UInt64>(0)

    // Everything below is used on `queue` only.
    var connection: WebSocketConnection?
    var decoder = WireFrameDecoder()
    var sessionNumber: UInt64 = 0
    /// The bind of `sessionNumber` went out on `connection`: queries and marks may follow.
    var bindSent = false
    /// `ident` arrived for `sessionNumber`: uploads may follow.
    var bound = false
    var wantsConnection = true
    var stoppedForGood = false
    /// Why the session stopped, when an error stopped it: the answer of later waits.
    var stopError: SyncError?
    var backoffAttempts = 0
    /// The scheduled reconnect, if any (cancelled by an earlier connect).
    var reconnectTimer: DispatchWorkItem?
    var connectGeneration = 0
    /// When the access-token fetch of `connectGeneration` started; nil when none is in flight.
    var tokenRequestedAt: DispatchTime?
    /// When the current connection's WebSocket must be open (nil once open).
    var socketDeadline: DispatchTime?
    /// When the current connection must have reached `ident`.
    var handshakeDeadline: DispatchTime?
    /// When the server last sent anything on the current connection.
    var lastTrafficAt = DispatchTime.now()
    var pingSent = false
    var uploadCursor: UInt64 = 0
    var lastSentQueryVersion: Int64 = 0
    var lastSeenFileVersion: UInt64 = 0
    var bootstrapBuffer: [WireDownloadChangeset] = []
    /// Local changesets the server has not acknowledged, by local version, as the client
    /// holds them: transformed past the list edits downloaded since they were made
    /// (``PendingEdits``).
    var pendingEdits = PendingEdits()
    /// The file's clock: downloads move it, local commits take readings (``CommitStamps``).
    let clock = SyncClock()
    var nextMarkId: UInt64 = 0
    /// Download waits: each answered by the echo of its mark (or a later one).
    var markWaiters: [(id: UInt64, resume: @Sendable (Error?) -> Void)] = []
    /// Upload waits: each answered once the server acknowledges local version `version`.
    var uploadWaiters: [(version: UInt64, resume: @Sendable (Error?) -> Void)] = []
    var progress = TransferProgress()
    /// A client reset under way (``ClientResetState``), nil otherwise.
    var reset: ClientResetState?
    private var pollTimer: DispatchSourceTimer?

    init(file: FileAccess, configuration: SyncConfiguration, realmConfiguration: Realm.Configuration? = nil) {
        self.file = file
        self.configuration = configuration
        self.realmConfiguration = realmConfiguration
        user = configuration.user
        subscriptionStore = configuration.enableFlexibleSync ? SubscriptionStore(file: file) : nil
        queue = DispatchQueue(label: "openrealm.sync.session")
    }

    /// The session's state.
    public var state: State { published.withLock { $0.state } }
    /// The connection's state.
    public var connectionState: ConnectionState { published.withLock { $0.connectionState } }
    /// The user the session syncs for.
    public func parentUser() -> User? { user }

    func setConnectionState(_ s: ConnectionState) { published.withLock { $0.connectionState = s } }
    func setState(_ s: State) { published.withLock { $0.state = s } }

    // MARK: Lifecycle

    /// Starts syncing: prepares the file (its log hold), picks up a client reset an
    /// earlier process left unfinished, and connects.
    func start() throws {
        let pendingReset = try file.write { txn -> Bool in
            let progress = SyncProgressStore.progress(txn)
            _ = orc_log_hold(txn, SyncProgressStore.logConsumer, ClientResetStore.logHoldVersion(txn, progress))
            for stamp in CommitStamps.all(txn).values { clock.receive(stamp) }
            return ClientResetStore.marker(txn) != nil
        }.0
        queue.async { [self] in
            if pendingReset { reset = ClientResetState(before: nil) }
            let timer = DispatchSource.makeTimerSource(queue: queue)
            timer.schedule(deadline: .now() + .milliseconds(20), repeating: .milliseconds(20))
            timer.setEventHandler { [weak self] in self?.poll() }
            timer.resume()
            pollTimer = timer
            connect()
        }
    }

    /// Stops for good (logout): closes the connection and fails every wait.
    func stop() {
        queue.async { [self] in
            stoppedForGood = true
            wantsConnection = false
            setState(.inactive)
            pollTimer?.cancel()
            pollTimer = nil
            closeConnection()
            failWaiters(SyncError(.connectionFailed, "The sync session of '\(file.path)' stopped: its user logged out."))
        }
    }

    /// Disconnects and stops syncing until `resume()`; local writes keep working.
    /// Waits in progress keep waiting, and end once the session is resumed and done.
    public func suspend() {
        queue.async { [self] in
            guard !stoppedForGood else { return }
            wantsConnection = false
            setState(.paused)
            closeConnection()
        }
    }

    /// Resumes a suspended session: connects and uploads what was written meanwhile.
    public func resume() {
        queue.async { [self] in
            guard !stoppedForGood else { return }
            wantsConnection = true
            setState(.active)
            backoffAttempts = 0
            connect()
        }
    }

    /// Reconnects at once, without waiting for the backoff.
    public func reconnect() {
        queue.async { [self] in
            guard !stoppedForGood, wantsConnection else { return }
            backoffAttempts = 0
            if connection == nil { connect() }
        }
    }

    /// Drops the connection as a network failure would, and reconnects after the
    /// backoff (for tests of lost connections).
    func simulateConnectionLoss() {
        queue.async { [self] in
            guard connection != nil else { return }
            connectionLost("the connection was dropped on purpose")
        }
    }

    // MARK: Connecting

    private var syncURL: URL? {
        var base = user.appState.configuration.resolvedBaseURL
        if base.hasPrefix("https://") { base = "wss://" + base.dropFirst(8) } else if base.hasPrefix("http://") { base = "ws://" + base.dropFirst(7) }
        return URL(string: base + "/api/client/v2.0/app/\(user.appState.id)/realm-sync")
    }

    /// How long an access-token fetch may take before the attempt is abandoned: the app's
    /// request timeout (the transport's own deadline) and a margin.
    var tokenTimeout: TimeInterval { TimeInterval(user.appState.configuration.defaultRequestTimeoutMS) / 1000 + 5 }

    /// Starts a connection attempt: fetches a valid access token, then opens the
    /// WebSocket. Does nothing while connected, connecting, or fetching a token already
    /// (a second fetch would make the session drop the first one's answer).
    func connect() {
        guard wantsConnection, !stoppedForGood, connection == nil, tokenRequestedAt == nil else { return }
        cancelScheduledReconnect()
        log(.detail, "connecting (attempt \(backoffAttempts))")
        connectGeneration += 1
        let generation = connectGeneration
        tokenRequestedAt = .now()
        setConnectionState(.connecting)
        // The token request has its own deadline (the app's request timeout), and the
        // session abandons it past `tokenTimeout` in any case.
        let user = self.user
        Task { [weak self] in
            let token: Result<String, Error>
            do { token = .success(try await user.validAccessToken()) } catch { token = .failure(error) }
            guard let self else { return }
            self.queue.async { self.openSocket(token, generation) }
        }
    }

    private func openSocket(_ token: Result<String, Error>, _ generation: Int) {
        guard generation == connectGeneration else {
            log(.debug, "an access token arrived for an abandoned attempt (\(generation) of \(connectGeneration))")
            return
        }
        tokenRequestedAt = nil
        guard wantsConnection, !stoppedForGood, connection == nil else {
            if connection == nil { setConnectionState(.disconnected) }
            return
        }
        let accessToken: String
        switch token {
        case .success(let t): accessToken = t
        case .failure(let error):
            if let appError = error as? AppError, appError.code == .httpRequestFailed {
                setConnectionState(.disconnected)
                connectionLost("cannot refresh the access token: \(appError.message)")
            } else {
                stopWithError(SyncError(.authenticationFailed, "User \(user.id) cannot sync: \(error)"))
            }
            return
        }
        guard let url = syncURL else {
            stopWithError(SyncError(.connectionFailed, "The app's baseURL does not make a valid sync URL."))
            return
        }
        var tls: WebSocketConnection.TLS?
        if url.scheme == "wss" {
            let configuration = user.appState.configuration
            do { tls = WebSocketConnection.TLS(context: try configuration.tlsContext(), trust: configuration.trustDescription) } catch {
                stopWithError(SyncError(.tlsHandshakeFailed, "Cannot sync '\(file.path)' with \(url): \(error)"))
                return
            }
        }
        decoder = WireFrameDecoder()
        bound = false
        bindSent = false
        let holder = UncheckedBox<WebSocketConnection?>(nil)
        let conn = WebSocketConnection(url: url, tls: tls) { [weak self] event in
            guard let self else { return }
            self.queue.async {
                guard let conn = holder.value else { return }
                self.handle(event, from: conn, token: accessToken)
            }
        }
        holder.value = conn
        connection = conn
        log(.detail, "opening a WebSocket to \(url)")
        handshakeDeadline = .now() + Self.handshakeTimeout
        socketDeadline = .now() + Self.socketOpenTimeout
        lastTrafficAt = .now()
        pingSent = false
        conn.connect()
    }

    private func handle(_ event: WebSocketConnection.Event, from conn: WebSocketConnection, token: String) {
        guard conn === connection else { return }
        lastTrafficAt = .now()
        pingSent = false
        switch event {
        case .opened:
            log(.detail, "WebSocket open; sending bind of session \(sessionNumber + 1)")
            socketDeadline = nil
            sessionNumber += 1
            let (identity, progress) = (try? file.read { (SyncProgressStore.identity($0), SyncProgressStore.progress($0)) })
                ?? (nil, SyncProgressStore.Progress())
            guard send(.bind(WireBind(session: sessionNumber, appId: user.appState.id, accessToken: token, fileIdentity: identity,
                                      lastIntegratedServerVersion: identity == nil ? 0 : progress.serverVersion,
                                      syncMode: configuration.syncMode))) else {
                connectionLost("the bind could not be written to the new WebSocket")
                return
            }
            bindSent = true
            lastSentQueryVersion = 0
            sendLatestQuery()
        case .message(let bytes):
            do {
                for message in try decoder.feed(bytes) {
                    receive(message)
                    // A message may have ended this connection (a fatal error, a reset).
                    guard conn === connection else { return }
                }
            } catch {
                send(.error(WireErrorMessage(error)))
                connectionLost("the server sent a frame that does not decode: \(error)")
            }
        case .closed(let reason):
            connectionLost(reason ?? "the connection closed")
        case .tlsFailed(let failure) where failure.isPermanent:
            // A certificate that does not verify, or a server without TLS: retrying cannot
            // help, and a session retrying quietly is a sync that silently never happens.
            stopWithError(SyncError(.tlsHandshakeFailed, "Cannot sync '\(file.path)' with \(syncURL?.absoluteString ?? "the server"): \(failure)"))
        case .tlsFailed(let failure):
            connectionLost(failure.description)
        case .upgradeRefused(let refusal) where refusal.isPermanent:
            // A proxy that does not pass the upgrade on, a base URL leading elsewhere: the
            // same answer would come on every retry, which the app would never see.
            stopWithError(SyncError(.connectionFailed, "Cannot sync '\(file.path)' with \(syncURL?.absoluteString ?? "the server"): \(refusal)"))
        case .upgradeRefused(let refusal):
            connectionLost(refusal.description)
        }
    }

    /// Writes a message to the connection; false when there is none to write to.
    @discardableResult
    func send(_ message: WireMessage) -> Bool {
        guard let connection, let bytes = try? WireEncoder().encode(message) else { return false }
        return connection.send(bytes)
    }

    func closeConnection() {
        guard let conn = connection else { return }
        if bound { send(.unbind(WireUnbind(session: sessionNumber))) }
        connection = nil
        bound = false
        bindSent = false
        handshakeDeadline = nil
        socketDeadline = nil
        bootstrapBuffer = []
        progress.downloadInterrupted()
        setConnectionState(.disconnected)
        conn.close()
    }

    func connectionLost(_ reason: String) {
        log(.detail, "connection lost: \(reason)")
        closeConnection()
        scheduleReconnect()
    }

    /// Schedules the next connection attempt after the backoff (half a second doubling
    /// per failed attempt, up to ``maxBackoff``, ±20 %), unless one is scheduled already.
    func scheduleReconnect(after minimum: TimeInterval = 0) {
        guard wantsConnection, !stoppedForGood, reconnectTimer == nil else { return }
        let delay = max(minimum, min(Self.maxBackoff, 0.5 * pow(2, Double(backoffAttempts))) * Double.random(in: 0.8...1.2))
        // Counted up to the cap only, so that a long outage does not grow it further.
        backoffAttempts = min(backoffAttempts + 1, 16)
        log(.detail, "reconnecting in \(String(format: "%.2f", delay)) s")
        let timer = DispatchWorkItem { [weak self] in
            guard let self else { return }
            reconnectTimer = nil
            connect()
        }
        reconnectTimer = timer
        queue.asyncAfter(deadline: .now() + delay, execute: timer)
    }

    /// Cancels the scheduled reconnect (a connection attempt is starting now).
    func cancelScheduledReconnect() {
        reconnectTimer?.cancel()
        reconnectTimer = nil
    }

    func stopWithError(_ error: SyncError, reportTo handler: ErrorReportingBlock? = nil) {
        stopError = error
        stoppedForGood = true
        wantsConnection = false
        setState(.inactive)
        closeConnection()
        if let handler { handler(error, self) } else { report(error) }
        failWaiters(error)
    }

    /// Logs through the app's ``SyncManager`` (its `logLevel` and `logger`).
    func log(_ level: SyncLogLevel, _ message: @autoclosure () -> String) {
        user.appState.syncManager.log(level, "\(file.path.split(separator: "/").last ?? ""): \(message())")
    }

    func report(_ error: SyncError) {
        user.appState.syncManager.errorHandler?(error, self)
    }

    // MARK: Liveness

    /// Runs every 20 ms: uploads new local commits, sends a new subscription set, and
    /// drops a connection that is stuck in its handshake or went silent.
    /// A local write committed: upload now rather than at the next poll (which still
    /// catches commits made by other processes).
    func localCommitted() {
        // One poll queued at a time: a commit loop faster than a poll would otherwise
        // queue polls without bound, and a lost connection, a reconnect or an arriving
        // message would wait behind all of them (seconds to minutes under load).
        guard !commitPollQueued.exchange(true, ordering: .acquiringAndReleasing) else { return }
        queue.async { [self] in
            commitPollQueued.store(false, ordering: .releasing)
            poll()
        }
    }

    /// Whether a poll for a local commit is queued already.
    private let commitPollQueued = Atomic<Bool>(false)

    private func poll() {
        checkConnectionHealth()
        let version = file.latestVersion()
        guard version != lastSeenFileVersion else { return }
        lastSeenFileVersion = version
        if bound {
            uploadPending()
        }
        sendLatestQuery()
        if progress.hasUploadObservers { measurePendingUploads() }
    }

    private func checkConnectionHealth() {
        let now = DispatchTime.now()
        guard connection != nil else {
            // A token fetch that outlived its deadline is abandoned (its late answer is
            // ignored) and the attempt counts as failed.
            if let asked = tokenRequestedAt, now > asked + tokenTimeout {
                tokenRequestedAt = nil
                connectGeneration += 1
                setConnectionState(.disconnected)
                connectionLost("no access token within \(Int(tokenTimeout)) seconds")
            }
            return
        }
        if let deadline = socketDeadline, now > deadline {
            connectionLost("the WebSocket did not open within \(Int(Self.socketOpenTimeout)) seconds (TCP connect and HTTP upgrade)")
            return
        }
        if !bound, let deadline = handshakeDeadline, now > deadline {
            connectionLost("the server did not accept the session within \(Int(Self.handshakeTimeout)) seconds")
            return
        }
        guard bound else { return }
        let silent = Double(now.uptimeNanoseconds &- lastTrafficAt.uptimeNanoseconds) / 1e9
        if silent > Self.keepaliveInterval + Self.keepaliveTimeout {
            connectionLost("the server sent nothing for \(Int(silent)) seconds, not even a pong")
        } else if silent > Self.keepaliveInterval, !pingSent {
            pingSent = true
            send(.ping(WirePing(timestamp: now.uptimeNanoseconds / 1_000_000)))
        }
    }

    // MARK: Messages

    private func receive(_ message: WireMessage) {
        switch message {
        case .ident(let ident) where ident.session == sessionNumber:
            receiveIdent(ident)
        case .download(let d) where d.session == sessionNumber:
            receiveDownload(d)
        case .mark(let mark) where mark.session == sessionNumber:
            let ready = markWaiters.filter { $0.id <= mark.requestId }
            markWaiters.removeAll { $0.id <= mark.requestId }
            for w in ready { w.resume(nil) }
        case .error(let e):
            handleError(e)
        case .ping(let ping):
            send(.pong(WirePong(timestamp: ping.timestamp)))
        default:
            break
        }
    }

    private func receiveIdent(_ ident: WireIdent) {
        do {
            let (base, acknowledged) = try file.write { txn -> (UInt64, UInt64?) in
                if SyncProgressStore.identity(txn) != ident.fileIdentity {
                    try SyncProgressStore.setIdentity(txn, ident.fileIdentity)
                }
                // The ident says what the server already integrated: an upload whose
                // acknowledgement was lost with the last connection is answered here.
                var progress = SyncProgressStore.progress(txn)
                var acknowledged: UInt64?
                if reset == nil, ident.lastIntegratedClientVersion > progress.acknowledgedClientVersion {
                    progress.acknowledgedClientVersion = ident.lastIntegratedClientVersion
                    try SyncProgressStore.setProgress(txn, progress)
                    _ = orc_log_hold(txn, SyncProgressStore.logConsumer, ClientResetStore.logHoldVersion(txn, progress))
                    acknowledged = progress.acknowledgedClientVersion
                }
                return (SyncProgressStore.uploadBase(txn), acknowledged)
            }.0
            log(.detail, "bound: session \(sessionNumber), client version \(ident.lastIntegratedClientVersion) integrated")
            bound = true
            handshakeDeadline = nil
            backoffAttempts = 0
            setConnectionState(.connected)
            uploadCursor = max(ident.lastIntegratedClientVersion, base)
            if let acknowledged { didAcknowledge(upTo: acknowledged) }
            // Marks sent on an earlier connection died with it: send every pending one.
            for w in markWaiters { send(.mark(WireMark(session: sessionNumber, requestId: w.id))) }
            if reset != nil {
                resetIdentReceived(ident)
            } else {
                uploadPending()
            }
        } catch {
            connectionLost("storing the file identity failed: \(error)")
        }
    }

    private func receiveDownload(_ d: WireDownload) {
        if reset != nil {
            receiveResetDownload(d)
            return
        }
        progress.downloaded(d)
        if d.bootstrap == .inProgress {
            bootstrapBuffer += d.changesets
            notifyProgress()
            return
        }
        let changesets = bootstrapBuffer + d.changesets
        bootstrapBuffer = []
        integrate(changesets, progress: d.progress, completedQuery: d.bootstrap == .lastBatch ? d.queryVersion : nil)
    }

    private func handleError(_ e: WireErrorMessage) {
        if let qv = e.queryVersion, e.code == .invalidSubscriptionQuery || e.code == .limitsExceeded {
            try? subscriptionStore?.setState(Int64(qv), complete: false, errorMessage: e.message)
            report(SyncError(.invalidFlexibleSyncSubscriptions, e.message, serverCode: e.code))
        } else if e.code == .writeNotAllowed {
            let info = e.compensatingWrite?.writes.map {
                SyncError.CompensatingWriteInfo(objectType: $0.object.className, primaryKey: $0.object.primaryKey.description, reason: $0.reason)
            }
            report(SyncError(.writeRejected, e.message, serverCode: e.code, compensatingWriteInfo: info))
        }
        guard e.isFatal else { return }
        switch e.code {
        case .tokenExpired:
            closeConnection()
            let user = self.user
            Task { [weak self] in
                _ = try? await user.refreshAccessToken()
                guard let self else { return }
                self.queue.async { self.scheduleReconnect() }
            }
        case .badAuthentication:
            stopWithError(SyncError(.authenticationFailed, e.message, serverCode: e.code))
        case .clientResetRequired:
            beginClientReset(e)
        case .permissionDenied:
            stopWithError(SyncError(.permissionDenied, e.message, serverCode: e.code))
        case .wrongSyncMode, .unsupportedVersion:
            stopWithError(SyncError(.wrongSyncMode, e.message, serverCode: e.code))
        case .serverShuttingDown:
            closeConnection()
            scheduleReconnect(after: 1)
        default:
            report(SyncError(.otherError, e.message, serverCode: e.code))
            connectionLost(e.message)
        }
    }

    /// Integrates downloaded changesets and progress in one write transaction.
    private func integrate(_ changesets: [WireDownloadChangeset], progress downloadProgress: WireDownloadProgress, completedQuery: UInt64?) {
        let instructions = changesets.flatMap(\.instructions)
        for c in changesets { clock.receive(c.timestamp) }
        do {
            let current = try file.read { SyncProgressStore.progress($0) }
            var updated = current
            updated.serverVersion = max(current.serverVersion, downloadProgress.serverVersion)
            updated.acknowledgedClientVersion = max(current.acknowledgedClientVersion, downloadProgress.lastIntegratedClientVersion)
            if !instructions.isEmpty || updated != current {
                var pending = pendingEdits
                _ = try file.write { txn in
                    var applier = ChangesetApplier(txn: txn)
                    if completedQuery != nil { try SyncProgressStore.setViewServerVersion(txn, updated.serverVersion) }
                    applier.apply(try pending.integrate(changesets, txn, viewServerVersion: SyncProgressStore.viewServerVersion(txn)))
                    pending.acknowledge(upTo: updated.acknowledgedClientVersion)
                    try pending.save(txn)
                    try CommitStamps.prune(txn, upTo: updated.acknowledgedClientVersion)
                    try SyncProgressStore.setProgress(txn, updated)
                    if updated.acknowledgedClientVersion != current.acknowledgedClientVersion {
                        _ = orc_log_hold(txn, SyncProgressStore.logConsumer, ClientResetStore.logHoldVersion(txn, updated))
                    }
                    var list = SyncProgressStore.integrations(txn)
                    list.append((orc_txn_version(txn) + 1, updated.serverVersion))
                    // Entries below the acknowledged version are needed only for the last one.
                    if let keep = list.lastIndex(where: { $0.local <= updated.acknowledgedClientVersion }), keep > 0 {
                        list.removeFirst(keep)
                    }
                    try SyncProgressStore.setIntegrations(txn, list)
                }
                pendingEdits = pending
            }
            if let qv = completedQuery {
                try subscriptionStore?.setState(Int64(qv), complete: true, errorMessage: nil)
            }
            didAcknowledge(upTo: updated.acknowledgedClientVersion)
        } catch {
            send(.error(WireErrorMessage(session: sessionNumber, code: .badChangeset, message: "the client could not integrate a download: \(error)", isFatal: true)))
            connectionLost("integrating a download failed: \(error)")
        }
    }

    /// The server has integrated local versions up to `acked`: forget their pending
    /// edits, count their bytes as uploaded, and answer the upload waits they satisfy.
    func didAcknowledge(upTo acked: UInt64) {
        pendingEdits.acknowledge(upTo: acked)
        progress.acknowledged(upTo: acked)
        let ready = uploadWaiters.filter { $0.version <= acked }
        uploadWaiters.removeAll { $0.version <= acked }
        for w in ready { w.resume(nil) }
        notifyProgress()
    }

    // MARK: Upload and queries

    /// Uploads the local commits after the cursor that carry synced changes.
    ///
    /// Each changeset is encoded once: the bytes that size it for progress and for the
    /// batch bound go into the upload frame as they are
    /// (``WireEncoder/encodeUpload(session:changesets:)``).
    func uploadPending() {
        guard bound, reset == nil, !Self.uploadsHeld.withLock({ $0.contains(file.path) }) else { return }
        let head = file.latestVersion()
        guard head > uploadCursor else { return }
        do {
            let changesets = try file.read { txn -> [WireEncoder.EncodedUploadChangeset] in
                let integrations = SyncProgressStore.integrations(txn)
                let integrated = Set(integrations.map(\.local))
                let stamps = CommitStamps.all(txn)
                let values = ValueConversion(txn: txn)
                var out: [WireEncoder.EncodedUploadChangeset] = []
                var v = uploadCursor + 1
                while v <= head {
                    defer { v += 1 }
                    if integrated.contains(v) { continue }
                    let instructions = try ChangesetReader.instructions(txn, version: v, values: values)
                    if instructions.isEmpty { continue }
                    let bytes: [UInt8]
                    do { bytes = try WireChangeset(instructions).encoded() } catch {
                        throw SyncError(.otherError, "The local changeset of version \(v) cannot be encoded for upload: \(error)")
                    }
                    out.append(WireEncoder.EncodedUploadChangeset(
                        clientVersion: v, lastIntegratedServerVersion: SyncProgressStore.serverVersion(before: v, integrations),
                        timestamp: stamps[v] ?? clock.tick(), instructions: bytes))
                }
                return out
            }
            uploadCursor = head
            var batch: [WireEncoder.EncodedUploadChangeset] = []
            var size = 0
            func flush() {
                guard let connection, let frame = try? WireEncoder().encodeUpload(session: sessionNumber, changesets: batch) else { return }
                connection.send(frame)
            }
            for c in changesets {
                let bytes = c.instructions.count
                progress.measuredUpload(version: c.clientVersion, bytes: bytes, upTo: head)
                if !batch.isEmpty && size + bytes > 8 << 20 {
                    flush()
                    batch = []
                    size = 0
                }
                batch.append(c)
                size += bytes
            }
            if !batch.isEmpty {
                flush()
                notifyProgress()
            }
        } catch {
            report(SyncError(.otherError, "Uploading local changes of '\(file.path)' failed: \(error)"))
        }
    }

    /// Files whose sessions hold their uploads back (tests: to keep local changes
    /// unacknowledged while downloads arrive). Releasing one uploads at the next local
    /// commit or `wait(for: .upload)`.
    static let uploadsHeld = Mutex<Set<String>>([])

    /// Sends the latest subscription set when the server has not got it yet.
    func sendLatestQuery() {
        guard bindSent, let store = subscriptionStore else { return }
        let latest = store.load().latest
        guard latest.version > lastSentQueryVersion, latest.version > 0 else { return }
        lastSentQueryVersion = latest.version
        var byClass: [String: [String]] = [:]
        for entry in latest.entries { byClass[entry.className, default: []].append(entry.query) }
        let queries = byClass.keys.sorted().map { className -> WireClassQuery in
            let parts = Array(Set(byClass[className]!)).sorted()
            let combined = parts.contains("TRUEPREDICATE") ? "TRUEPREDICATE"
                : parts.count == 1 ? parts[0] : parts.map { "(\($0))" }.joined(separator: " OR ")
            return WireClassQuery(className: className, query: combined)
        }
        send(.query(WireQuery(session: sessionNumber, queryVersion: UInt64(latest.version), queries: queries)))
    }

    /// Called after a local subscription commit.
    func subscriptionsChanged() {
        queue.async { [self] in sendLatestQuery() }
    }

    /// The highest local version in (acknowledged, upTo] with synced changes, or nil.
    func lastContentVersion(upTo head: UInt64) -> UInt64? {
        try? file.read { txn -> UInt64? in
            let progress = SyncProgressStore.progress(txn)
            let integrated = Set(SyncProgressStore.integrations(txn).map(\.local))
            let base = max(progress.acknowledgedClientVersion, SyncProgressStore.uploadBase(txn))
            var v = head
            while v > base {
                if !integrated.contains(v), let i = try? ChangesetReader.instructions(txn, version: v), !i.isEmpty { return v }
                v -= 1
            }
            return nil
        } ?? nil
    }

    /// Whether every local change has been acknowledged by the server.
    var hasUnuploadedChanges: Bool { lastContentVersion(upTo: file.latestVersion()) != nil }
}
