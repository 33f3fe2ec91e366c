import Foundation
import ORCore

/// Keeping the changeset log for this process's registrations, and trimming it.
///
/// Each process that observes a file registers itself as a log consumer named
/// `openrealm.notify.<pid>.<start time>` at the oldest version one of its
/// registrations still needs, and lists that name under the metadata key
/// `openrealm.notify.holders`. The hold moves inside this process's own write
/// transactions (no extra commit), except when the process observes without writing:
/// then a small dedicated commit records it (once when the first registration
/// appears, when it lags far behind, and to release it when none is left).
///
/// Every few commits, a commit also trims the log up to the oldest version any
/// consumer needs, never closer than `trimMargin` versions to the newest, and
/// releases the holds of processes that died (their pid is gone, or belongs to a
/// process started at another time). A registration whose changes were trimmed
/// anyway is told by comparing states instead (`deliverWithoutLog`).
extension FileNotifier {
    enum HoldState: Equatable {
        case none
        case at(UInt64)
        /// A commit that would have recorded the hold failed.
        case unknown
    }

    static let holdersKey = "openrealm.notify.holders"
    /// Versions always kept at the head of the log. With `trimEvery`, a log of small
    /// commits (16 to 24 entries of ~120 bytes) stays one LMDB page, so a commit writes
    /// that page alone rather than the log's root and its last leaf (64 and 32 kept four
    /// leaves under a root: a page more in every commit, two in a trimming one).
    static let trimMargin: UInt64 = 16
    /// Commits between two trims.
    static let trimEvery = 8
    /// How far the recorded hold may lag before a dedicated commit moves it.
    static let maximumLag: UInt64 = 1024

    /// This process's consumer name.
    static let consumerName: String = "openrealm.notify.\(getpid()).\(ProcessIdentity.startTime(of: getpid()) ?? 0)"

    // MARK: Tracking registrations

    func track(_ registration: NotificationRegistration) {
        holdLock.withLock {
            tracked[ObjectIdentifier(registration)] = WeakRegistration(registration: registration)
            lastTrackingChange = Date()
        }
        NotifierThread.shared.watch(self)
    }

    func untrack(_ registration: NotificationRegistration) {
        holdLock.withLock {
            tracked[ObjectIdentifier(registration)] = nil
            lastTrackingChange = Date()
        }
    }

    /// The oldest version a live registration still needs changes after (caller holds `holdLock`).
    private func neededVersionLocked() -> UInt64? {
        var needed: UInt64?
        var dead: [ObjectIdentifier] = []
        for (id, weak) in tracked {
            guard let registration = weak.registration, registration.isActive else { dead.append(id); continue }
            let version = registration.version
            needed = needed.map { Swift.min($0, version) } ?? version
        }
        for id in dead { tracked[id] = nil }
        return needed
    }

    // MARK: Inside a write transaction

    /// Called inside a write transaction just before it commits: moves this process's
    /// hold and, every few commits, trims the log. Returns the hold state the commit
    /// records, for `finishCommit`.
    func prepareCommit(_ txn: OpaquePointer) -> HoldState? {
        guard !isReadOnly else { return nil }
        let (needed, current, trimNow) = holdLock.withLock { () -> (UInt64?, HoldState, Bool) in
            commitsSinceTrim += 1
            let trim = commitsSinceTrim >= Self.trimEvery
            if trim { commitsSinceTrim = 0 }
            return (neededVersionLocked(), hold, trim)
        }
        var recorded = current
        if needed.map(HoldState.at) ?? .none != current {
            recorded = Self.record(needed, in: txn, previously: current)
        }
        if trimNow {
            Self.releaseDeadHolders(txn)
            let head = orc_txn_version(txn)
            var upto = head > Self.trimMargin ? head - Self.trimMargin : 0
            if let needed { upto = Swift.min(upto, needed) }
            if upto > 0 { _ = orc_log_trim(txn, upto, nil) }
        }
        return recorded
    }

    /// Records what the commit did to the hold once it is known whether it committed.
    func finishCommit(_ recorded: HoldState?, succeeded: Bool, version: UInt64) {
        guard let recorded else { return }
        holdLock.withLock { hold = succeeded ? recorded : .unknown }
    }

    /// Writes (or removes) this process's hold and its name in the holders list.
    private static func record(_ needed: UInt64?, in txn: OpaquePointer, previously: HoldState) -> HoldState {
        var holders = readHolders(txn)
        if let needed {
            guard orc_log_hold(txn, consumerName, needed) == ORC_OK else { return .unknown }
            if !holders.contains(consumerName) {
                holders.append(consumerName)
                writeHolders(holders, txn)
            }
            return .at(needed)
        }
        guard orc_log_release(txn, consumerName) == ORC_OK else { return .unknown }
        if holders.contains(consumerName) {
            holders.removeAll { $0 == consumerName }
            writeHolders(holders, txn)
        }
        return .none
    }

