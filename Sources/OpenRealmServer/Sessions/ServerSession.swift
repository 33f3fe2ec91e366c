import OpenRealmWire

/// What a connection hands its transport: a message to send, or the end of the
/// connection (after the messages before it).
public enum ConnectionOutput: Sendable {
    /// Send this message.
    case message(WireMessage)
    /// Send this frame, encoded once and shared with other connections.
    case encoded(EncodedMessage)
    /// Send these downloads (a bootstrap's batches), each made when the transport is
    /// ready to write it (``BootstrapStream/next()``), before anything output after it.
    case stream(BootstrapStream)
    /// Close the connection.
    case close
}

/// One bound session: a client realm file syncing with an app.
///
/// Its mutable state is guarded by the app's lock (``SyncApp/syncLock``): the session's
/// own connection changes it while handling queries and uploads, other sessions'
/// uploads change ``viewObjects`` during fan-out.
final class ServerSession: @unchecked Sendable {
    /// The session number the client chose.
    let number: UInt64
    let app: SyncApp
    /// The user the access token named.
    let userId: String
    /// The client file identity.
    let fileIdent: UInt64
    /// The highest client version of the file the server integrated.
    var lastIntegratedClientVersion: UInt64
    /// The accepted subscription set (or the partition), with the user's rules.
    var view = SubscriptionView()
    /// Whether the session has sent a view yet (then ``viewObjects`` is what the
    /// client holds).
    var hasHadView = false
    /// The bind's `lastIntegratedServerVersion`.
    let bindServerVersion: UInt64
    /// The highest query version received (accepted or refused).
    var lastQueryVersion: UInt64 = 0
    /// The objects the client holds through its subscriptions. Uploads change it through
    /// ``enterView(_:)`` and ``leaveView(_:)``, which a group commit journals.
    var viewObjects: Set<WireObjectRef> = []
    /// While a group commit integrates: the changes of ``viewObjects`` so far, oldest
    /// first, so that a failed transaction puts the view back (``rollBackView()``)
    /// without having kept a copy of it (a copy made every commit copied the whole set
    /// at the first change after it).
    private var viewJournal: [(ref: WireObjectRef, wasIn: Bool)]?
    /// What the file's uploads are transformed against, kept from one upload to the
    /// next (``ConcurrentEdits/Memo``).
    let concurrentMemo = ConcurrentEdits.Memo()
    /// Sends to the session's connection.
    let output: @Sendable (ConnectionOutput) -> Void

    init(number: UInt64, app: SyncApp, userId: String, file: ClientFileRecord, bindServerVersion: UInt64,
         output: @escaping @Sendable (ConnectionOutput) -> Void) {
        self.number = number
        self.bindServerVersion = bindServerVersion
        self.app = app
        self.userId = userId
        self.fileIdent = file.ident
        self.lastIntegratedClientVersion = file.lastIntegratedClientVersion
        self.output = output
    }

    /// Starts journaling changes of ``viewObjects`` (a group commit begins).
    func beginViewJournal() { viewJournal = [] }

    /// Stops journaling and keeps the changes (the group commit committed).
    func endViewJournal() { viewJournal = nil }

    /// Undoes the journaled changes, newest first, and stops journaling.
    func rollBackView() {
        guard let journal = viewJournal else { return }
        viewJournal = nil
        for change in journal.reversed() {
            if change.wasIn { viewObjects.insert(change.ref) } else { viewObjects.remove(change.ref) }
        }
    }

    /// The client now holds `ref`.
    func enterView(_ ref: WireObjectRef) {
        if viewObjects.insert(ref).inserted { viewJournal?.append((ref, false)) }
    }

    /// The client no longer holds `ref`.
    func leaveView(_ ref: WireObjectRef) {
        if viewObjects.remove(ref) != nil { viewJournal?.append((ref, true)) }
    }

    func send(_ message: WireMessage) {
        output(.message(message))
    }

    /// A download of `changesets` (possibly none: progress only); `downloadableBytes`
    /// is what remains to send after it (the later batches of a bootstrap).
    ///
    /// `acknowledging` is the client version the progress acknowledges, the session's
    /// ``lastIntegratedClientVersion`` when nil. A download sent for one changeset of a
    /// group commit acknowledges what was integrated before that changeset, not what
    /// the group integrated after it: the client forgets its pending changes up to the
    /// acknowledged version, and a changeset integrated before one of them must still
    /// be transformed against it there.
    func download(_ changesets: [WireDownloadChangeset], serverVersion: UInt64, acknowledging: UInt64? = nil,
                  bootstrap: WireBootstrapState = .none, downloadableBytes: UInt64 = 0) -> WireMessage {
        .download(WireDownload(session: number, queryVersion: view.queryVersion,
                               progress: WireDownloadProgress(serverVersion: serverVersion,
                                                              lastIntegratedClientVersion: acknowledging ?? lastIntegratedClientVersion,
                                                              downloadableBytes: downloadableBytes),
                               bootstrap: bootstrap, changesets: changesets))
    }
}
