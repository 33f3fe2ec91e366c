import Foundation
import ORCore
import OpenRealm
import OpenRealmWire
import Synchronization

/// The sync of one realm file with the server: a connection and the session on it,
/// upload of local commits, download and integration of the server's changes, and the
/// subscription sets of a flexible sync realm.
///
/// The parts, each a type of its own that this class drives on its queue: the
/// connection's life (`SyncSession+Connection.swift`, over a ``SyncTransport`` — a
/// WebSocket, or in tests an in-memory transport — with ``ConnectionDeadlines``),
/// ``ChangesetUploader`` (local commits into `upload` frames), ``DownloadIntegrator``
/// (downloads into the file) and ``QuerySender`` (subscription sets into `query`
/// messages); client resets in `ClientReset/`.
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
    /// How the session reaches the server (the app's; see ``SyncTransport``).
    let transport: any SyncTransport
    var connection: (any SyncTransportConnection)?
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
    /// The deadlines of the connection attempt and the keepalive of the open connection.
    var deadlines = ConnectionDeadlines(socketOpenTimeout: SyncSession.socketOpenTimeout, handshakeTimeout: SyncSession.handshakeTimeout,
                                        keepaliveInterval: SyncSession.keepaliveInterval, keepaliveTimeout: SyncSession.keepaliveTimeout)
    var lastSeenFileVersion: UInt64 = 0
    /// Local commits into upload frames.
    var uploader = ChangesetUploader()
    /// Downloads into the file (a bootstrap's batches, the unacknowledged local edits).
    var downloads = DownloadIntegrator()
    /// Subscription sets into `query` messages.
    var queries = QuerySender()
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
        transport = configuration.user.appState.syncTransport
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
            _ = orc_log_hold(txn.handle, SyncProgressStore.logConsumer, ClientResetStore.logHoldVersion(txn, progress))
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

    // MARK: Messages

    func receive(_ message: WireMessage) {
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
                    _ = orc_log_hold(txn.handle, SyncProgressStore.logConsumer, ClientResetStore.logHoldVersion(txn, progress))
                    acknowledged = progress.acknowledgedClientVersion
                }
                return (SyncProgressStore.uploadBase(txn), acknowledged)
            }.0
            log(.detail, "bound: session \(sessionNumber), client version \(ident.lastIntegratedClientVersion) integrated")
            bound = true
            deadlines.handshake = nil
            backoffAttempts = 0
            setConnectionState(.connected)
            uploader.cursor = max(ident.lastIntegratedClientVersion, base)
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
        guard let changesets = downloads.receive(d) else {
            notifyProgress()
            return
        }
        integrate(changesets, progress: d.progress, completedQuery: d.bootstrap == .lastBatch ? d.queryVersion : nil)
    }

    private func handleError(_ e: WireErrorMessage) {
        if let qv = e.queryVersion, e.code == .invalidSubscriptionQuery || e.code == .limitsExceeded {
            try? subscriptionStore?.setState(Int64(qv), complete: false, errorMessage: e.message)
            report(SyncError(.invalidFlexibleSyncSubscriptions, e.message, serverCode: e.code))
        } else if e.code == .writeNotAllowed {
            let info = e.compensatingWrite?.writes.map {
                SyncError.CompensatingWriteInfo(objectType: $0.object.className, primaryKey: $0.object.primaryKey.anyRealmValue, reason: $0.reason)
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
            var error = SyncError(.permissionDenied, e.message, serverCode: e.code)
            error.actionToken = SyncError.ActionToken(path: file.path, backupPath: nil)
            stopWithError(error)
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
        do {
            let acknowledged = try downloads.integrate(changesets, progress: downloadProgress, completedQuery: completedQuery,
                                                       file: file, clock: clock, subscriptions: subscriptionStore)
            didAcknowledge(upTo: acknowledged)
        } catch {
            send(.error(WireErrorMessage(session: sessionNumber, code: .badChangeset, message: "the client could not integrate a download: \(error)", isFatal: true)))
            connectionLost("integrating a download failed: \(error)")
        }
    }

    /// The server has integrated local versions up to `acked`: forget their pending
    /// edits, count their bytes as uploaded, and answer the upload waits they satisfy.
    func didAcknowledge(upTo acked: UInt64) {
        downloads.pendingEdits.acknowledge(upTo: acked)
        progress.acknowledged(upTo: acked)
        let ready = uploadWaiters.filter { $0.version <= acked }
        uploadWaiters.removeAll { $0.version <= acked }
        for w in ready { w.resume(nil) }
        notifyProgress()
    }

    // MARK: Upload and queries

    /// Uploads the local commits after the cursor that carry synced changes
    /// (``ChangesetUploader``).
    func uploadPending() {
        guard bound, reset == nil, !Self.uploadsHeld.withLock({ $0.contains(file.path) }) else { return }
        do {
            let frames = try uploader.frames(file, upTo: file.latestVersion(), session: sessionNumber, clock: clock, progress: &progress)
            for frame in frames { connection?.send(frame) }
            if !frames.isEmpty { notifyProgress() }
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
        guard bindSent, let store = subscriptionStore, let query = queries.nextQuery(store, session: sessionNumber) else { return }
        send(.query(query))
    }

    /// Called after a local subscription commit.
    func subscriptionsChanged() {
        queue.async { [self] in sendLatestQuery() }
    }

    /// The highest local version in (acknowledged, upTo] with synced changes, or nil.
    func lastContentVersion(upTo head: UInt64) -> UInt64? {
        try? file.read { txn -> UInt64? in
            let progress = SyncProgressStore.progress(txn)
            let base = max(progress.acknowledgedClientVersion, SyncProgressStore.uploadBase(txn))
            return ChangesetReader.localVersions(txn, after: base, through: head).reversed().first { v in
                (try? ChangesetReader.instructions(txn.handle, version: v))?.isEmpty == false
            }
        } ?? nil
    }

    /// Whether every local change has been acknowledged by the server.
    var hasUnuploadedChanges: Bool { lastContentVersion(upTo: file.latestVersion()) != nil }
}
