import ArgumentParser
import Foundation
import RealmSwift
import OpenRealmTestSupport

/// The synced client child of `crash --target client|server` and `network` (hidden):
/// commits transactions to its flexible sync realm with the RealmSwift API and reports
/// what it did on standard output, one line per event:
///
/// - `ready <n> <lag>`: the realm is open and its own notes run 1...n (n = its last
///   seq); its log lacks `lag` entries not yet back from the server;
/// - `commit <seq>`: `commitWrite` returned for transaction `seq`;
/// - `uploaded <seq>`: `wait(for: .upload)` returned after transaction `seq` committed,
///   so the server acknowledged every transaction up to `seq`;
/// - `settled <seq>`: after `settle`, everything local up to `seq` is acknowledged;
/// - `log ...` / `state ...` lines (``SyncStateReport``) after `report`, then `reported`;
/// - `syncerror <message>`: an error the session reported (the parent decides).
///
/// With `OPENREALM_SYNC_LOG_LEVEL` set (`detail`, `debug`) the session logs its
/// connections on standard error, which the parent keeps in the client's log file.
///
/// Standard input takes `settle` (stop writing, reconnect, upload everything), `report`
/// (download everything, print the state), `reconnect` (reconnect now), `exit`, and for
/// self-tests `duplicate` (append seq 1 to the log again, as a changeset applied twice
/// would leave it).
/// Each transaction appends its seq to the client's ``ChaosLog``, adds the
/// ``ChaosNote`` `<client>-<seq>`, and one in four also edits a recent note of its own or of a peer.
struct SyncClientCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync-client",
        abstract: "A synced client of the chaos runs: writes, uploads and reports until told to stop.",
        shouldDisplay: false
    )

    @Option(help: "The server's base URL (http://127.0.0.1:PORT).")
    var baseURL: String

    @Option(help: "The sync root directory (users and realm files).")
    var root: String

    @Option(help: "The client's name (its log id and user).")
    var client: String

    @Option(help: "Seed of the random writes.")
    var seed: UInt64 = 1

    @Option(help: "Pause between transactions, in milliseconds.")
    var intervalMs: Int = 0

    @Option(help: "Wait for upload after every this many transactions.")
    var uploadEvery: Int = 3

    @Flag(help: "Wait for uploads in the background instead of blocking the writes.")
    var backgroundUploads = false

    @Option(help: "Clients whose notes this one edits too (comma-separated names); its own always.")
    var peers: String = ""

    @Option(help: "Stop writing after this many transactions (then wait for settle).")
    var maxTransactions: Int = 1_000_000

    @Flag(help: "Write nothing: download everything, print the state and exit.")
    var verifyOnly = false

    @Option(help: "Self-test: before writing, append this seq to the client's log a second time, as a changeset applied twice would.")
    var injectDuplicate: Int?

    func run() throws {
        let app = App(id: SyncChaos.appId, configuration: AppConfiguration(baseURL: baseURL, rootDirectory: URL(fileURLWithPath: root)))
        app.syncManager.errorHandler = { error, _ in emit("syncerror \(error)") }
        // OPENREALM_SYNC_LOG_LEVEL=detail|debug: the session's log on standard error (the client's log file).
        if let name = ProcessInfo.processInfo.environment["OPENREALM_SYNC_LOG_LEVEL"], let level = SyncLogLevel(name: name) {
            app.syncManager.logLevel = level
        }
        let user: User
        if let current = app.currentUser {
            user = current
        } else {
            let email = SyncChaos.email(of: client)
            // Through the faulty proxy a login may meet a reset connection: retry it.
            var attempt = 0
            while true {
                attempt += 1
                do {
                    user = try blocking("logging in", timeout: 60) {
                        try await app.login(credentials: .emailPassword(email: email, password: SyncChaos.password))
                    }
                    break
                } catch where attempt < 30 {
                    usleep(300_000)
                }
            }
        }
        var configuration = user.flexibleSyncConfiguration(initialSubscriptions: { subscriptions in
            subscriptions.append(QuerySubscription<ChaosNote>(name: "notes"))
            subscriptions.append(QuerySubscription<ChaosLog>(name: "logs"))
        })
        configuration.objectTypes = [ChaosNote.self, ChaosLog.self]
        let realm = try Realm(configuration: configuration)
        guard let session = realm.syncSession else { throw ChaosFailure(.writer, "The realm of \(client) has no sync session.") }
        let inbox = CommandInbox { session.reconnect() }
        var (seq, logLag) = try localLastSeq(realm)
        emit("ready \(seq) \(logLag)")
        if verifyOnly {
            try report(realm, session: session)
            return
        }
        if let duplicate = injectDuplicate {
            try realm.write { realm.object(ofType: ChaosLog.self, forPrimaryKey: client)?.entries.append(duplicate) }
        }
        var random = SplitMix64(seed: seed)
        var written = 0
        while written < maxTransactions, !inbox.has("settle") {
            if inbox.take("duplicate") {
                try realm.write { realm.object(ofType: ChaosLog.self, forPrimaryKey: client)?.entries.append(1) }
                emit("duplicated 1")
            }
            seq += 1
            written += 1
            try write(seq, to: realm, using: &random)
            emit("commit \(seq)")
            if seq % max(1, uploadEvery) == 0 {
                if backgroundUploads {
                    let uploaded = seq
                    session.wait(for: .upload) { error in
                        emit(error == nil ? "uploaded \(uploaded)" : "syncerror upload wait failed: \(error!)")
                    }
                } else {
                    try blocking("waiting for upload of seq \(seq)", timeout: 600) { try await session.wait(for: .upload) }
                    emit("uploaded \(seq)")
                }
            }
            if intervalMs > 0 { usleep(UInt32(intervalMs * 1000)) }
        }
        guard inbox.wait(for: "settle") else { return }
        session.reconnect()
        try blocking("settling (uploading everything)", timeout: 600) { try await session.wait(for: .upload) }
        emit("settled \(seq)")
        guard inbox.wait(for: "report") else { return }
        try report(realm, session: session)
        _ = inbox.wait(for: "exit")
    }

    /// The last seq this client committed, from its own notes (which no download removes),
    /// after checking that its notes run 1...n without a gap. Also returns how many entries
    /// its log lacks: a download may rewrite the log list with the server's copy, without
    /// the appends not yet uploaded, until the server integrates them and sends the list
    /// back (docs/SERVER.md, "View changes and re-binds").
    private func localLastSeq(_ realm: Realm) throws -> (seq: Int, logLag: Int) {
        let seqs = Set(realm.objects(ChaosNote.self).filter { $0.client == client }.map(\.seq))
        let last = seqs.max() ?? 0
        if let missing = (0..<last).map({ $0 + 1 }).first(where: { !seqs.contains($0) }) {
            throw ChaosFailure(.lostCommit, "\(client): its local notes run to seq \(last) but seq \(missing) is missing.")
        }
        let entries = realm.object(ofType: ChaosLog.self, forPrimaryKey: client)?.entries.count ?? 0
        return (last, last - entries)
    }

    /// Commits transaction `seq`: the log entry, the note, and sometimes an edit.
    private func write(_ seq: Int, to realm: Realm, using random: inout SplitMix64) throws {
        // One transaction in four edits a recent note of this client or of a peer, so
        // that concurrent writes to the same objects meet on the server.
        let owners = [client] + peers.split(separator: ",").map(String.init)
        let editTarget = Int.random(in: 0..<4, using: &random) == 0
            ? "\(owners[Int.random(in: 0..<owners.count, using: &random)])-\(max(1, seq - Int.random(in: 1...50, using: &random)))"
            : nil
        let text = String(repeating: "n", count: Int.random(in: 0..<64, using: &random)) + "\(random.next())"
        try realm.write {
            let log = realm.object(ofType: ChaosLog.self, forPrimaryKey: client) ?? {
                let created = ChaosLog()
                created._id = client
                realm.add(created)
                return created
            }()
            log.entries.append(seq)
            let note = ChaosNote()
            note._id = "\(client)-\(seq)"
            note.client = client
            note.seq = seq
            note.text = text
            realm.add(note)
            if let editTarget, let target = realm.object(ofType: ChaosNote.self, forPrimaryKey: editTarget) {
                target.text = "edited by \(client) in \(seq)"
                target.edits += 1
            }
        }
    }

    /// Waits for the subscriptions and every download, then prints the state.
    private func report(_ realm: Realm, session: SyncSession) throws {
        let deadline = Date().addingTimeInterval(300)
        while realm.subscriptions.state != .complete {
            guard Date() < deadline else { throw ChaosFailure(.writer, "\(client): the subscriptions did not complete in 300 s.") }
            if case .error(let error) = realm.subscriptions.state { throw ChaosFailure(.writer, "\(client): subscriptions refused: \(error)") }
            usleep(10_000)
        }
        try blocking("downloading everything", timeout: 600) { try await session.wait(for: .download) }
        realm.refresh()
        for line in SyncStateReport.of(realm).lines { emit(line) }
        emit("reported")
    }
}
