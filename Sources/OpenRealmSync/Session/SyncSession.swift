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

    /// A transfer's progress.
    public struct Progress: Sendable {
        /// Bytes transferred so far.
        public let transferredBytes: Int
        /// Bytes transferred plus those known to remain.
        public let transferrableBytes: Int
        /// Whether nothing remains.
        public var isTransferComplete: Bool { transferredBytes >= transferrableBytes }
        /// The fraction done, 0...1.
        public var fractionTransferred: Double {
            transferrableBytes == 0 ? 1 : min(1, Double(transferredBytes) / Double(transferrableBytes))
        }
    }

    let file: FileAccess
    let configuration: SyncConfiguration
    let subscriptionStore: SubscriptionStore?
    let user: User
    let queue: DispatchQueue

    private struct Published {
        var state: State = .active
        var connectionState: ConnectionState = .disconnected
    }
    private let published = Mutex(Published())

    // Everything below is used on `queue` only.
    private var connection: WebSocketConnection?
    private var decoder = WireFrameDecoder()
    private var sessionNumber: UInt64 = 0
    private var bound = false
    private var wantsConnection = true
    private var stoppedForGood = false
    private var backoffAttempts = 0
    private var reconnectScheduled = false
    private var connectGeneration = 0
    private var uploadCursor: UInt64 = 0
    private var lastSentQueryVersion: Int64 = 0
    private var lastSeenFileVersion: UInt64 = 0
    private var bootstrapBuffer: [WireDownloadChangeset] = []
    /// Local changesets the server has not acknowledged, by local version, as the client
    /// holds them: transformed past the list edits downloaded since they were made
    /// (``PendingEdits``).
    private var pendingEdits = PendingEdits()
    /// The file's clock: downloads move it, local commits take readings (``CommitStamps``).
    let clock = SyncClock()
    private var nextMarkId: UInt64 = 0
    private var markWaiters: [(id: UInt64, resume: @Sendable (Error?) -> Void)] = []
    private var unsentMarks: [UInt64] = []
    private var uploadWaiters: [(version: UInt64, resume: @Sendable (Error?) -> Void)] = []
    private var progressBlocks: [UInt64: (ProgressDirection, ProgressMode, (Progress) -> Void)] = [:]
    private var nextProgressToken: UInt64 = 0
    private var downloadedBytes = 0
    private var downloadableBytes = 0
    private var uploadedBytes = 0
    private var pollTimer: DispatchSourceTimer?

    init(file: FileAccess, configuration: SyncConfiguration) {
        self.file = file
        self.configuration = configuration
        user = configuration.user
        subscriptionStore = configuration.enableFlexibleSync ? SubscriptionStore(file: file) : nil
        queue = DispatchQueue(label: "openrealm.sync.session")
    }

    /// The session's state.
    public var state: State { published.withLock { $0.state } }
    /// The connection's state.
    public var connectionState: ConnectionState { published.withLock { $0.connectionState } }
    /// The user the session syncs for.
    public var parentUser: User? { user }

    private func setConnectionState(_ s: ConnectionState) { published.withLock { $0.connectionState = s } }
    private func setState(_ s: State) { published.withLock { $0.state = s } }

    // MARK: Lifecycle

    /// Starts syncing: prepares the file (its log hold) and connects.
    func start() throws {
        _ = try file.write { txn in
            let progress = SyncProgressStore.progress(txn)
            _ = orc_log_hold(txn, SyncProgressStore.logConsumer, progress.acknowledgedClientVersion)
            for stamp in CommitStamps.all(txn).values { clock.receive(stamp) }
        }
        queue.async { [self] in
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

    // MARK: Connecting

    private var syncURL: URL? {
        var base = user.appState.configuration.resolvedBaseURL
        if base.hasPrefix("https://") { base = "wss://" + base.dropFirst(8) } else if base.hasPrefix("http://") { base = "ws://" + base.dropFirst(7) }
        return URL(string: base + "/api/client/v2.0/app/\(user.appState.id)/realm-sync")
    }

    private func connect() {
        guard wantsConnection, !stoppedForGood, connection == nil else { return }
        connectGeneration += 1
        let generation = connectGeneration
        setConnectionState(.connecting)
        let user = self.user
        Task { [weak self] in
            let token: Result<String, Error>
            do { token = .success(try await user.validAccessToken()) } catch { token = .failure(error) }
            guard let self else { return }
            self.queue.async { self.openSocket(token, generation) }
        }
    }

    private func openSocket(_ token: Result<String, Error>, _ generation: Int) {
        guard generation == connectGeneration, wantsConnection, connection == nil else { return }
        let accessToken: String
        switch token {
        case .success(let t): accessToken = t
        case .failure(let error):
            if let appError = error as? AppError, appError.code == .httpRequestFailed {
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
        decoder = WireFrameDecoder()
        bound = false
        let holder = UncheckedBox<WebSocketConnection?>(nil)
        let conn = WebSocketConnection(url: url) { [weak self] event in
            guard let self else { return }
            self.queue.async {
                guard let conn = holder.value else { return }
                self.handle(event, from: conn, token: accessToken)
            }
        }
        holder.value = conn
        connection = conn
        conn.connect()
    }

    private func handle(_ event: WebSocketConnection.Event, from conn: WebSocketConnection, token: String) {
        guard conn === connection else { return }
        switch event {
        case .opened:
            sessionNumber += 1
            let (identity, progress) = (try? file.read { (SyncProgressStore.identity($0), SyncProgressStore.progress($0)) })
                ?? (nil, SyncProgressStore.Progress())
            send(.bind(WireBind(session: sessionNumber, appId: user.appState.id, accessToken: token, fileIdentity: identity,
                                lastIntegratedServerVersion: identity == nil ? 0 : progress.serverVersion,
                                syncMode: configuration.syncMode)))
            lastSentQueryVersion = 0
            sendLatestQuery()
        case .message(let bytes):
            do {
                for message in try decoder.feed(bytes) { receive(message) }
            } catch {
                send(.error(WireErrorMessage(error)))
                connectionLost("the server sent a frame that does not decode: \(error)")
            }
        case .closed(let reason):
            connectionLost(reason ?? "the connection closed")
        }
    }

    private func send(_ message: WireMessage) {
        guard let connection, let bytes = try? WireEncoder().encode(message) else { return }
        if case .upload = message { uploadedBytes += bytes.count }
        connection.send(bytes)
    }

    private func closeConnection() {
        guard let conn = connection else { return }
        if bound { send(.unbind(WireUnbind(session: sessionNumber))) }
        connection = nil
        bound = false
        bootstrapBuffer = []
        setConnectionState(.disconnected)
        conn.close()
    }

    private func connectionLost(_ reason: String) {
        closeConnection()
        scheduleReconnect()
    }

    private func scheduleReconnect(after minimum: TimeInterval = 0) {
        guard wantsConnection, !stoppedForGood, !reconnectScheduled else { return }
        reconnectScheduled = true
        let delay = max(minimum, min(60, 0.5 * pow(2, Double(backoffAttempts))) * Double.random(in: 0.8...1.2))
        backoffAttempts += 1
        queue.asyncAfter(deadline: .now() + delay) { [self] in
            reconnectScheduled = false
            connect()
        }
    }

    private func stopWithError(_ error: SyncError) {
        stoppedForGood = true
        wantsConnection = false
        setState(.inactive)
        closeConnection()
        report(error)
        failWaiters(error)
    }

    private func failWaiters(_ error: Error) {
        for w in markWaiters { w.resume(error) }
        markWaiters = []
        unsentMarks = []
        for w in uploadWaiters { w.resume(error) }
        uploadWaiters = []
        SubscriptionWaiters.shared.failAll(path: file.path, error: error)
    }

    private func report(_ error: SyncError) {
        user.appState.syncManager.errorHandler?(error, self)
    }

    // MARK: Messages

    private func receive(_ message: WireMessage) {
        switch message {
        case .ident(let ident) where ident.session == sessionNumber:
            do {
                let base = try file.write { txn -> UInt64 in
                    if SyncProgressStore.identity(txn) != ident.fileIdentity {
                        try SyncProgressStore.setIdentity(txn, ident.fileIdentity)
                    }
                    return SyncProgressStore.uploadBase(txn)
                }.0
                bound = true
                backoffAttempts = 0
                setConnectionState(.connected)
                uploadCursor = max(ident.lastIntegratedClientVersion, base)
                for id in unsentMarks { send(.mark(WireMark(session: sessionNumber, requestId: id))) }
                unsentMarks = []
                uploadPending()
            } catch {
                connectionLost("storing the file identity failed: \(error)")
            }
        case .download(let d) where d.session == sessionNumber:
            downloadedBytes += d.changesets.reduce(0) { $0 + $1.instructions.count }
            downloadableBytes = Int(d.progress.downloadableBytes)
            if d.bootstrap == .inProgress {
                bootstrapBuffer += d.changesets
                return
            }
            let changesets = bootstrapBuffer + d.changesets
            bootstrapBuffer = []
            integrate(changesets, progress: d.progress, completedQuery: d.bootstrap == .lastBatch ? d.queryVersion : nil)
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
            stopWithError(SyncError(.clientResetError, "The server asks for a client reset, which this client does not perform yet: \(e.message)", serverCode: e.code))
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
    private func integrate(_ changesets: [WireDownloadChangeset], progress: WireDownloadProgress, completedQuery: UInt64?) {
        let instructions = changesets.flatMap(\.instructions)
        for c in changesets { clock.receive(c.timestamp) }
        do {
            let current = try file.read { SyncProgressStore.progress($0) }
            var updated = current
            updated.serverVersion = max(current.serverVersion, progress.serverVersion)
            updated.acknowledgedClientVersion = max(current.acknowledgedClientVersion, progress.lastIntegratedClientVersion)
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
                        _ = orc_log_hold(txn, SyncProgressStore.logConsumer, updated.acknowledgedClientVersion)
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
            let acked = updated.acknowledgedClientVersion
            let ready = uploadWaiters.filter { $0.version <= acked }
            uploadWaiters.removeAll { $0.version <= acked }
            for w in ready { w.resume(nil) }
            notifyProgress()
        } catch {
            send(.error(WireErrorMessage(session: sessionNumber, code: .badChangeset, message: "the client could not integrate a download: \(error)", isFatal: true)))
            connectionLost("integrating a download failed: \(error)")
        }
    }

    // MARK: Upload and queries

    private func poll() {
        let version = file.latestVersion()
        guard version != lastSeenFileVersion else { return }
        lastSeenFileVersion = version
        if bound {
            uploadPending()
            sendLatestQuery()
        }
    }

    /// Uploads the local commits after the cursor that carry synced changes.
    private func uploadPending() {
        guard bound, !Self.uploadsHeld.withLock({ $0.contains(file.path) }) else { return }
        let head = file.latestVersion()
        guard head > uploadCursor else { return }
        do {
            let changesets = try file.read { txn -> [WireUploadChangeset] in
                let integrations = SyncProgressStore.integrations(txn)
                let integrated = Set(integrations.map(\.local))
                let stamps = CommitStamps.all(txn)
                var out: [WireUploadChangeset] = []
                var v = uploadCursor + 1
                while v <= head {
                    defer { v += 1 }
                    if integrated.contains(v) { continue }
                    let instructions = try ChangesetReader.instructions(txn, version: v)
                    if instructions.isEmpty { continue }
                    out.append(WireUploadChangeset(clientVersion: v,
                                                   lastIntegratedServerVersion: SyncProgressStore.serverVersion(before: v, integrations),
                                                   timestamp: stamps[v] ?? clock.tick(), instructions: instructions))
                }
                return out
            }
            uploadCursor = head
            var batch: [WireUploadChangeset] = []
            var size = 0
            for c in changesets {
                let bytes = (try? WireChangeset(c.instructions).encoded().count) ?? 0
                if !batch.isEmpty && size + bytes > 8 << 20 {
                    send(.upload(WireUpload(session: sessionNumber, changesets: batch)))
                    batch = []
                    size = 0
                }
                batch.append(c)
                size += bytes
            }
            if !batch.isEmpty {
                send(.upload(WireUpload(session: sessionNumber, changesets: batch)))
                // A mark makes the server report the acknowledgement promptly.
                nextMarkId += 1
                send(.mark(WireMark(session: sessionNumber, requestId: nextMarkId)))
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
    private func sendLatestQuery() {
        guard connection != nil, let store = subscriptionStore else { return }
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
    private func lastContentVersion(upTo head: UInt64) -> UInt64? {
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

    // MARK: Waiting

    /// Waits until every local change made before the call has been uploaded and
    /// acknowledged (`.upload`), or until every change the server had when the call was
    /// made has been downloaded and integrated (`.download`).
    ///
    /// - Throws: ``SyncError`` when the session stops (logout, a refused session).
    public func wait(for direction: ProgressDirection) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            let once = OnceFlag()
            let resume: @Sendable (Error?) -> Void = { error in
                guard once.claim() else { return }
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
            queue.async { [self] in
                if stoppedForGood {
                    resume(SyncError(.connectionFailed, "The sync session of '\(file.path)' is stopped."))
                    return
                }
                switch direction {
                case .upload:
                    guard let target = lastContentVersion(upTo: file.latestVersion()) else { resume(nil); return }
                    uploadWaiters.append((target, resume))
                    uploadPending()
                case .download:
                    nextMarkId += 1
                    markWaiters.append((nextMarkId, resume))
                    if bound { send(.mark(WireMark(session: sessionNumber, requestId: nextMarkId))) } else { unsentMarks.append(nextMarkId) }
                }
            }
        }
    }

    /// Waits for upload or download and calls `callback` with nil or the error.
    public func wait(for direction: ProgressDirection, callback: @escaping @Sendable (Error?) -> Void) {
        Task { do { try await wait(for: direction); callback(nil) } catch { callback(error) } }
    }

    // MARK: Progress

    /// Calls `block` (on the session's queue) as data is uploaded or downloaded.
    public func addProgressNotification(for direction: ProgressDirection, mode: ProgressMode,
                                        block: @escaping @Sendable (Progress) -> Void) -> ProgressNotificationToken? {
        let token = ProgressNotificationToken(session: self)
        queue.async { [self] in
            nextProgressToken += 1
            token.id = nextProgressToken
            progressBlocks[nextProgressToken] = (direction, mode, block)
            block(progress(direction))
        }
        return token
    }

    func removeProgressNotification(_ id: UInt64) {
        queue.async { [self] in progressBlocks[id] = nil }
    }

    private func progress(_ direction: ProgressDirection) -> Progress {
        switch direction {
        case .download: return Progress(transferredBytes: downloadedBytes, transferrableBytes: downloadedBytes + downloadableBytes)
        case .upload:
            let pending = uploadWaiters.isEmpty ? 0 : 1
            return Progress(transferredBytes: uploadedBytes, transferrableBytes: uploadedBytes + pending)
        }
    }

    private func notifyProgress() {
        for (id, (direction, mode, block)) in progressBlocks {
            let p = progress(direction)
            block(p)
            if mode == .forCurrentlyOutstandingWork, p.isTransferComplete { progressBlocks[id] = nil }
        }
    }
}

/// Stops a progress notification when invalidated.
public final class ProgressNotificationToken: @unchecked Sendable {
    weak var session: SyncSession?
    var id: UInt64 = 0

    init(session: SyncSession) { self.session = session }

    /// Stops the notifications.
    public func invalidate() {
        session?.removeProgressNotification(id)
    }
}