    private static func readHolders(_ txn: OpaquePointer) -> [String] {
        var data: UnsafeRawPointer?
        var size = 0
        guard orc_meta_get(txn, holdersKey, &data, &size) == ORC_OK, let data, size > 0 else { return [] }
        let text = String(decoding: UnsafeRawBufferPointer(start: data, count: size), as: UTF8.self)
        return text.split(separator: "\n").map(String.init)
    }

    private static func writeHolders(_ holders: [String], _ txn: OpaquePointer) {
        if holders.isEmpty {
            _ = orc_meta_delete(txn, holdersKey)
            return
        }
        let bytes = Array(holders.joined(separator: "\n").utf8)
        _ = bytes.withUnsafeBytes { orc_meta_set(txn, holdersKey, $0.baseAddress, $0.count) }
    }

    /// Releases the holds of processes that no longer run.
    private static func releaseDeadHolders(_ txn: OpaquePointer) {
        let holders = readHolders(txn)
        let alive = holders.filter { $0 == consumerName || ProcessIdentity.isAlive(consumer: $0) }
        guard alive.count != holders.count else { return }
        for dead in holders where !alive.contains(dead) { _ = orc_log_release(txn, dead) }
        writeHolders(alive, txn)
    }

    // MARK: Dedicated commits

    private static let maintenanceQueue = DispatchQueue(label: "openrealm.log-holds", qos: .utility)

    /// Called by the notifier thread: records, moves or releases the hold in a commit
    /// of its own when this process's writes do not do it soon enough.
    func maintainHoldIfNeeded() {
        guard !isReadOnly else { return }
        let due = holdLock.withLock { () -> Bool in
            guard !maintenanceInFlight, Date() >= retryMaintenanceAfter else { return false }
            let needed = neededVersionLocked()
            let due: Bool
            switch (needed, hold) {
            case (.some, .none), (.some, .unknown): due = true
            case (.some(let needed), .at(let held)): due = needed > held + Self.maximumLag
            case (.none, .at), (.none, .unknown): due = Date().timeIntervalSince(lastTrackingChange) > 1
            case (.none, .none): due = false
            }
            if due { maintenanceInFlight = true }
            return due
        }
        guard due else { return }
        Self.maintenanceQueue.async { [self] in
            let version = withEnv { env in commitHoldOnly(env) } ?? nil
            holdLock.withLock {
                maintenanceInFlight = false
                if hold == .unknown { retryMaintenanceAfter = Date(timeIntervalSinceNow: 1) }
            }
            if let version { fileAdvanced(to: version) }
        }
    }

    /// A write transaction that only moves the hold. Returns the new version.
    private func commitHoldOnly(_ env: OpaquePointer) -> UInt64? {
        let (needed, previous) = holdLock.withLock { (neededVersionLocked(), hold) }
        if (needed.map(HoldState.at) ?? .none) == previous { return nil }
        var txn: OpaquePointer?
        guard orc_txn_begin(env, Int32(ORC_TXN_WRITE), &txn) == ORC_OK, let txn else {
            holdLock.withLock { hold = .unknown }
            return nil
        }
        let state = Self.record(needed, in: txn, previously: previous)
        var version: UInt64 = 0
        let status = orc_txn_commit(txn, &version)
        holdLock.withLock { hold = status == ORC_OK ? state : .unknown }
        return status == ORC_OK ? version : nil
    }

    /// At close: removes this process's hold if it recorded one.
    func releaseHoldOnClose() {
        guard !isReadOnly, !isInMemory, holdLock.withLock({ hold != .none }) else { return }
        holdLock.withLock { tracked.removeAll() }
        _ = withEnv { env in commitHoldOnly(env) }
    }
}

/// Telling whether the process that named a log hold still runs.
enum ProcessIdentity {
    /// The start time of a process (clock ticks since boot, from `/proc/<pid>/stat`),
    /// nil when it cannot be read.
    static func startTime(of pid: pid_t) -> UInt64? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // Field 22 of the file; the fields after the command name start at field 3.
        guard fields.count > 19 else { return nil }
        return UInt64(fields[19])
    }

    /// Whether the process named in a consumer name `openrealm.notify.<pid>.<start>` runs.
    static func isAlive(consumer: String) -> Bool {
        let parts = consumer.split(separator: ".")
        guard parts.count == 4, let pid = pid_t(parts[2]), let start = UInt64(parts[3]) else { return true }
        if let actual = startTime(of: pid) { return start == 0 || actual == start }
        if kill(pid, 0) == 0 { return true }
        return errno == EPERM
    }
}
